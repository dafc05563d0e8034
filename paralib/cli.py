"""The ``paralib`` command line: one subcommand per stage, each ``--config FILE --set k=v``.

``jobs/run.py`` calls :func:`main` with its arguments, so that
``ray job submit -- python jobs/run.py backtranslate --config X`` is ``paralib backtranslate
--config X`` on a cluster.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from paralib.commands import Command, Group, command_name, configured
from paralib.console import (
    configure,
    default_log_root,
    keep_ray_logs,
    log_to_file,
    reset,
    run_log_dir,
)
from paralib.paths import PROJECT_ROOT


def _quickstart(cfg, args) -> None:
    from paralib.quickstart import quickstart

    quickstart(cfg, progress=not args.no_progress)


def _config(cfg, args) -> str:
    import yaml

    from paralib.redact import redact

    return yaml.safe_dump(redact(cfg.model_dump(mode="json")), sort_keys=False)


QUICKSTART = configured("quickstart", "the embedded default run on ../shared/data",
                        "paralib quickstart", _quickstart,
                        default=PROJECT_ROOT / "configs" / "quickstart.yaml")
CONFIG = configured("config", "print the validated configuration as YAML",
                    "paralib config --config configs/quickstart.yaml --set train.epochs=2",
                    _config, logged=False)
# Where the subcommands are declared, in the order of ``paralib --help``: a stage's cli module
# (its COMMANDS, and its GROUP for ``paralib GROUP COMMAND``) or one of the two above.
SOURCES: tuple[str | Command, ...] = (
    QUICKSTART, "paralib.translate.cli", "paralib.decontaminate.cli", "paralib.filters.cli",
    "paralib.select.cli", "paralib.analysis.cli", "paralib.lm.cli", "paralib.classifier.cli",
    "paralib.train.cli", "paralib.encode.cli", "paralib.mine.cli", "paralib.evaluate.cli",
    "paralib.tune.cli", "paralib.experiments.cli", "paralib.corpora.cli", "paralib.export.cli",
    CONFIG, "paralib.mt.cli",
)


def registry() -> tuple[dict[str, Command], dict[str, Group]]:
    """Every subcommand by name (``"mt train"``) in help order, and the groups by name."""
    commands: dict[str, Command] = {}
    groups: dict[str, Group] = {}
    for source in SOURCES:
        if isinstance(source, Command):
            commands[source.name] = source
            continue
        module = importlib.import_module(source)
        if hasattr(module, "GROUP"):
            groups[module.GROUP.name] = module.GROUP
        for command in module.COMMANDS:
            assert command.name not in commands, f"{source}: {command.name} declared twice"
            commands[command.name] = command
    return commands, groups


COMMANDS, GROUPS = registry()
# One example command line per subcommand, shown at the end of its --help.
EXAMPLES = {name: command.example for name, command in COMMANDS.items()}
# Commands that run stages get a log folder (<log root>/<command>-<time>/paralib.log).
LOGGED = {name.split()[0] for name, command in COMMANDS.items() if command.logged}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="paralib", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    group_subs = {}
    for name, command in COMMANDS.items():
        first, _, rest = name.partition(" ")
        target = sub
        if rest:
            if first not in group_subs:
                group = GROUPS[first]
                group_subs[first] = sub.add_parser(first, help=group.help).add_subparsers(
                    dest=group.dest, required=True)
            target = group_subs[first]
        command.add(target)
    for path, leaf in leaf_parsers(parser):
        _finish(leaf, " ".join(path))
    return parser

def leaf_parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
                 ) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every runnable subcommand's parser with its command path (``("mt", "train")``)."""
    for action in parser._actions:  # argparse lists sub-parsers only on this action
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            out = []
            for name, sub in action.choices.items():
                if not sub.description:
                    sub.description = helps.get(name)
                out += leaf_parsers(sub, path + (name,))
            return out
    return [(path, parser)]


def _finish(p: argparse.ArgumentParser, command: str) -> None:
    """Add the options every subcommand shares and its example."""
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    if command in EXAMPLES:
        p.epilog = f"example:\n  {EXAMPLES[command]}"
    group = p.add_argument_group("output")
    group.add_argument("--verbose", "-v", action="store_true", default=False,
                       help="show Ray's logs and INFO lines on the terminal, and the traceback "
                       "of an error")
    group.add_argument("--log-dir", default=None, metavar="DIR",
                       help="where each run's log folder is made (default: $PARALIB_LOG_DIR "
                       "or output/logs)")


def run(args) -> int:
    """Dispatch a parsed command line to its registered command."""
    return COMMANDS[command_name(args, GROUPS)].run(args)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``paralib`` console script; returns the exit status.

    Quiet by default (:mod:`paralib.console`): logs go to a run log folder named at the end;
    an error the user can act on (:class:`~paralib.errors.ParalibError`, or a missing or
    unreadable file) prints one message with a hint; anything else is a bug, printed as one
    line with its traceback in the log (on the terminal with ``--verbose``)."""
    args = build_parser().parse_args(argv)
    verbose = getattr(args, "verbose", False)
    log_dir = None
    if COMMANDS[command_name(args, GROUPS)].logged:
        log_dir = run_log_dir(getattr(args, "log_dir", None) or default_log_root(),
                              args.command)
    console = configure(verbose, log_dir)
    try:
        return run(args)
    except KeyboardInterrupt:
        print("paralib: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        return _report_error(exc, verbose, console.log_file)
    finally:
        ray_logs = keep_ray_logs()
        if console.log_file is not None and not verbose:
            where = f" (Ray's logs: {ray_logs})" if ray_logs else ""
            print(f"log: {console.log_file}{where}", file=sys.stderr)
        reset()


def _report_error(exc: Exception, verbose: bool, log_file: Path | None) -> int:
    """Print ``exc`` as one message and return the exit status (see :func:`main`)."""
    from paralib.errors import user_error
    from paralib.redact import redact_text, redacting_excepthook

    err = user_error(exc)
    if err is None and isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError,
                                        NotADirectoryError)):
        err = exc
    if verbose and err is None:
        if sys.excepthook is sys.__excepthook__:  # the interpreter prints it, masked
            sys.excepthook = redacting_excepthook
        raise exc
    log_to_file("paralib failed", exc)
    if err is not None:
        hint = getattr(err, "hint", "")
        print(f"paralib: error: {redact_text(str(err))}", file=sys.stderr)
        if hint:
            print(f"  hint: {hint}", file=sys.stderr)
        return getattr(err, "exit_code", 2)
    where = f"; the traceback is in {log_file}" if log_file else ""
    print(f"paralib: internal error (a bug in paralib, please report it): "
          f"{type(exc).__name__}: {redact_text(str(exc))}{where}; --verbose shows it",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
