"""Real candidate pairs for the scorer tests: Multi30k validation references (task 1) paired
with an independent English caption of the same image (task 2, first annotator)."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest


def _lines(path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


@pytest.fixture(scope="session")
def m30k_pairs(data_dir) -> pd.DataFrame:
    """1,014 real pairs: ``ref`` = task-1 val English, ``trans`` = task-2 val caption 1.

    Row i is line i + 1 of both files (the same image).
    """
    base = data_dir / "bitext/multi30k"
    ref = _lines(base / "task1/raw/val.en.gz")
    trans = _lines(base / "task2/raw/val.1.en.gz")
    assert len(ref) == len(trans) == 1014
    return pd.DataFrame({"id": [f"m30k:val:{i + 1}" for i in range(len(ref))],
                         "corpus": "m30k", "src_lang": "de", "ref": ref, "trans": trans})


@pytest.fixture()
def hand_pairs(m30k_pairs) -> pd.DataFrame:
    """The pairs worked by hand in the tests (lines 347, 178 and 650 of the val files), plus
    line 347 with its sides swapped (the translation shorter than the reference)."""
    rows = m30k_pairs.iloc[[346, 177, 649]].reset_index(drop=True)
    assert rows.ref.tolist() == ["A small dog jumping on a street.",
                                 "A person parasails on the crest of a wave.",
                                 "The three children are in a cage."]
    assert rows.trans.tolist() == ["A little white dog jumping on the ground.",
                                   "A person parasails on the crest of a wave.",
                                   "Three well dressed blond children in a cage."]
    swapped = rows.iloc[[0]].rename(columns={"ref": "trans", "trans": "ref"})
    return pd.concat([rows, swapped], ignore_index=True)
