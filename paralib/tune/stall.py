"""A Tune run that makes no progress fails instead of waiting forever (``ray.stall_timeout_s``).

Ray Tune waits without end for a trial whose resources no node has free (another job holds
them, a placement group left behind, an autoscaler that cannot add the node): it logs a
warning and keeps waiting. :class:`StallWatch` is a Tune callback on the driver that counts
every trial event (started, reported, finished, failed) as progress; when none has come for
``timeout_s`` seconds while no trial runs, it raises :class:`paralib.runtime.StallError`
from Tune's loop, which stops the trials and ends ``Tuner.fit()`` with it. A running trial
is watched by its own training (:func:`paralib.train.run.train`: pairs trained), so a long
epoch is not a stall.
"""

from __future__ import annotations

import time
from typing import Any

from ray.tune import Callback

from paralib.runtime import stall_error


class StallWatch(Callback):
    """Raise :class:`paralib.runtime.StallError` naming ``what`` (``tune NAME``) when no
    trial event has come for ``timeout_s`` seconds and no trial is running."""

    def __init__(self, timeout_s: float, what: str, total: int):
        self.timeout_s, self.what, self.total = timeout_s, what, total
        self.last = time.monotonic()
        self.finished = 0

    def on_trial_start(self, iteration: int, trials: list, trial: Any, **info: Any) -> None:
        self.last = time.monotonic()

    def on_trial_result(self, iteration: int, trials: list, trial: Any, result: dict,
                        **info: Any) -> None:
        self.last = time.monotonic()

    def on_trial_complete(self, iteration: int, trials: list, trial: Any, **info: Any) -> None:
        self.finished += 1
        self.last = time.monotonic()

    def on_trial_error(self, iteration: int, trials: list, trial: Any, **info: Any) -> None:
        self.finished += 1
        self.last = time.monotonic()

    def on_step_end(self, iteration: int, trials: list, **info: Any) -> None:
        now = time.monotonic()
        states = [t.status for t in trials]
        if "RUNNING" in states:
            self.last = now  # a running trial's training watches itself
            return
        if now - self.last >= self.timeout_s:
            raise stall_error(
                self.what, self.timeout_s,
                f"{self.finished} of {self.total} trials finished, "
                f"{states.count('PENDING')} waiting to start, none running",
                why="its trials wait for resources that no node has free (see `ray status`: "
                "another job, a placement group left behind, or nodes an autoscaler cannot "
                "add)")
