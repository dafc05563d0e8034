"""The in-process trainer of small experiment runs records every epoch's dev-cosine spread and
warns, in its log and its training report, when the encoder collapses."""

from __future__ import annotations

import logging

import pytest

from paralib.config import Config
from paralib.io.context import StageContext
from paralib.train.run import train


@pytest.mark.slow
def test_a_collapsing_lstm_is_warned_about_and_reported(tmp_path, caplog):
    cfg = Config.model_validate({"train": {
        "name": "lstm-captions", "sources": [{"kind": "captions"}], "max_pairs": 3000,
        "negatives": "max", "epochs": 2, "output": str(tmp_path / "model"),
        "model": {"parts": [{"name": "lstm", "dim": 32}]}}})
    with caplog.at_level(logging.WARNING, logger="paralib.train.loop"):
        summary = train(cfg.train, StageContext.of(cfg), engine="local")
    assert [h["collapsed"] for h in summary.history] == [True, True]
    assert all(h["dev_cos_sd"] < 0.01 for h in summary.history)
    warned = [r.getMessage() for r in caplog.records]
    assert len(warned) == 2 and warned[0].startswith("lstm-captions: epoch 1: the encoder has "
                                                     "collapsed")
    assert "**The encoder collapsed** in epoch(s) 1, 2" in (tmp_path / "model/training.md"
                                                          ).read_text()
