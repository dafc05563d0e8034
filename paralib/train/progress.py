"""The training stage's one progress bar on the driver, fed by the Ray Train workers, and
its stall watch.

``trainer.fit()`` blocks the driver while the workers train, and their output reaches the
terminal only with ``--verbose``. So every worker adds the pairs of each mini-batch to a
small Ray actor (:class:`Tally`, fire-and-forget calls, at most one per second), rank 0 adds
each epoch's dev score and any warning, and a driver thread draws one tqdm bar from it:
pairs done, pairs/s and ETA over all epochs, with the last epoch's dev score.

The same counts tell the driver whether training moves (``ray.stall_timeout_s``,
:func:`paralib.runtime.call_watched`): the Ray Train controller registers itself with the
tally (:class:`paralib.train.controller.ControllerHandle`), so that a run without progress
can be aborted the way Ray's own Ctrl-C handler aborts it.
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
        self.handle: list = []  # the Ray Train controller, once it runs
        self.stopped = False  # the driver gave up on the run

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

    def set_controller(self, handles: list) -> bool:
        """Keep the Ray Train controller's actor handle (in a list: passed by reference);
        whether the run is still wanted."""
        self.handle = handles
        return not self.stopped

    def stop(self) -> list:
        """The driver gives up on the run: ``[controller handle]`` to abort, or ``[]`` when
        the controller has not started (it aborts itself when it does)."""
        self.stopped = True
        return self.handle


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
    ``tally`` is the actor handle for the workers (``None`` when neither the bar nor the
    stall watch, ``watched``, wants it)."""

    def __init__(self, total: int, epochs: int, enabled: bool, desc: str = "train",
                 watched: bool = False):
        self.total, self.epochs, self.enabled, self.desc = total, epochs, enabled, desc
        self.watched = watched
        self.tally = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.warnings: list[str] = []
        self.last: tuple[int, Any] = (0, None)
        self.aborted = threading.Event()  # set once the stall watch gave up

    def __enter__(self) -> Any | None:
        if not (self.enabled or self.watched):
            return None
        import ray

        self.tally = ray.remote(num_cpus=0)(Tally).remote()
        if self.enabled:
            self._thread = threading.Thread(target=self._draw, daemon=True)
            self._thread.start()
        return self.tally

    def progress(self) -> tuple[int, Any]:
        """``(pairs trained, last finished epoch)`` from the tally (a change is progress)."""
        import ray

        pairs, epoch, _ = ray.get(self.tally.read.remote(), timeout=10)
        self.last = (pairs, epoch.get("epoch"))
        return self.last

    def state(self) -> str:
        """How far training got, for a stall message."""
        pairs, epoch = self.last
        return (f"{pairs:,} of {self.total:,} pairs trained, epoch {epoch or 0} of "
                f"{self.epochs} finished")

    def abort(self) -> None:
        """Abort the Ray Train run (its controller stops its workers and exits), as Ray's
        own Ctrl-C handler does; a controller that has not started yet aborts itself when
        it starts (:class:`paralib.train.controller.ControllerHandle`)."""
        import ray

        self.aborted.set()
        try:
            handles = ray.get(self.tally.stop.remote(), timeout=10)
            if handles:
                # a controller waiting for its workers' resources takes the abort once the
                # wait ends; the driver does not wait for that (it is queued, and the
                # controller stops its workers and exits when it gets to it)
                ray.get(handles[0].abort.remote(), timeout=10)
        except (ray.exceptions.RayError, TimeoutError):  # it exits while answering
            pass

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
                                dev=epoch.get("dev_score", epoch.get("dev_pearson")),
                                refresh=False)
        bar.close()

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=30)
        if self.tally is not None:
            import ray

            ray.kill(self.tally)
