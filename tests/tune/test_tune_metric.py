"""The metric a sweep chooses on is development data: the dev set's own score by default
(``dev_pearson`` on STS Benchmark dev, ``dev_score`` on XNLI dev), a Pearson metric refused on
XNLI dev, a test set as ``train.dev`` refused whatever the metric; the multilingual sweep
chooses on XNLI dev."""

from __future__ import annotations

from pathlib import Path

import pytest

from paralib.config import Config, load_config
from paralib.paths import PROJECT_ROOT
from paralib.train.config import dev_languages
from paralib.train.dev import load_dev
from paralib.tune.metric import TEST_DEV_SETS, check_metric, tune_metric
from paralib.tune.space import SpaceError, read_space
from paralib.tune.validate import validate_space

MULTI_SPACES = ("recipe-2019.yaml", "recipe-2019-training.yaml")


def _space(tmp_path: Path, head: str = "") -> Path:
    path = tmp_path / "space.yaml"
    path.write_text(head + "parameters:\n  length_range: [[0, 10], [10, 100]]\n")
    return path


def _base(scored: Path, dev: str) -> Config:
    return Config.model_validate({"select": {"input": str(scored)}, "train": {"dev": dev}})


def test_metric_left_out_is_the_dev_sets_own(tmp_path, scored_captions):
    assert tune_metric(None, "stsb-dev") == "dev_pearson"
    assert tune_metric(None, "xnli-dev:ar,tr") == "dev_score"
    assert tune_metric("loss", "xnli-dev") == "loss"
    space = read_space(_space(tmp_path))
    validate_space(space, _base(scored_captions, "xnli-dev"), "grid")
    assert (space.spec.metric, space.mode) == ("dev_score", "max")
    space = read_space(_space(tmp_path))
    validate_space(space, _base(scored_captions, "stsb-dev"), "grid")
    assert space.spec.metric == "dev_pearson"


def test_pearson_metric_on_xnli_dev_is_refused(tmp_path, scored_captions):
    space = read_space(_space(tmp_path, "metric: dev_pearson\n"))
    with pytest.raises(SpaceError, match="use metric: dev_score"):
        validate_space(space, _base(scored_captions, "xnli-dev"), "grid")


@pytest.mark.parametrize("metric", ["", "metric: dev_score\n", "metric: loss\n"])
def test_a_test_set_as_dev_is_refused_for_every_metric(tmp_path, scored_captions, metric):
    space = read_space(_space(tmp_path, metric))
    with pytest.raises(SpaceError, match="sts17-en-en.*test set.*development data only"):
        validate_space(space, _base(scored_captions, "sts17-en-en"), "grid")


def test_a_parameter_cannot_move_dev_onto_a_test_set(tmp_path, scored_captions):
    path = tmp_path / "space.yaml"
    path.write_text("parameters:\n  train.dev: [stsb-dev, sts17-en-en]\n")
    with pytest.raises(SpaceError, match="sts17-en-en"):
        validate_space(read_space(path), _base(scored_captions, "stsb-dev"), "grid")


def test_every_dev_set_but_the_test_ones_is_allowed():
    for dev in ("stsb-dev", "xnli-dev", "xnli-dev:ar"):
        check_metric(tune_metric(None, dev), dev, "space.yaml")
    assert set(TEST_DEV_SETS) == {"sts17-en-en"}


@pytest.mark.parametrize("space", MULTI_SPACES)
def test_the_multilingual_sweep_chooses_on_xnli_dev(space):
    """The sweeps of configs/paralib-multi-sweep.yaml report XNLI dev retrieval, read from the
    XNLI dev files: no test split (XNLI test, STS 2017, Tatoeba, BUCC) is their metric."""
    cfg = load_config(PROJECT_ROOT / "configs" / "paralib-multi-sweep.yaml")
    spec = read_space(PROJECT_ROOT / "tune" / "spaces" / space).spec
    metric = tune_metric(spec.metric, cfg.train.dev)
    check_metric(metric, cfg.train.dev, space)
    assert metric == "dev_score" and dev_languages(cfg.train.dev)
    files = [Path(f).name for f in load_dev(cfg.train.dev).files]
    assert files and all(f.startswith("dev-") for f in files)
