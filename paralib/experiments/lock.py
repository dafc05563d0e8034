"""One invocation per experiment and size at a time.

A second ``paralib experiment NAME`` at the same size would train the same runs into the same
folders and race on their files; it stops at once with a clear message instead. The lock is
the operating system's (``flock`` through :mod:`filelock`), so it goes with its process, a
killed one included, and never needs cleaning up.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from paralib.experiments.spec import ExperimentError

LOCK_NAME = ".run.lock"


@contextlib.contextmanager
def run_lock(folder: Path, what: str) -> Iterator[None]:
    """Hold ``folder``'s run lock while the block runs; ``what`` names it in the error."""
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(folder / LOCK_NAME, timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise ExperimentError(f"{what} is already running in another process (lock "
                              f"{folder / LOCK_NAME}); wait for it to end, or give another "
                              "--out") from None
    try:
        yield
    finally:
        lock.release()
