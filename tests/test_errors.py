"""Every error paralib raises for the user derives from one kind of ParalibError, and the
command line prints such an error as one message (exit status and hint), a bug with its
traceback in the log."""

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
    "paralib.schema.YAMLTooLarge": "a yaml.YAMLError: caught where YAML is read (read_yaml, "
                                   "--set values, ray.node_types), re-raised as that reader's "
                                   "error naming the file",
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


def all_user_errors() -> list[type[ParalibError]]:
    """Every ParalibError class of the package: every module imported, subclasses walked."""
    import pkgutil
    import sys

    import paralib

    for info in pkgutil.walk_packages(paralib.__path__, "paralib."):
        if not info.name.endswith("__main__"):  # it runs the command line
            importlib.import_module(info.name)

    def below(cls: type) -> list[type]:
        return [c for sub in cls.__subclasses__() for c in (sub, *below(sub))]

    return sorted({c for c in below(ParalibError) if c.__module__.startswith("paralib.")
                   and c.__module__ in sys.modules},
                  key=lambda c: f"{c.__module__}.{c.__qualname__}")


def instance(cls: type[ParalibError]) -> ParalibError:
    """``cls`` made with plausible arguments for each parameter of its signature."""
    import inspect

    init = next(vars(k)["__init__"] for k in cls.__mro__ if "__init__" in vars(k))
    if not inspect.isfunction(init):  # Exception's or OSError's own: a message
        return cls("sts-dev.csv:7: a message naming what, where and what was expected")
    kwargs = {}
    for name, param in list(inspect.signature(init).parameters.items())[1:]:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or \
                param.default is not param.empty:
            continue
        hint = str(param.annotation)
        kwargs[name] = (Path(f"/data/sts/{name}.csv") if "Path" in hint else 3 if hint == "int"
                        else 0.5 if hint == "float" else f"the {name} (sts-dev.csv:7)")
    return cls(**kwargs)


def test_every_user_error_survives_pickling():
    """A ParalibError raised in a Ray worker reaches the driver: each subclass, whatever its
    ``__init__`` takes, pickles (by pickle and Ray's cloudpickle) with its message intact."""
    import pickle

    from ray import cloudpickle

    classes = all_user_errors()
    names = {c.__name__ for c in classes}
    assert {"MissingDataError", "ClusterConfigError", "BitextError", "ExportError"} <= names
    assert len(classes) >= 50
    for cls in classes:
        err = instance(cls)
        err.add_note("while loading the dev set")
        for dumps, loads in ((pickle.dumps, pickle.loads), (cloudpickle.dumps, pickle.loads)):
            back = loads(dumps(err))
            assert type(back) is cls and str(back) == str(err) and back.args == err.args, cls
            assert vars(back) == vars(err), cls
            assert back.exit_code == err.exit_code and back.hint == err.hint


def test_a_user_error_from_a_ray_worker_is_one_message(capsys):
    """A training worker's MissingDataError, as the driver gets it (pickled inside Ray's
    task error, then inside Ray Train's WorkerGroupError), is printed as its one message."""
    import pickle

    from ray import cloudpickle
    from ray.exceptions import RayTaskError
    from ray.train import WorkerGroupError

    from paralib.cli import _report_error
    from paralib.evaluate.loaders import MissingDataError

    missing = MissingDataError(Path("/data/sts/stsbenchmark/sts-dev.csv"), "STS Benchmark dev")
    task = pickle.loads(cloudpickle.dumps(RayTaskError(
        "train_loop", "Traceback (most recent call last):\n  ...\n" * 15, missing)))
    group = pickle.loads(cloudpickle.dumps(WorkerGroupError(
        "[Rank 0]\n" + "  File ...\n" * 30, {0: missing})))
    for err in (task.as_instanceof_cause(), task, group):
        assert user_error(err) is not None and str(user_error(err)) == str(missing)
        assert _report_error(err, verbose=False, log_file=None) == 2
        printed = capsys.readouterr().err
        assert printed == (f"paralib: error: {missing}\n  hint: {MissingDataError.hint}\n")
