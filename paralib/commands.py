"""The subcommand registry: each stage declares its ``paralib`` subcommands next to its code.

A stage's ``cli`` module (``paralib/<stage>/cli.py``) holds a ``COMMANDS`` tuple of
:class:`Command` (and, for a command with sub-commands such as ``paralib mt train``, a
:class:`Group`); :mod:`paralib.cli` lists those modules once and builds the parser, the help
examples and the run log folders from them. A command's ``add`` adds its parser (name, help,
options) to an ``argparse`` sub-parsers object and returns it; its ``run`` takes the parsed
arguments and returns the exit status. Heavy imports stay inside ``run``: building the parser
imports every stage's cli module.

:class:`StageContext` is what a stage's entry point needs from a command line besides its own
config section: where to check and write (storage options), the whole config for the
provenance of its outputs, whether to show progress bars, a logger, and how to start Ray.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paralib.config import Config, RayConfig, add_config_args, load_config
from paralib.io.fs import S3Options
from paralib.runtime import init_ray

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


@dataclass(frozen=True)
class StageContext:
    """What a stage's entry point gets besides its config section (issue 31, item 6).

    ``storage`` are the fsspec options of ``s3://`` paths (``Config.s3.options()``),
    ``config`` the whole validated config as a dict (checked for unreachable buckets before
    any work, and recorded next to the outputs), ``progress`` whether to show progress bars,
    ``ray`` the Ray section that :meth:`init_ray` starts or joins."""

    storage: S3Options | None = None
    config: dict[str, Any] = field(default_factory=dict)
    progress: bool = True
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("paralib"))
    ray: RayConfig = field(default_factory=RayConfig)

    def init_ray(self) -> dict:
        """Start or join Ray as ``ray`` says (:func:`paralib.runtime.init_ray`)."""
        return init_ray(self.ray)

    @classmethod
    def of(cls, cfg: Config, progress: bool = True) -> StageContext:
        """The context of a validated config."""
        return cls(storage=cfg.s3.options(), config=cfg.model_dump(), progress=progress,
                   ray=cfg.ray)


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


def command_name(args: argparse.Namespace, groups: dict[str, Group]) -> str:
    """The registered name of a parsed command line (``"mt train"`` for ``paralib mt train``)."""
    group = groups.get(args.command)
    return f"{args.command} {getattr(args, group.dest)}" if group else args.command
