"""A trial's parameter values applied to the base configuration: shortcuts give the right
selection bounds and training fields; the trial reads its own selection."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from paralib.config import Config
from paralib.tune.params import SHORTCUTS, UnknownParameter, apply_parameters, check_parameter
from paralib.tune.trial import place


@pytest.fixture()
def base() -> Config:
    return Config.model_validate({
        "select": {"output": "output/select",
                   "bounds": [{"column": "len_trans", "lower": 3, "upper": 30},
                              {"column": "identical", "upper": 0}]},
        "train": {"sources": [{"kind": "pairs", "path": "output/select"}, {"kind": "sts"}],
                  "model": {"parts": [{"name": "sp", "dim": 16}, {"name": "trigram",
                                                                    "dim": 16}]}}})


def _bounds(cfg: Config) -> dict[str, tuple]:
    return {b.column: (b.lower, b.upper) for b in cfg.select.bounds}


def test_bound_shortcuts(base):
    cfg = apply_parameters(base, {"length_range": [10, 20], "cost_max": 0.5,
                                  "ppl_max": 75, "p_ref_min": 0.3})
    assert _bounds(cfg) == {"len_trans": (10, 20), "identical": (None, 0), "cost": (None, 0.5),
                            "lm_ppl": (None, 75), "p_ref": (0.3, None)}
    # the other bounds are untouched and the base is not modified
    assert _bounds(base) == {"len_trans": (3, 30), "identical": (None, 0)}


def test_min_and_max_combine_and_infinity_opens_a_side(base):
    cfg = apply_parameters(base, {"overlap_min": 0.1, "overlap_max": 0.7,
                                  "bleu": [0.2, 0.9], "overlap3": [0, 1.0],
                                  "length_range_max": float("inf"), "ppl_max": float("inf")})
    b = _bounds(cfg)
    assert b["overlap1"] == (0.1, 0.7) and b["bleu"] == (0.2, 0.9)
    assert b["overlap3"] == (0.0, 1.0)
    assert b["len_trans"] == (3, None)  # lower kept from the base, upper opened
    assert "lm_ppl" not in b  # ppl_max: ∞ is no bound at all


def test_training_shortcuts(base):
    cfg = apply_parameters(base, {"margin": 0.6, "contrastive_margin": 0.5, "megabatch": 40,
                                  "anneal_every": 150, "scramble": 0.3, "dropout": 0.2,
                                  "word_dropout": 0.1, "lr": 3e-4, "epochs": 7,
                                  "batch_size": 50, "negatives": "mix"})
    t = cfg.train
    assert (t.margin, t.contrastive_margin, t.lr, t.epochs, t.batch_size, t.negatives) == \
        (0.6, 0.5, 3e-4, 7, 50, "mix")
    assert (t.megabatch.size, t.megabatch.anneal_every) == (40, 150)
    assert t.regularisation.scramble_rate == 0.3 and t.regularisation.word_dropout == 0.1
    assert [p.dropout for p in t.model.parts] == [0.2, 0.2]


def test_selection_shortcuts_and_dotted_keys(base):
    with pytest.raises(ValueError, match="noise needs select.noise"):
        apply_parameters(base, {"noise": 0.8})
    noisy = Config.model_validate({**base.model_dump(), "select": {
        **base.select.model_dump(), "noise": {"column": "para_score", "clean_fraction": 1.0}}})
    cfg = apply_parameters(noisy, {"noise": 0.7, "size": 5000})
    assert cfg.select.noise.clean_fraction == 0.7 and cfg.select.size == 5000
    assert cfg.select.noise.column == "para_score"
    cfg = apply_parameters(base, {"train.model.parts.1.dim": 8, "select.hypotheses": "all",
                                  "select.folds.column": "para_score",
                                  "select.folds.keep": [9, 10]})
    assert cfg.train.model.parts[1].dim == 8 and cfg.train.model.parts[0].dim == 16
    assert cfg.select.hypotheses == "all" and cfg.select.folds.keep == [9, 10]
    with pytest.raises(ValueError, match="parts is a list of 2; expected an index 0-1, got '5'"):
        apply_parameters(base, {"train.model.parts.5.dim": 8})
    with pytest.raises(ValidationError):
        apply_parameters(base, {"length_range": [30, 10]})
    with pytest.raises(ValueError, match=r"takes \[lower, upper\]"):
        apply_parameters(base, {"length_range": 10})


def test_parameter_names():
    for name in ("length_range", "cost_max", "ppl_max", "p_ref_min", "overlap", "bleu",
                 "noise", "size", "margin", "contrastive_margin", "megabatch", "anneal_every",
                 "scramble", "dropout", "lr", "epochs", "train.lr", "select.noise.column"):
        check_parameter(name)
    for bad in ("length", "train.learning_rate", "select.bounds.x", "train.lr.x"):
        with pytest.raises(UnknownParameter):
            check_parameter(bad)
    assert all(s.help for s in SHORTCUTS.values())


def test_trial_reads_its_own_selection(base, tmp_path):
    root = str(tmp_path / "trial_abc")
    cfg = place(base, root, str(tmp_path / "m"))
    assert cfg.select.output == f"{root}/select"
    assert [(s.kind, s.path) for s in cfg.train.sources] == [("pairs", f"{root}/select"),
                                                             ("sts", None)]
    assert (cfg.train.output, cfg.train.storage_path, cfg.train.name) == \
        (str(tmp_path / "m"), root, "train")
    # a base without a pairs source trains on the selection plus its own sources
    other = Config.model_validate({"train": {"sources": [{"kind": "captions"}]}})
    assert [s.kind for s in place(other, root, "m").train.sources] == ["pairs", "captions"]
