"""The Ray Train controller's side of a run's progress (the one module of the training
engine that needs Ray at import, so that ``engine: local`` trains without Ray installed)."""

from __future__ import annotations

from typing import Any

from ray.train.v2._internal.execution.callback import ControllerCallback


class ControllerHandle(ControllerCallback):
    """A Ray Train controller callback (it runs in the controller) that hands the
    controller's own actor handle to ``tally``, so that the driver can abort the run; a
    controller that starts after the driver gave up (or whose tally is gone) aborts
    itself."""

    def __init__(self, tally: Any):
        self.tally = tally

    def after_controller_start(self, train_run_context: Any) -> None:
        import ray

        me = ray.get_runtime_context().current_actor
        try:
            wanted = ray.get(self.tally.set_controller.remote([me]), timeout=60)
        except ray.exceptions.RayError:  # the tally is gone: so is the driver's interest
            wanted = False
        if not wanted:
            me.abort.remote()  # runs once this start hook returns
