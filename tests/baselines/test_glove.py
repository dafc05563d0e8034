"""The GloVe averaging baseline's files: a package whose word index and vectors disagree is
named as a broken installation (a user error with a hint), not a bug."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from paralib.baselines.glove import GloveAverageEncoder, GloveNotInstalledError
from paralib.errors import ParalibError


def test_words_and_vectors_that_disagree_name_the_package(tmp_path):
    pd.DataFrame({"index": ["a", "b"]}).to_parquet(tmp_path / "glove_6B_index.parquet")
    np.save(tmp_path / "glove_6B_50d_emb.npy", np.zeros((3, 50), np.float32))
    with pytest.raises(GloveNotInstalledError, match="2 words but 3 vectors; reinstall") as e:
        GloveAverageEncoder(tmp_path)
    assert isinstance(e.value, ParalibError) and e.value.hint


def test_matching_files_average_known_tokens(tmp_path):
    pd.DataFrame({"index": ["a", "b"]}).to_parquet(tmp_path / "glove_6B_index.parquet")
    np.save(tmp_path / "glove_6B_50d_emb.npy", np.stack([np.ones(50), 3 * np.ones(50)])
            .astype(np.float32))
    enc = GloveAverageEncoder(tmp_path)
    assert enc.dim == 50 and float(enc.encode(["A b"])[0, 0]) == pytest.approx(2.0)
