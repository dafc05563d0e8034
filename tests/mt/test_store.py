"""The on-disk token store of ``paralib mt train``: what goes in comes out, batches cover
every pair once within their token budget, collation pads and shifts like Marian expects."""

from __future__ import annotations

import random

import numpy as np
import pytest

from paralib.mt.store import StoreError, TokenStore, write_store

PAD = 99


def _pairs(n: int, seed: int = 0) -> tuple[list[list[int]], list[list[int]]]:
    rng = random.Random(seed)
    src = [[rng.randrange(1, 90) for _ in range(rng.randrange(1, 30))] + [0] for _ in range(n)]
    tgt = [[rng.randrange(1, 90) for _ in range(rng.randrange(1, 30))] + [0] for _ in range(n)]
    return src, tgt


def test_round_trip_in_chunks(tmp_path):
    src, tgt = _pairs(250)
    chunks = [(src[i:i + 64], tgt[i:i + 64]) for i in range(0, 250, 64)]
    store = write_store(tmp_path / "s", chunks, vocab_size=100, info={"fingerprint": "x"})
    again = TokenStore.open(tmp_path / "s")
    assert len(store) == len(again) == 250
    assert again.meta["fingerprint"] == "x" and again.meta["dtype"] == "uint16"
    for i in (0, 63, 64, 249):
        assert again.pair(i) == (src[i], tgt[i])


def test_batches_cover_every_pair_once_within_budget(tmp_path):
    src, tgt = _pairs(500, seed=1)
    store = write_store(tmp_path / "s", [(src, tgt)], vocab_size=100)
    batches = store.batches(200, random.Random(3))
    seen = np.concatenate(batches)
    assert sorted(seen.tolist()) == list(range(500))
    for b in batches:
        longest = max(max(len(src[i]), len(tgt[i])) for i in b)
        assert longest * len(b) <= 200 or len(b) == 1
    assert [b.tolist() for b in store.batches(200, random.Random(3))] == \
        [b.tolist() for b in batches]


def test_collate_pads_and_shifts(tmp_path):
    src = [[5, 6, 0], [7, 0]]
    tgt = [[8, 0], [9, 10, 11, 0]]
    store = write_store(tmp_path / "s", [(src, tgt)], vocab_size=100)
    b = store.collate(np.array([0, 1]), PAD)
    assert b["input_ids"].tolist() == [[5, 6, 0], [7, 0, PAD]]
    assert b["attention_mask"].tolist() == [[1, 1, 1], [1, 1, 0]]
    assert b["labels"].tolist() == [[8, 0, -100, -100], [9, 10, 11, 0]]
    assert b["decoder_input_ids"][:, 0].tolist() == [PAD, PAD]  # Marian's decoder start
    assert b["decoder_input_ids"][1].tolist() == [PAD, 9, 10, 11]


def test_unfinished_or_damaged_store_is_refused(tmp_path):
    src, tgt = _pairs(20)
    write_store(tmp_path / "s", [(src, tgt)], vocab_size=100)
    with open(tmp_path / "s" / "tgt.len", "ab") as f:
        f.write(b"\x01\x00")
    with pytest.raises(StoreError, match="tgt holds 21 pairs"):
        TokenStore.open(tmp_path / "s")
    (tmp_path / "s" / "store.json").unlink()
    with pytest.raises(StoreError, match="no finished token store"):
        TokenStore.open(tmp_path / "s")


def test_large_vocabularies_use_32_bit_ids(tmp_path):
    store = write_store(tmp_path / "s", [([[70_000, 0]], [[1, 0]])], vocab_size=80_000)
    assert store.meta["dtype"] == "uint32" and store.pair(0) == ([70_000, 0], [1, 0])
