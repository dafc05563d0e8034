"""Shared inputs of the benchmark scripts' tests."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from paralib.paths import data_root


@pytest.fixture
def val_pairs(tmp_path: Path) -> Path:
    """The Multi30k task-1 validation captions as German-English pairs, in the columns of a
    ``paralib decontaminate`` output (``ref``, ``src``, ``src_lang``, ``group``)."""
    root = data_root() / "bitext" / "multi30k" / "task1" / "raw"
    with gzip.open(root / "val.en.gz", "rt") as en, gzip.open(root / "val.de.gz", "rt") as de:
        ref, src = en.read().splitlines(), de.read().splitlines()
    path = tmp_path / "pairs.parquet"
    pd.DataFrame({"ref": ref, "src": src, "src_lang": "de",
                  "group": range(len(ref))}).to_parquet(path)
    return path
