"""The quiet Tune progress bar: finished trials counted, the best result kept by mode."""

from __future__ import annotations

import math

from paralib.tune.progress import TrialBar


def test_trial_bar_counts_trials_and_keeps_the_best():
    bar = TrialBar(total=3, metric="dev_pearson", mode="max")
    bar.on_trial_result(1, [], None, {"dev_pearson": 70.0})
    bar.on_trial_result(1, [], None, {"dev_pearson": math.nan})
    bar.on_trial_result(2, [], None, {"dev_pearson": 72.5})
    bar.on_trial_result(2, [], None, {"dev_pearson": 71.0})
    bar.on_trial_complete(3, [], None)
    bar.on_trial_error(3, [], None)
    assert bar.best == 72.5 and bar.failed == 1 and bar.bar.n == 2
    bar.on_experiment_end([])


def test_trial_bar_minimises_when_asked():
    bar = TrialBar(total=1, metric="loss", mode="min")
    for value in (0.5, 0.3, 0.4):
        bar.on_trial_result(1, [], None, {"loss": value})
    assert bar.best == 0.3
    bar.on_experiment_end([])
