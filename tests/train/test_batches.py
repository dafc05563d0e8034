"""Training pairs tokenised once: the id columns, the unknown-side check, and the batches the
trainer reads from Arrow (Ray Data) or from text."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from paralib.models import ParaphraseModel
from paralib.models.config import ModelConfig
from paralib.models.model import fit_tokenizers
from paralib.train.batches import PairBatch, all_unknown, ids_column, pair_batch, token_columns

PAIRS = pd.DataFrame({
    "s1": ["a dog runs on the beach", "two men talk", "zzzz qqqq", "a cat sleeps"],
    "s2": ["ein hund rennt am strand", "zwei männer reden", "ein hund", "xxxx"],
    "group": [7, 8, 9, 7]})


def _model(parts: list[dict]) -> ParaphraseModel:
    config = ModelConfig(parts=parts)
    texts = ["a dog runs on the beach", "two men talk", "a cat sleeps", "ein hund rennt am "
             "strand", "zwei männer reden"] * 5
    return ParaphraseModel(config, fit_tokenizers(config, texts))


def test_columns_hold_each_streams_ids_once():
    """Parts sharing a tokeniser and cut read one stream; a different cut is its own."""
    model = _model([{"name": "word", "vocab_size": 50, "dim": 8},
                    {"name": "word", "vocab_size": 50, "dim": 8},
                    {"name": "word", "vocab_size": 50, "dim": 8, "max_tokens": 2}])
    assert model.slots() == [0, 0, 1]
    columns = token_columns(PAIRS, model.config, model.tokenizers)
    assert sorted(columns) == ["ids1_0", "ids1_1", "ids2_0", "ids2_1"]
    want = model.tokenizers[0].encode(PAIRS["s1"].tolist())
    assert columns["ids1_0"].to_pylist() == want
    assert columns["ids1_1"].to_pylist() == [s[:2] for s in want]


def test_a_side_of_unknown_tokens_only_is_flagged():
    model = _model([{"name": "word", "vocab_size": 50, "dim": 8}])
    columns = token_columns(PAIRS, model.config, model.tokenizers)
    assert all_unknown(columns, len(PAIRS)).tolist() == [False, False, True, True]


def test_arrow_batches_equal_text_batches():
    """What a Ray Train worker reads (Arrow with id columns, any slice) is what the text
    would tokenise to, with the groups beside it."""
    model = _model([{"name": "sp", "vocab_size": 40, "dim": 8}])
    columns = token_columns(PAIRS, model.config, model.tokenizers)
    table = pa.Table.from_pandas(PAIRS[["group"]], preserve_index=False)
    for name, column in columns.items():
        table = table.append_column(name, column)
    from_arrow = pair_batch(table.slice(1, 3), model)
    from_text = pair_batch(PAIRS.iloc[1:4], model)
    assert from_arrow.side1[0].to_lists() == from_text.side1[0].to_lists()
    assert from_arrow.side2[0].to_lists() == from_text.side2[0].to_lists()
    assert from_arrow.groups.tolist() == from_text.groups.tolist() == [8, 9, 7]
    assert pair_batch(table, model, groups=False).groups is None
    assert ids_column(2, 0) in table.column_names


def test_concat_and_slice_keep_rows_aligned():
    model = _model([{"name": "sp", "vocab_size": 40, "dim": 8}])
    a, b = pair_batch(PAIRS.iloc[:2], model), pair_batch(PAIRS.iloc[2:], model)
    both = PairBatch.concat([a, b])
    assert len(both) == 4 and both.groups.tolist() == [7, 8, 9, 7]
    again = both.slice(2, 4)
    assert again.side2[0].to_lists() == b.side2[0].to_lists()
    assert np.array_equal(again.groups, b.groups)
