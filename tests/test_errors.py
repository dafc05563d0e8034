"""Every error paralib raises for the user derives from one kind of ParalibError, and the
command line prints such an error as one message (exit status and hint), a bug with its
traceback in the log (issue 31, item 5)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from paralib.errors import (
    ConfigurationError,
    InputError,
    MissingError,
    ParalibError,
    ResourcesError,
    user_error,
)

ROOT = Path(__file__).resolve().parents[1] / "paralib"
KINDS = (ConfigurationError, InputError, MissingError, ResourcesError)
# Exceptions that never reach the user, with where they are caught.
INTERNAL = {
    "paralib.io.formats.Reject": "a line that is no pair: caught in paralib.io.bitext and "
                                 "written to rejects/ with its reason",
    "paralib.tune.params.UnknownParameter": "caught in paralib.tune.space, re-raised as "
                                            "SpaceError",
}


def exception_classes() -> list[tuple[str, str]]:
    """(module, class) of every public class of paralib whose bases name an error."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_") and any(
                    ast.unparse(b).endswith(("Error", "Exception", "NotRunnable", "Warning"))
                    for b in node.bases):
                found.append((".".join(parts), node.name))
    return found


def test_the_scan_finds_the_errors():
    names = {name for _, name in exception_classes()}
    assert {"BitextError", "ConfigError", "StallError", "ModelLoadError"} <= names
    assert len(names) >= 40


@pytest.mark.parametrize(("module", "name"), exception_classes())
def test_every_error_has_a_kind(module, name):
    if f"{module}.{name}" in INTERNAL or module == "paralib.errors":
        return
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, KINDS), f"{module}.{name} derives from no ParalibError kind"
    assert cls.exit_code == 2 and cls.hint, f"{module}.{name}"


def test_user_error_finds_the_cause_a_ray_task_wraps():
    inner = InputError("in.de:3: not UTF-8")

    class TaskError(Exception):
        cause = inner

    assert user_error(TaskError("task failed")) is inner
    assert user_error(RuntimeError("plain bug")) is None


def test_cli_prints_a_user_error_with_its_status_and_hint(capsys, monkeypatch):
    import paralib.cli as cli

    class TooFew(ResourcesError):
        exit_code = 3
        hint = "ask for fewer actors"

    def fails(args):
        raise RuntimeError("a Ray task failed") from TooFew("encode: 8 actors do not fit")

    monkeypatch.setattr(cli, "run", fails)
    assert cli.main(["config"]) == 3
    err = capsys.readouterr().err
    assert err == "paralib: error: encode: 8 actors do not fit\n  hint: ask for fewer actors\n"


def test_cli_reports_a_missing_file_as_a_user_error(capsys, monkeypatch):
    import paralib.cli as cli

    def fails(args):
        raise FileNotFoundError(2, "No such file or directory", "/no/such.de")

    monkeypatch.setattr(cli, "run", fails)
    assert cli.main(["config"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("paralib: error: ") and "/no/such.de" in err
    assert "Traceback" not in err and "internal error" not in err


def test_the_kinds():
    assert issubclass(ParalibError, Exception) and not issubclass(ParalibError, ValueError)
    for kind in KINDS:
        assert issubclass(kind, ParalibError) and kind.exit_code == 2 and kind.hint
