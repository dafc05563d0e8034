"""Where a training run's time goes: :class:`Clock` laps (``training.json``'s ``timings``)
and :func:`background`, which prepares the pairs while the driver starts Ray."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
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
    """``fn(*args)`` in a daemon thread of its own; its result (or exception) from
    ``.result()``. A caller that fails before it asks for the result (a run that cannot fit
    the cluster) exits without waiting for ``fn`` to finish work nobody will use."""
    future: Future[T] = Future()

    def work() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(fn(*args))
        except BaseException as exc:  # handed to whoever asks for the result
            future.set_exception(exc)

    threading.Thread(target=work, name="paralib-train-prepare", daemon=True).start()
    return future
