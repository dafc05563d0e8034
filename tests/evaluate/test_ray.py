"""Large sets are encoded by Ray Data actors that rebuild the encoder from its source."""

from __future__ import annotations

import numpy as np
import pytest

from paralib.evaluate.common import Settings
from paralib.evaluate.encode import encode_texts
from paralib.evaluate.loaders import read_tatoeba


def _folder_model(tmp_path, texts):
    """A saved random TRIGRAM model folder, when paralib.models can make one."""
    try:
        from paralib.models import random_encoder, save_model
    except ImportError:
        return None
    from paralib.evaluate.encoders import load_model_folder

    enc = random_encoder("trigram", texts, vocab_size=5000, dim=32, seed=0)
    folder = save_model(enc.model, tmp_path / "m", ("en",), {"random": True}, "# test\n")
    model = load_model_folder(folder)
    assert model.source.kind == "model" and model.source.ref == str(folder)
    return model


@pytest.mark.slow
def test_ray_encoding_matches_in_process(ray_session, tmp_path, data_dir, glove):
    _, en, _ = read_tatoeba(data_dir, "de")
    texts = en[:400]
    # a model folder (rebuilt in the actor by paralib.models.load), else the GloVe baseline
    model = _folder_model(tmp_path, en) or glove
    local = encode_texts(model, texts, "en", Settings(data=data_dir))
    forced = Settings(data=data_dir, ray_threshold=0, ray_rows_per_batch=100, ray_actors=1)
    remote = encode_texts(model, texts, "en", forced)
    assert remote.shape == local.shape and len(remote) == 400
    np.testing.assert_allclose(remote, local, rtol=1e-5, atol=1e-5)  # same rows, same order


def test_in_memory_encoder_stays_in_process(data_dir, hash_encoder):
    from paralib.evaluate.encoders import as_eval_model

    model = as_eval_model("hash", hash_encoder)
    assert model.source is None  # nothing to rebuild in an actor: encoded here, no Ray needed
    out = encode_texts(model, ["a b", "c"], "en", Settings(data=data_dir, ray_threshold=0))
    assert out.shape == (2, 64)
