"""Where a training run's time goes: :class:`Clock` laps (``training.json``'s ``timings``)
and :func:`background`, which prepares the pairs while the driver starts Ray."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class Clock:
    """Seconds between laps, by name: ``clock.lap("prepare")`` records the seconds since the
    previous lap (or since the clock was made) under ``prepare``."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> float:
        """Record and return the seconds since the last lap."""
        now = time.perf_counter()
        self.laps[name] = round(now - self._last, 3)
        self._last = now
        return self.laps[name]


def background(fn: Callable[..., T], *args: object) -> Future[T]:
    """``fn(*args)`` in a thread of its own; its result (or exception) from ``.result()``."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paralib-train")
    try:
        return pool.submit(fn, *args)
    finally:
        pool.shutdown(wait=False)
