"""One invocation per experiment at a time.

A second ``paralib experiment NAME`` would train the same runs into the same folders and
write the same section and plot, racing on their files; it stops at once with a clear message
instead. Other experiments run side by side. The lock is the operating system's (``flock``
through :mod:`filelock`, never its soft fallback), so it goes with its process, a killed one
included, and never needs cleaning up.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from paralib.experiments.spec import ExperimentError

LOCK_NAME = ".run.lock"


class ExperimentBusy(ExperimentError):
    """The experiment's folder is held by another invocation."""

    hint = ("one invocation per experiment and output folder at a time: wait for the other "
            "to end, or give this one its own --out (finished runs are shared through the "
            "records)")


@contextlib.contextmanager
def run_lock(folder: Path, what: str) -> Iterator[None]:
    """Hold ``folder``'s run lock while the block runs; ``what`` names it in the error."""
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(folder / LOCK_NAME, timeout=0, fallback_to_soft=False)
    try:
        lock.acquire()
    except Timeout:
        raise ExperimentBusy(f"{what} is already running in another process (lock "
                              f"{folder / LOCK_NAME}); wait for it to end") from None
    try:
        yield
    finally:
        lock.release()
