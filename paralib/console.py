"""What a run shows on the terminal, and where the rest goes (quiet by default).

The command line calls :func:`configure` once: without ``--verbose`` the terminal gets
paralib's own progress bars, stage summaries and warnings, while every log record (paralib's
INFO lines and all of Ray's driver-side logging) goes to ``paralib.log`` in the run's log
folder, and Ray's worker processes do not stream their output to the driver
(``ray.init(log_to_driver=False)``; their logs stay in Ray's session folder, copied next to
``paralib.log`` when the run ends). ``--verbose`` brings everything back to the terminal.

Library use (``import paralib``, the tests) is unaffected until :func:`configure` is called:
the default :class:`Console` hides nothing.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from paralib.redact import RedactingFilter, RedactingFormatter

LOG_FILE = "paralib.log"
NATIVE_LOG = "stderr.log"  # what native code (Ray's C++ core worker) writes to stderr
RAY_LOGS = "ray"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


@dataclass
class Console:
    """One run's terminal settings: ``verbose`` shows everything; otherwise logs go to
    ``log_dir / paralib.log`` (``None``: no file)."""

    verbose: bool = True
    log_dir: Path | None = None
    handler: logging.Handler | None = None  # the log file's
    term: logging.Handler | None = None  # the terminal's
    native: tuple[int, object] | None = None  # (saved fd 2, Python's old sys.stderr)

    @property
    def log_file(self) -> Path | None:
        """The run's log file, when there is one."""
        return self.log_dir / LOG_FILE if self.log_dir else None

    @property
    def log_to_driver(self) -> bool:
        """Whether Ray workers' output is streamed to this process's terminal."""
        return self.verbose


_CONSOLE = [Console()]  # the one process-wide setting, as logging's own configuration is


def current() -> Console:
    """The settings :func:`configure` made (by default: show everything, no log file)."""
    return _CONSOLE[0]


class _NotRay(logging.Filter):
    """Drops Ray's records from the terminal handler (they are in the log file)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name == "ray" or record.name.startswith("ray."))


def run_log_dir(root: str | Path, command: str) -> Path:
    """A new folder for one run's logs: ``root/<command>-<YYYYmmdd-HHMMSS>`` (``-2``, ``-3``
    ... when two runs start within a second)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(root) / f"{command}-{stamp}"
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    path.mkdir(parents=True)
    return path


def configure(verbose: bool, log_dir: Path | None) -> Console:
    """Set up logging for one command-line run and remember the settings (see module doc);
    :func:`reset` undoes it."""
    reset()
    native = _native_stderr_to(log_dir / NATIVE_LOG) if log_dir and not verbose else None
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    redact = RedactingFilter()
    term = logging.StreamHandler(sys.stderr)
    term.setFormatter(RedactingFormatter("%(levelname)s %(name)s: %(message)s"))
    term.addFilter(redact)
    if not verbose:
        term.setLevel(logging.WARNING)
        term.addFilter(_NotRay())
    root.addHandler(term)
    handler = None
    if log_dir is not None:
        handler = logging.FileHandler(log_dir / LOG_FILE, encoding="utf-8")
        handler.setFormatter(RedactingFormatter(FORMAT))
        handler.addFilter(redact)
        root.addHandler(handler)
    _CONSOLE[0] = Console(verbose=verbose, log_dir=log_dir, handler=handler, term=term,
                          native=native)
    if not verbose:
        quiet_ray()
    return _CONSOLE[0]


def _native_stderr_to(path: Path) -> tuple[int, object] | None:
    """Point file descriptor 2 at ``path`` and ``sys.stderr`` at a copy of the old one: what
    native code writes to stderr (Ray's C++ core worker in this process logs its errors
    there, e.g. ``E ... core_worker.cc``) goes to the file, while Python's writes (progress
    bars, warnings, paralib's messages) still reach the terminal. Skipped (``None``) when
    ``sys.stderr`` is not file descriptor 2 (under pytest's capture, say)."""
    try:
        if sys.stderr.fileno() != 2:
            return None
    except (AttributeError, OSError, ValueError):
        return None
    sys.stderr.flush()
    saved = os.dup(2)
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(target, 2)
    os.close(target)
    old = sys.stderr
    sys.stderr = os.fdopen(os.dup(saved), "w", buffering=1, encoding=old.encoding,
                           errors="backslashreplace")
    return saved, old


def _restore_stderr(native: tuple[int, object]) -> None:
    saved, old = native
    sys.stderr.flush()
    ours, sys.stderr = sys.stderr, old
    ours.close()
    os.dup2(saved, 2)
    os.close(saved)


def reset() -> None:
    """Remove the handlers :func:`configure` added, give stderr back and go back to the
    default settings (Ray's terminal handlers, once moved, stay in the log file's place)."""
    old = current()
    if old.native is not None:
        _restore_stderr(old.native)
    for handler in (old.term, old.handler):
        if handler is None:
            continue
        for logger in [logging.getLogger()] + [
                lg for lg in logging.root.manager.loggerDict.values()
                if isinstance(lg, logging.Logger)]:
            logger.removeHandler(handler)
        handler.close()
    _CONSOLE[0] = Console()


def default_log_root() -> Path:
    """Where run log folders are made: ``$PARALIB_LOG_DIR``, else ``output/logs``."""
    return Path(os.environ.get("PARALIB_LOG_DIR") or "output/logs")


def quiet_ray() -> None:
    """Without ``--verbose``: remove Ray's own terminal log handlers and send the records of
    Ray's unpropagated loggers (``ray``, ``ray.data``) to the run's log file. Called when the
    run starts and around ``ray.init``, after which Ray adds no new ones."""
    console = current()
    if console.verbose:
        return
    try:
        import ray  # noqa: F401  (configures the "ray" logger)
        import ray.data  # noqa: F401  (configures "ray.data")
    except ImportError:  # a machine without Ray runs stages with ``ray.in_process``
        return

    for name, logger in list(logging.root.manager.loggerDict.items()):
        if name.split(".")[0] != "ray" or not isinstance(logger, logging.Logger):
            continue
        for h in list(logger.handlers):
            if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler):
                logger.removeHandler(h)
        # records of a logger that does not propagate never reach the root's file handler
        if (not logger.propagate and console.handler is not None
                and console.handler not in logger.handlers):
            logger.addHandler(console.handler)


def keep_ray_logs() -> Path | None:
    """Copy this process's Ray session logs (workers, raylet, Ray Data) next to
    ``paralib.log``; the folder, or ``None`` when there is no log folder or no local Ray
    session (a remote cluster keeps its logs on its nodes)."""
    console = current()
    if console.log_dir is None:
        return None
    try:
        import ray

        if not ray.is_initialized():
            return None
        from ray._private.worker import global_worker

        source = Path(global_worker.node.get_logs_dir_path())
    except Exception:  # a private API: no copy rather than a failed run
        return None
    if not source.is_dir():
        return None
    dest = console.log_dir / RAY_LOGS
    shutil.copytree(source, dest, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("*.sock", "events", "old"))
    return dest


def data_progress_bars(progress: bool) -> bool:
    """Whether Ray Data shows its own progress bars: only with ``--verbose`` (a quiet run
    shows paralib's one bar per stage instead), and never when ``progress`` is off."""
    return progress and current().verbose


def log_to_file(message: str, exc: BaseException) -> None:
    """Write ``message`` and the traceback of ``exc`` to the run's log file only."""
    handler = current().handler
    if handler is None:
        return
    logger = logging.getLogger("paralib")
    handler.handle(logger.makeRecord(logger.name, logging.ERROR, __file__, 0, message, (),
                                     (type(exc), exc, exc.__traceback__)))
