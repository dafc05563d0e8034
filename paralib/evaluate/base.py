"""The task interface and the registry of tasks by suite name.

A task loads its data once (:meth:`Task.load`: a mapping of set name to loaded data, or to the
:class:`~paralib.evaluate.loaders.MissingDataError` that says which file is absent) and then
evaluates each model on it (:meth:`Task.run`), returning ``{"status", "sets": {name: entry}}``
plus task-specific summaries. Sets whose data is missing, or whose languages the model does not
cover, are entries with that status; the other sets are still evaluated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from paralib.console import log_to_file
from paralib.evaluate.common import Settings, error, missing, not_applicable, skipped
from paralib.evaluate.evalmodel import EvalModel
from paralib.evaluate.loaders import MissingDataError

TASKS: dict[str, type[Task]] = {}
# suite names in run order (``all`` runs them all but the development sets of DEV_SUITES)
SUITES = ("sts", "stsb", "sick", "sts17", "detection", "tatoeba", "bucc", "neighbours", "speed",
          "xnli")
DEV_SUITES = ("xnli",)


class Task:
    """One evaluation task (a suite name of ``paralib evaluate --suite``)."""

    name: ClassVar[str]
    title: ClassVar[str]
    paper: ClassVar[str]
    needs_encoder: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = ()

    def __init__(self, settings: Settings):
        self.settings = settings

    def load(self) -> dict[str, Any]:
        """Set name → data (or the :class:`MissingDataError` of its absent file)."""
        raise NotImplementedError

    def languages(self, set_name: str, data: Any) -> tuple[str, ...]:
        """Languages a model must cover for this set."""
        return ("en",)

    def run_set(self, model: EvalModel, set_name: str, data: Any) -> dict:
        """Evaluate ``model`` on one set (its data present, its languages covered)."""
        raise NotImplementedError

    def summarise(self, sets: dict[str, dict]) -> dict:
        """Task-level summaries of the per-set results (e.g. per-year means)."""
        return {}

    def run(self, model: EvalModel, loaded: dict[str, Any]) -> dict:
        """Every set of the task for one model; failures of one set do not stop the others."""
        if self.needs_encoder and not model.is_encoder:
            return not_applicable(model, self.title)
        sets: dict[str, dict] = {}
        for name, data in loaded.items():
            if isinstance(data, MissingDataError):
                sets[name] = missing(data)
                continue
            langs = self.languages(name, data)
            if not model.covers(*langs):
                sets[name] = skipped(model, langs)
                continue
            try:
                sets[name] = {"status": "ok", **self.run_set(model, name, data)}
            except Exception as exc:  # one failing set must not stop the run
                log_to_file(f"{self.name}/{name} failed for {model.name}", exc)
                sets[name] = error(exc)
        return {"status": overall_status(sets), "sets": sets, **self.summarise(sets)}


def overall_status(sets: dict[str, dict]) -> str:
    """``ok`` when any set was evaluated, else the status shared by the sets (or the first)."""
    statuses = [s["status"] for s in sets.values()] or ["skipped"]
    return "ok" if "ok" in statuses else statuses[0]


def register(cls: type[Task]) -> type[Task]:
    """Class decorator: make a task available under its suite name."""
    TASKS[cls.name] = cls
    return cls


def load_sets(names: list[str], reader: Callable[[str], Any]) -> dict[str, Any]:
    """``{name: reader(name)}``, with the :class:`MissingDataError` in place of absent data."""
    out: dict[str, Any] = {}
    for name in names:
        try:
            out[name] = reader(name)
        except MissingDataError as exc:
            out[name] = exc
    return out
