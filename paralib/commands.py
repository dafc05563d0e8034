"""The subcommand registry: each stage declares its ``paralib`` subcommands next to its code.

A stage's ``cli`` module (``paralib/<stage>/cli.py``) holds a ``COMMANDS`` tuple of
:class:`Command` (and, for a command with sub-commands such as ``paralib mt train``, a
:class:`Group`); :mod:`paralib.cli` lists those modules once and builds the parser, the help
examples and the run log folders from them. A command's ``add`` adds its parser (name, help,
options) to an ``argparse`` sub-parsers object and returns it; its ``run`` takes the parsed
arguments and returns the exit status. Heavy imports stay inside ``run``: building the parser
imports every stage's cli module.

:func:`staged` is the command of a stage whose entry point is ``run(section, ctx)``: it
loads the config and builds the :class:`~paralib.io.context.StageContext` (where to check and
write, the whole config for the provenance of the outputs, progress bars, a logger, Ray),
so that the stage never sees the whole config.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paralib.config import Config, add_config_args, load_config
from paralib.io.context import StageContext

# what ``add_subparsers()`` returns; argparse does not name the type publicly
Subparsers = Any


@dataclass(frozen=True)
class Command:
    """One ``paralib`` subcommand.

    ``name`` is the command line after ``paralib`` (``"train"``, ``"mt train"``); ``example``
    is shown at the end of its ``--help``; ``logged`` commands run stages and get a run log
    folder (``<log root>/<first word>-<time>/paralib.log``, :mod:`paralib.console`)."""

    name: str
    add: Callable[[Subparsers], argparse.ArgumentParser]
    run: Callable[[argparse.Namespace], int]
    example: str
    logged: bool = True


@dataclass(frozen=True)
class Group:
    """A command that only holds sub-commands (``paralib mt``): its help and the attribute
    of the parsed arguments that names the sub-command (``mt_command``)."""

    name: str
    help: str
    dest: str


def configured(name: str, help: str, example: str,
               call: Callable[[Config, argparse.Namespace], object], *,
               options: Callable[[argparse.ArgumentParser], None] | None = None,
               description: str | None = None, default: Path | None = None,
               logged: bool = True) -> Command:
    """A command of a configured stage: ``--config``, ``--set`` and ``--no-progress``
    (:func:`~paralib.config.add_config_args`) and ``options``; it loads the config, runs
    ``call(config, args)`` and prints what that returns (nothing for ``None``)."""
    def add(subparsers: Subparsers) -> argparse.ArgumentParser:
        p = subparsers.add_parser(name.split()[-1], help=help, description=description)
        add_config_args(p, default)
        if options is not None:
            options(p)
        return p

    def run(args: argparse.Namespace) -> int:
        out = call(load_config(args.config, args.overrides), args)
        if out is not None:
            print(out)
        return 0

    return Command(name, add, run, example, logged)


def staged(name: str, help: str, example: str, module: str, section: str,
           text: Callable[[Any], str] = lambda out: out.text(), **kwargs: Any) -> Command:
    """A :func:`configured` command that calls ``module.run(config.<section>, ctx)`` (the
    module imported on first use) and prints ``text`` of what it returns (its summary)."""
    def call(cfg: Config, args: argparse.Namespace) -> str:
        import importlib

        ctx = StageContext.of(cfg, progress=not args.no_progress)
        return text(importlib.import_module(module).run(getattr(cfg, section), ctx))

    return configured(name, help, example, call, **kwargs)


def command_name(args: argparse.Namespace, groups: dict[str, Group]) -> str:
    """The registered name of a parsed command line (``"mt train"`` for ``paralib mt train``)."""
    group = groups.get(args.command)
    return f"{args.command} {getattr(args, group.dest)}" if group else args.command
