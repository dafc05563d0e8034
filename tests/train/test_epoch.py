"""The collapse check (``paralib.train.epoch``): an LSTM trained on caption pairs with the
hardest negatives collapses (every sentence gets nearly the same vector, the margin loss sits
at 2δ), with random negatives it does not, and the dev cosines' spread tells them apart."""

from __future__ import annotations

import math

import pytest
import torch

from paralib.config import Config
from paralib.io.context import StageContext
from paralib.models import ParaphraseModel
from paralib.train.dev import load_dev, score_dev
from paralib.train.epoch import (
    COLLAPSED_SD,
    collapse_warning,
    collapsed,
    epoch_record,
    improves,
)
from paralib.train.report import write_report
from paralib.train.run import prepare
from paralib.train.steps import MegaBatchTrainer, StepState, build_optimizer


@pytest.fixture(scope="module")
def dev():
    return load_dev("stsb-dev")


@pytest.fixture(scope="module")
def captions():
    cfg = Config.model_validate({"train": {"sources": [{"kind": "captions"}],
                                           "model": {"parts": [{"name": "lstm", "dim": 32}]}}})
    prepared = prepare(cfg.train, StageContext.of(cfg))
    data, toks = prepared.data, prepared.tokenizers
    return data.iloc[:5000], toks


def _lstm_after_one_pass(captions, negatives: str) -> tuple[ParaphraseModel, list[float]]:
    data, toks = captions
    cfg = Config.model_validate({"train": {
        "sources": [{"kind": "captions"}], "negatives": negatives,
        "model": {"parts": [{"name": "lstm", "dim": 32}]}}})
    torch.manual_seed(1)
    torch.set_num_threads(1)
    model = ParaphraseModel(cfg.train.model, toks)
    model.initialise()
    trainer = MegaBatchTrainer(cfg.train, model, build_optimizer(model, 0.001), seed=1)
    losses = [trainer.train_megabatch([data.iloc[i:i + 100]]) for i in range(0, len(data), 100)]
    return model, losses


@pytest.mark.slow
def test_hardest_negatives_collapse_an_lstm_on_captions_and_random_ones_do_not(captions, dev):
    model, losses = _lstm_after_one_pass(captions, "max")
    scores = score_dev(model, dev)
    assert scores["dev_cos_sd"] < COLLAPSED_SD and scores["dev_cos_mean"] > 0.99
    assert abs(losses[-1] - 0.8) < 0.01  # 2δ: the pair and its negative equally similar
    assert collapsed(scores)
    model, losses = _lstm_after_one_pass(captions, "rand")
    scores = score_dev(model, dev)
    assert scores["dev_cos_sd"] > 5 * COLLAPSED_SD and not collapsed(scores)
    assert losses[-1] < 0.7


def test_a_collapsed_epoch_is_recorded_warned_about_and_reported(tmp_path):
    cfg = Config.model_validate({"train": {"model": {"parts": [{"name": "lstm"}]},
                                           "megabatch": {"size": 40}}}).train
    state = StepState(step=1160, skipped_pairs=0)
    gone = epoch_record(2, [0.8001, 0.8], 116000, 100.0, state,
                        {"dev_pearson": 2.6, "dev_cos_mean": 0.9998, "dev_cos_sd": 0.0003})
    fine = epoch_record(1, [0.3], 116000, 100.0, state,
                        {"dev_pearson": 70.0, "dev_cos_mean": 0.6, "dev_cos_sd": 0.15})
    assert gone["collapsed"] and not fine["collapsed"]
    assert gone["pairs_per_s"] == 1160.0 and gone["loss"] == pytest.approx(0.80005)
    text = collapse_warning(gone, cfg)
    assert "collapsed" in text and "0.9998 ± 0.0003" in text and "value is 0.8" in text
    assert "negatives: max, mega-batch 40" in text
    assert collapse_warning(fine, cfg) is None
    summary = {"model": str(tmp_path), "pairs": 116000, "rejected": 0, "workers": 1,
               "best_epoch": 1, "dev": "stsb-dev", "history": [fine, gone]}
    write_report(tmp_path, summary)
    md = (tmp_path / "training.md").read_text()
    assert "**The encoder collapsed** in epoch(s) 2" in md
    assert "| 0.0003 * |" in md and "| 0.1500 |" in md


def test_no_dev_set_no_spread_and_nan_never_wins():
    assert all(math.isnan(v) for v in score_dev(None, None).values())  # type: ignore[arg-type]
    assert not collapsed({"dev_cos_sd": math.nan})
    assert improves(50.0, None) and improves(50.0, math.nan) and improves(51.0, 50.0)
    assert not improves(math.nan, 50.0) and not improves(None, 50.0)
    assert not improves(49.0, 50.0)
