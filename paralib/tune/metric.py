"""The number a sweep chooses on, and the rule that it is development data (2019 §3: models are
compared on development sets, never on a test set).

A space's ``metric`` is ``dev_score`` (the trainer's selection number on any ``train.dev``),
``dev_pearson`` (the same number, on an STS dev set only) or ``loss``; left out, it is the
dev set's own: ``dev_pearson`` on an STS set (as every sweep before ``dev_score``), else
``dev_score``. Whatever the metric, the trials keep each run's best epoch on ``train.dev``, so
a ``train.dev`` that is a test set is refused for every sweep.
"""

from __future__ import annotations

from paralib.train.config import dev_languages
from paralib.tune.space import SpaceError

# train.dev values that read a test split of ``paralib evaluate`` (allowed for a plain
# training run that reproduces the 2019 paper's choice, never for a sweep)
TEST_DEV_SETS = {"sts17-en-en": "the STS 2017 en-en test set (suite sts17)"}
DEV_METRICS = ("dev_score", "dev_pearson")


def tune_metric(requested: str | None, dev: str) -> str:
    """The metric of a space that asks for ``requested`` (``None``: the dev set's own) on a
    configuration with ``train.dev: dev``."""
    if requested is not None:
        return requested
    return "dev_score" if dev_languages(dev) else "dev_pearson"


def check_metric(metric: str, dev: str, where: str) -> None:
    """Refuse a sweep whose trials would choose on a test set, or report a metric they do
    not: a :class:`SpaceError` naming the space file, the metric and ``train.dev``."""
    if dev.partition(":")[0] in TEST_DEV_SETS:
        raise SpaceError(f"{where}: train.dev {dev!r} is {TEST_DEV_SETS[dev]}: a sweep chooses "
                         "its trials and their epochs on development data only; use stsb-dev "
                         "or xnli-dev (xnli-dev:LANG,... for some languages)")
    if metric in DEV_METRICS and dev == "none":
        raise SpaceError(f"{where}: metric: {metric} needs a dev set, but train.dev is 'none' "
                         "in the configuration")
    if metric == "dev_pearson" and dev_languages(dev):
        raise SpaceError(f"{where}: metric: dev_pearson is the Pearson's r of an STS dev set, "
                         f"but train.dev {dev!r} scores translation retrieval accuracy: use "
                         "metric: dev_score (or leave metric out)")
