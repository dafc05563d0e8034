"""Removing the worker placement groups of trials that ASHA stopped.

When ASHA stops a trial, Tune ends the trial's actor; the Ray Train V2 controller it owns dies
with it, before it can remove its workers' placement group. Train V2 leaves that to a
detached ``PlacementGroupCleaner``, which asks the state API (the dashboard) whether the
controller is alive. Without the dashboard, or with several Ray instances on one machine,
that call fails and the group stays reserved: on 2 CPUs the next trial then waits forever.

:class:`PlacementGroupReaper` is a Tune callback on the driver that removes placement
groups shaped like a trial's worker bundles whose resources have been entirely unused for
``grace_s`` seconds (a live worker group holds its bundles from start to end).
"""

from __future__ import annotations

import logging
import time

from ray.tune import Callback

log = logging.getLogger(__name__)


def _pg_ids_unused(shape: list[dict[str, float]]) -> list[str]:
    """Ids of created placement groups with bundles ``shape`` and no resource in use."""
    import ray

    total, free = ray.cluster_resources(), ray.available_resources()
    want = sorted(tuple(sorted(b.items())) for b in shape)
    out = []
    for pg_id, info in ray.util.placement_group_table().items():
        if info.get("state") != "CREATED":
            continue
        bundles = [{k: float(v) for k, v in b.items()} for b in info["bundles"].values()]
        if sorted(tuple(sorted(b.items())) for b in bundles) != want:
            continue
        keys = [f"{res}_group_{pg_id}" for res in {r for b in bundles for r in b}]
        if all(k in total and abs(free.get(k, 0.0) - total[k]) < 1e-9 for k in keys):
            out.append(pg_id)
    return out


def _remove(pg_id: str) -> None:
    from ray._raylet import PlacementGroupID
    from ray.util.placement_group import PlacementGroup, remove_placement_group

    remove_placement_group(PlacementGroup(PlacementGroupID(bytes.fromhex(pg_id))))


class PlacementGroupReaper(Callback):
    """Remove idle placement groups shaped like the trials' worker bundles (see module)."""

    def __init__(self, worker_bundles: list[dict[str, float]], grace_s: float = 20.0,
                 every_s: float = 2.0):
        self.shape = [{k: float(v) for k, v in b.items()} for b in worker_bundles]
        self.grace_s, self.every_s = grace_s, every_s
        self._idle_since: dict[str, float] = {}
        self._last = 0.0
        self.removed: list[str] = []

    def sweep(self, now: float | None = None) -> list[str]:
        """One pass: note idle groups, remove those idle for ``grace_s``; returns removed."""
        now = time.monotonic() if now is None else now
        idle = set(_pg_ids_unused(self.shape))
        self._idle_since = {k: v for k, v in self._idle_since.items() if k in idle}
        gone = []
        for pg_id in idle:
            since = self._idle_since.setdefault(pg_id, now)
            if now - since >= self.grace_s:
                log.info("removing placement group %s left by a stopped trial", pg_id)
                _remove(pg_id)
                gone.append(pg_id)
                self._idle_since.pop(pg_id)
        self.removed += gone
        return gone

    def on_step_end(self, iteration: int, trials: list, **info) -> None:
        now = time.monotonic()
        if now - self._last >= self.every_s:
            self._last = now
            self.sweep(now)
