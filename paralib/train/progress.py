"""The training stage's one progress bar on the driver, fed by the Ray Train workers.

``trainer.fit()`` blocks the driver while the workers train, and their output reaches the
terminal only with ``--verbose``. So every worker adds the pairs of each mini-batch to a
small Ray actor (:class:`Tally`, fire-and-forget calls, at most one per second), rank 0 adds
each epoch's dev score and any warning, and a driver thread draws one tqdm bar from it:
pairs done, pairs/s and ETA over all epochs, with the last epoch's dev score.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from tqdm import tqdm


class Tally:
    """Counts reported by the training workers (a Ray actor: ``ray.remote(Tally)``)."""

    def __init__(self) -> None:
        self.pairs = 0
        self.epoch: dict[str, Any] = {}
        self.warnings: list[str] = []

    def add(self, pairs: int) -> None:
        """Add ``pairs`` trained pairs."""
        self.pairs += pairs

    def end_epoch(self, metrics: dict[str, Any], warning: str | None) -> None:
        """Rank 0's record of a finished epoch, and its collapse warning if any."""
        self.epoch = metrics
        if warning:
            self.warnings.append(warning)

    def read(self) -> tuple[int, dict[str, Any], list[str]]:
        """Pairs so far, the last epoch's metrics, the warnings."""
        return self.pairs, self.epoch, self.warnings


def counted(batches: Iterator[pa.Table], tally: Any | None, every_s: float = 1.0
            ) -> Iterator[pa.Table]:
    """``batches`` unchanged, adding their rows to ``tally`` (an actor handle) at most once
    per ``every_s`` seconds and once at the end."""
    pending, last = 0, time.monotonic()
    for batch in batches:
        yield batch
        pending += batch.num_rows
        if tally is not None and time.monotonic() - last >= every_s:
            tally.add.remote(pending)
            pending, last = 0, time.monotonic()
    if tally is not None and pending:
        tally.add.remote(pending)


class TrainBar:
    """``with TrainBar(total, epochs, enabled) as tally:`` run ``trainer.fit()`` inside;
    ``tally`` is the actor handle for the workers (``None`` when the bar is off)."""

    def __init__(self, total: int, epochs: int, enabled: bool, desc: str = "train"):
        self.total, self.epochs, self.enabled, self.desc = total, epochs, enabled, desc
        self.tally = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.warnings: list[str] = []

    def __enter__(self) -> Any | None:
        if not self.enabled:
            return None
        import ray

        self.tally = ray.remote(num_cpus=0)(Tally).remote()
        self._thread = threading.Thread(target=self._draw, daemon=True)
        self._thread.start()
        return self.tally

    def _draw(self) -> None:
        import ray

        bar = tqdm(total=self.total, unit="pair", unit_scale=True, desc=self.desc,
                   dynamic_ncols=True)
        done = False
        while not done:
            done = self._stop.wait(0.5)
            try:
                pairs, epoch, self.warnings = ray.get(self.tally.read.remote(), timeout=10)
            except Exception:  # the actor is gone or slow: keep the last numbers
                continue
            bar.update(max(0, min(pairs, self.total) - bar.n))
            if epoch:
                bar.set_postfix(epoch=f"{epoch.get('epoch')}/{self.epochs}",
                                dev=epoch.get("dev_pearson"), refresh=False)
        bar.close()

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=30)
        if self.tally is not None:
            import ray

            ray.kill(self.tally)
