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


class ParalibError(Exception):
    """An error the user can act on: a message saying what, where and what was expected."""

    exit_code = 2
    hint = ""


class ConfigurationError(ParalibError):
    """A configuration value, command-line option or spec that cannot be used."""

    hint = "check the value against `paralib config --config FILE` and the config docs"


class InputError(ParalibError):
    """Input data (a bitext file, an output folder, a model file) that cannot be read."""

    hint = "the message names the file and line; rejected rows are in the stage's rejects/"


class MissingError(ParalibError):
    """A model, tool, package or data set that is not where it was expected."""

    hint = "see README.md, section Set-up, for what to install and where the data goes"


class ResourcesError(ParalibError):
    """The cluster or this machine cannot provide what the run asks for."""

    hint = "lower the requested actors, workers or CPUs, or run on a larger cluster"


def user_error(exc: BaseException, depth: int = 12) -> ParalibError | None:
    """The :class:`ParalibError` behind ``exc``, if any: itself, or one it wraps (a Ray task
    error's ``cause``, or a chained ``__cause__`` / ``__context__``)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo and len(seen) < depth:
        e = todo.pop(0)
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, ParalibError):
            return e
        todo += [getattr(e, "cause", None), e.__cause__, e.__context__]
    return None
