"""Ownership of output folders by stage and run, and one writer per output folder.

A stage output records who made it in ``.paralib-output.json`` (:data:`OWNER`): the stage
(``encode``, ``mine``, ...), the inputs and the options of the run, and the entries the
stage writes there (``data``, ``rejects``, ``_markers``, ``_summary.json``, its own files).
:func:`claim` is what a stage does with its output folder before any work:

- the output must not be an input, lie inside one, or hold one (``--output`` equal to an
  input is refused);
- no parent of the output may be a file (refused before Ray starts, naming that file);
- a folder that another stage made is never written into or cleared, ``overwrite`` or not;
- a folder made from other inputs is refused unless ``overwrite``, which deletes only what
  the marker lists (within ``data/`` and ``rejects/`` only the Parquet parts paralib wrote);
- one writer at a time: an exclusive ``fcntl.flock`` on ``.paralib-lock`` (:data:`LOCK`)
  inside the output, held for the whole run; a second run is refused with a message
  naming the folder and the holder's pid. The kernel drops the lock of a process that
  died, so a stale lock file never blocks. An ``s3://`` output is locked through a file in
  the node-local cache (:func:`paralib.io.fs.cache_root`): one writer per machine.

Folders written before the marker existed are recognised by their stage's traces (shard
markers naming their stage, ``mine.json``) and get the marker on their next run.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import socket
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pyarrow.fs as pafs

from paralib.io import fs as pfs
from paralib.io.config import input_name
from paralib.io.fs import WILDCARDS, S3Options
from paralib.io.shards import MARKERS, SUMMARY, marker_keys, stage_of
from paralib.io.stage import (
    LOCK,
    OWN_ENTRIES,
    OWNER,
    STAGE_FILES,
    StageError,
    check_output,
    delete_entries,
)


class OutputOwnedError(StageError):
    """An output folder that another stage made, or that holds an input of the run."""


class OtherInputsError(StageError):
    """An output folder made from other inputs (``overwrite`` starts it afresh)."""


class OutputBusyError(StageError):
    """An output folder that another running process is writing."""

    hint = ("wait for the other run to finish, or choose another output folder; a lock of a "
            "process that died is released by the system")


@dataclass
class Owner:
    """What ``.paralib-output.json`` holds: who made the folder, from what, and what it
    wrote there (``entries``, the only names ``overwrite`` deletes)."""

    stage: str
    inputs: list[str] = field(default_factory=list)
    options: dict = field(default_factory=dict)
    entries: list[str] = field(default_factory=list)
    pid: int = 0
    host: str = ""
    written: str = ""
    legacy: bool = False  # inferred from an earlier layout, not read from the marker

    def dump(self) -> bytes:
        """The marker's JSON."""
        data = asdict(self)
        data.pop("legacy")
        return json.dumps(data, indent=2, default=str).encode()


def _norm(path: str) -> str:
    return path.rstrip("/") if pfs.is_s3(path) else os.path.abspath(path)


def _fixed(path: str) -> str:
    """The part of a path or glob before its first wildcard's folder (the folder a glob
    lists, the path itself otherwise)."""
    wild = WILDCARDS.search(path)
    if wild is None or (not pfs.is_s3(path) and os.path.exists(path)):
        return _norm(path)
    head = path[: wild.start()]
    if "/" not in head:  # a glob of the current folder (*.tsv)
        return _norm(".")
    return _norm(head.rsplit("/", 1)[0] or "/")


def _inside(child: str, parent: str) -> bool:
    return child == parent or child.startswith(parent.rstrip("/") + "/")


def check_overlap(out: str, inputs: dict[str, str], key: str = "output") -> None:
    """Refuse an output that is one of ``inputs`` (``{config key: path or glob}``), lies
    inside an input folder, or holds an input: writing (or ``overwrite``) would destroy it."""
    o = _norm(out)
    for name, inp in inputs.items():
        if not inp:
            continue
        i = _fixed(inp)
        is_glob = WILDCARDS.search(inp) is not None and i != _norm(inp)
        if i == o or _inside(i, o) or (not is_glob and _inside(o, i)):
            raise OutputOwnedError(
                f"{key} {out} is also an input ({name} {inp}): a stage never writes into "
                "its own input; choose another output folder")


def bitext_inputs(inputs: list, key: str = "bitext.inputs") -> dict[str, str]:
    """``{config key: path or glob}`` of bitext inputs (:class:`~paralib.io.config.InputConfig`:
    their ``src``, ``en`` or ``path``), the ``inputs`` of :func:`claim`: the paths, not their
    ``limit`` or ``fraction``, so that a smaller rerun into the same output is the same run."""
    return {f"{key}[{input_name(inp.corpus, inp.src_lang, inp.set)}].{name}": path
            for inp in inputs for name in ("src", "en", "path")
            if (path := getattr(inp, name, None))}


def check_parents(out: str, key: str = "output", file: bool = False) -> None:
    """Refuse a local output below a file (``--output notes.txt/out``), naming the file;
    an output folder that is a file too (not a ``file`` output, such as a ``.npy``)."""
    if pfs.is_s3(out):
        return
    path = Path(os.path.abspath(out))
    for parent in path.parents if file else (path, *path.parents):
        if parent.exists():
            if not parent.is_dir():
                what = "is" if parent == path else f"({parent}) is"
                raise OutputOwnedError(
                    f"{key} {out}: {'it' if parent == path else 'a parent folder'} {what} a "
                    "file, not a folder; choose an output folder whose parents are folders")
            return


def read_owner(out: str, s3: S3Options | None = None) -> Owner | None:
    """Who made ``out``: its marker, or for a folder of an earlier layout the stage its
    files name (``legacy``; inputs unknown); ``None`` when nothing says."""
    if pfs.file_type(out, s3) != pafs.FileType.Directory:
        return None
    path = pfs.join(out, OWNER)
    if pfs.exists(path, s3):
        try:
            data = json.loads(pfs.read_bytes(path, s3))
            if not isinstance(data, dict) or not isinstance(data.get("entries", []), list):
                raise ValueError("expected an object with a list of entries")
            return Owner(**{k: v for k, v in data.items() if k in Owner.__dataclass_fields__})
        except (ValueError, TypeError) as exc:
            raise OutputOwnedError(f"{path}: not a paralib output marker ({exc}); expected "
                                   "the JSON a paralib stage writes") from None
    names = pfs.entry_names(out, s3)
    for name, stage in STAGE_FILES.items():
        if name in names:
            return Owner(stage=stage, legacy=True)
    stage = stage_of(out, marker_keys(out, s3), s3) if MARKERS in names else ""
    if not stage and SUMMARY in names:
        try:
            stage = json.loads(pfs.read_bytes(pfs.join(out, SUMMARY), s3)).get("stage", "")
        except (ValueError, AttributeError):
            stage = ""
    return Owner(stage=stage, legacy=True) if stage else None


# -- the lock --------------------------------------------------------------------------


def lock_path(out: str) -> Path:
    """The lock file of ``out``: inside a local output; for ``s3://`` in the node's cache."""
    if pfs.is_s3(out):
        digest = hashlib.sha1(out.rstrip("/").encode()).hexdigest()[:16]
        return pfs.cache_root().parent / "locks" / f"{digest}.lock"
    return Path(out) / LOCK


class OutputLock:
    """An exclusive, non-blocking ``fcntl.flock`` on the lock file of one output folder;
    the file holds the holder's pid, host and stage. Released by :meth:`release`, or by
    the system when the process ends (a stale file never blocks)."""

    def __init__(self, out: str, stage: str = "") -> None:
        self.out, self.stage, self.path = out, stage, lock_path(out)
        self.fd: int | None = None

    def acquire(self) -> OutputLock:
        """Take the lock, or raise :class:`OutputBusyError` naming the folder and holder."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held = os.pread(fd, 4096, 0).decode("utf-8", "replace")
            os.close(fd)
            raise OutputBusyError(f"output {self.out} is being written by another run "
                                  f"({_holder(held)}); one writer per output folder") from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                  "stage": self.stage, "output": self.out,
                                  "since": time.strftime("%Y-%m-%d %H:%M:%S")}).encode(), 0)
        self.fd = fd
        return self

    def release(self) -> None:
        """Let the next writer in."""
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> OutputLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _holder(text: str) -> str:
    try:
        h = json.loads(text)
    except ValueError:
        return "pid unknown"
    stage = f"paralib {h['stage']}, " if h.get("stage") else ""
    return f"{stage}pid {h.get('pid')} on {h.get('host')} since {h.get('since')}"


# -- claiming an output -------------------------------------------------------------------


def _refuse_other_stage(out: str, key: str, stage: str, owner: Owner | None) -> None:
    if owner is not None and owner.stage and owner.stage != stage:
        raise OutputOwnedError(
            f"{key} {out} is an output of `paralib {owner.stage}`; `paralib {stage}` never "
            f"writes into or clears another stage's output (overwrite or not): choose "
            "another output folder")


def _made(out: str, s3: S3Options | None, entries: set[str]) -> bool:
    """True when ``out`` holds one of ``entries`` (a run that stopped before writing any
    leaves only its marker: it owns no inputs)."""
    return bool(pfs.entry_names(out, s3) & entries)


def _refuse_other_inputs(out: str, key: str, inputs: list[str], owner: Owner | None,
                         made: bool) -> None:
    if owner is None or owner.legacy or not made or sorted(owner.inputs) == sorted(inputs):
        return
    raise OtherInputsError(
        f"{key} {out} holds the output of `paralib {owner.stage}` made from other inputs "
        f"({', '.join(owner.inputs) or 'none'}; now {', '.join(inputs)}): use another "
        "output folder, or --overwrite (overwrite: true) to replace it")


@contextlib.contextmanager
def claim(out: str, stage: str, inputs: dict[str, str], options: dict | None = None,
          s3: S3Options | None = None, overwrite: bool = False,
          extra: tuple[str, ...] = (), marks: tuple[str, ...] = (),
          key: str = "output") -> Iterator[Owner]:
    """Hold ``out`` for one run of ``stage`` (see the module's docstring) and yield its
    :class:`Owner`, written to ``.paralib-output.json`` before any work.

    ``inputs`` are ``{config key: path or glob}`` of the run; ``options`` what else made the
    output (recorded, not compared: a stage's shard fingerprints compare options);
    ``extra`` the stage's own entries besides :data:`~paralib.io.stage.OWN_ENTRIES` and
    ``marks`` the files that name it (as for :func:`~paralib.io.stage.check_output`).
    ``overwrite`` deletes the entries the marker lists (:func:`delete_entries`).
    Raises :class:`OutputOwnedError`, :class:`OtherInputsError` or
    :class:`OutputBusyError`; the folder is untouched then.
    """
    check_parents(out, key)
    marks = (OWNER, *marks)
    check_output(out, s3, (*extra, OWNER, LOCK), marks)  # a user's folder: refused
    check_overlap(out, inputs, key)
    paths = [_norm(p) for p in inputs.values() if p]
    own = (*OWN_ENTRIES, *extra)
    before = read_owner(out, s3)
    _refuse_other_stage(out, key, stage, before)
    products = set(own) - set(marks)
    if not overwrite:
        _refuse_other_inputs(out, key, paths, before, _made(out, s3, products))
    yield from _held(out, stage, key, paths, options, s3, overwrite, own, products,
                     fresh=pfs.file_type(out, s3) == pafs.FileType.NotFound)


def _drop_own_marker(out: str, s3: S3Options | None) -> None:
    """Delete the marker :func:`claim` wrote when ``out`` holds nothing else but the lock (a
    run that failed before any work; called under the lock, so no other run is writing)."""
    names = pfs.entry_names(out, s3)
    if OWNER in names and names <= {OWNER, LOCK}:
        fs, inner = pfs.resolve(out, s3)
        fs.delete_file(pfs.join(inner, OWNER))


def _held(out: str, stage: str, key: str, paths: list[str], options: dict | None,
          s3: S3Options | None, overwrite: bool, own: tuple[str, ...],
          products: set[str], fresh: bool) -> Iterator[Owner]:
    """The part of :func:`claim` under the output's lock; a run on a ``fresh`` (new) output
    that fails before writing anything takes its marker back."""
    with OutputLock(out, stage):
        owner = read_owner(out, s3)  # again, now that no one else writes
        _refuse_other_stage(out, key, stage, owner)
        if overwrite:  # only the stage's own entries, whatever a marker lists
            listed = owner.entries if owner is not None and not owner.legacy else own
            delete_entries(out, [n for n in listed if n in own], s3)
        else:
            _refuse_other_inputs(out, key, paths, owner, _made(out, s3, products))
        made = Owner(stage=stage, inputs=paths, options=options or {}, entries=list(own),
                     pid=os.getpid(), host=socket.gethostname(),
                     written=time.strftime("%Y-%m-%d %H:%M:%S"))
        pfs.write_bytes(pfs.join(out, OWNER), made.dump(), s3)
        try:
            yield made
        except BaseException:
            if fresh:
                _drop_own_marker(out, s3)
            raise
