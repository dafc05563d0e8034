"""The root of every error a user can act on, and its four kinds.

A :class:`ParalibError` is the user's to fix (a config, an input file, a missing model or
tool, too few resources): the command line prints it as one message with its hint and exits
with its ``exit_code`` (2 for every kind, as for a usage error: scripts test one status).
Anything else is a bug in paralib: exit status 1, its traceback in the run's log.

Each stage's error class derives from one kind and keeps its old built-in base as well
(``class BitextError(InputError, ValueError)``), so that code catching ``ValueError`` or
``FileNotFoundError`` behaves as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def _rebuilt(cls: type[ParalibError], args: tuple, state: dict[str, Any]) -> ParalibError:
    """A :class:`ParalibError` of class ``cls`` with ``args`` and attributes ``state``, made
    without calling ``cls.__init__`` (whose parameters need not be ``args``)."""
    err = cls.__new__(cls, *args)
    err.args = args
    err.__dict__.update(state)
    return err


class ParalibError(Exception):
    """An error the user can act on: a message saying what, where and what was expected.

    Every one survives pickling, whatever its subclass's ``__init__`` takes (an error raised
    in a Ray task or a training worker reaches the driver intact): it is rebuilt from its
    ``args`` and attributes, not by calling the class with its ``args`` (Python's default,
    which fails for ``__init__(self, path, what)``)."""

    exit_code = 2
    hint = ""

    def __reduce__(self) -> tuple:
        return _rebuilt, (type(self), self.args, dict(self.__dict__))


class ConfigurationError(ParalibError):
    """A configuration value, command-line option or spec that cannot be used."""

    hint = "check the value against `paralib config --config FILE` and the config docs"


class InputError(ParalibError):
    """Input data (a bitext file, an output folder, a model file) that cannot be read."""

    hint = "the message names the file and line; rejected rows are in the stage's rejects/"


class MissingError(ParalibError):
    """A model, tool, package or data set that is not where it was expected."""

    hint = ("see README.md (install) and docs/USAGE.md for what to install and where the data "
            "goes")


class ResourcesError(ParalibError):
    """The cluster or this machine cannot provide what the run asks for."""

    hint = "lower the requested actors, workers or CPUs, or run on a larger cluster"


def _wrapped(exc: BaseException) -> list[BaseException | None]:
    """The exceptions ``exc`` wraps: a Ray task error's ``cause``; Ray Train's
    ``WorkerGroupError.worker_failures`` (one per failed worker), ``ControllerError
    .controller_failure`` and a worker's ``UserExceptionWithTraceback``; the chained
    ``__cause__`` and ``__context__``."""
    failures = getattr(exc, "worker_failures", None)
    return [getattr(exc, "cause", None), getattr(exc, "controller_failure", None),
            getattr(exc, "_base_exc", None),
            *(failures.values() if isinstance(failures, dict) else ()),
            exc.__cause__, exc.__context__]


def exception_chain(exc: BaseException, depth: int = 12) -> Iterator[BaseException]:
    """``exc`` and the exceptions it wraps (:func:`_wrapped`), breadth first, each once, at
    most ``depth`` of them."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo and len(seen) < depth:
        e = todo.pop(0)
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo += [w if isinstance(w, BaseException) else None for w in _wrapped(e)]


def user_error(exc: BaseException, depth: int = 12) -> ParalibError | None:
    """The :class:`ParalibError` behind ``exc``, if any: itself, or one it wraps
    (:func:`exception_chain`)."""
    for e in exception_chain(exc, depth):
        if isinstance(e, ParalibError):  # a Ray task error can be an instance of its cause's class
            cause = getattr(e, "cause", None)
            return cause if isinstance(cause, ParalibError) else e
    return None
