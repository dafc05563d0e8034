"""A Tune run's one progress bar (quiet mode): trials finished of all, with the best result
so far, instead of Tune's periodic status tables (which ``--verbose`` keeps)."""

from __future__ import annotations

import math
from typing import Any

from ray.tune import Callback
from tqdm import tqdm


class TrialBar(Callback):
    """Counts finished trials (completed, stopped early by ASHA, or failed) and shows the
    best ``metric`` reported so far (``mode``: ``max`` or ``min``)."""

    def __init__(self, total: int, metric: str, mode: str, desc: str = "tune"):
        self.metric, self.mode = metric, mode
        self.best: float | None = None
        self.failed = 0
        self.bar = tqdm(total=total, unit="trial", desc=desc, dynamic_ncols=True)

    def _better(self, value: float) -> bool:
        if self.best is None:
            return True
        return value > self.best if self.mode == "max" else value < self.best

    def on_trial_result(self, iteration: int, trials: list, trial: Any, result: dict,
                        **info: Any) -> None:
        value = result.get(self.metric)
        if isinstance(value, (int, float)) and not math.isnan(value) and self._better(value):
            self.best = float(value)
            self.bar.set_postfix(best=round(self.best, 2), failed=self.failed, refresh=True)

    def on_trial_complete(self, iteration: int, trials: list, trial: Any, **info: Any) -> None:
        self.bar.update(1)

    def on_trial_error(self, iteration: int, trials: list, trial: Any, **info: Any) -> None:
        self.failed += 1
        self.bar.set_postfix(best=self.best, failed=self.failed, refresh=False)
        self.bar.update(1)

    def on_experiment_end(self, trials: list, **info: Any) -> None:
        self.bar.close()
