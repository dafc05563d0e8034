"""``run(section, ctx)``, the evaluation stage: suites over models and baselines, and the report.

Suites (``paralib evaluate --suite``): ``sts`` (STS 2012-2016), ``stsb``, ``sick``, ``sts17``,
``detection``, ``tatoeba``, ``bucc``, ``neighbours``, ``speed``, and ``all``; ``xnli`` (XNLI dev
retrieval, the cross-lingual development set) runs only by name. Each task loads its
data once and evaluates every model; a missing data file, a language a model does not cover or
a failing task is recorded in the results and the run goes on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from paralib.contracts import EvalReport
from paralib.evaluate import bucc, detection, neighbours, speed, sts, sts17, tatoeba  # noqa: F401
from paralib.evaluate.base import DEV_SUITES, SUITES, TASKS
from paralib.evaluate.common import Settings, error, missing
from paralib.evaluate.encoders import Entry, EvalModel, EvaluateError, as_eval_model
from paralib.evaluate.loaders import Aligned, BuccSet, MissingDataError, Pairs, Sentences
from paralib.io.context import StageContext

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Evaluation:
    """The evaluation stage's section: the ``models`` by display name (each a model folder, a
    :class:`~paralib.evaluate.encoders.Baseline`, an ``EvalModel``, an encoder or a pair
    scorer), the ``suites``, the report folder ``out`` (none: no files) and the
    ``settings`` (default: :class:`Settings` on the data root)."""

    models: Mapping[str, Entry] = field(default_factory=dict)
    suites: Sequence[str] = ("all",)
    out: str | Path | None = None
    settings: Settings | None = None


def resolve_suites(suites: Iterable[str]) -> list[str]:
    """Suite names in run order (``all`` = every suite but the development sets, which are
    run only by name); unknown names are an error."""
    names = [part.strip() for s in suites for part in str(s).split(",") if part.strip()]
    for part in names:
        if part != "all" and part not in SUITES:
            raise EvaluateError(f"unknown suite '{part}'; choose from {', '.join(SUITES)} or all")
    return [s for s in SUITES if s in names or ("all" in names and s not in DEV_SUITES)]


def describe_data(data: Any) -> dict:
    """Summary of one loaded evaluation set for the report (sizes, files, dropped lines)."""
    if isinstance(data, MissingDataError):
        return missing(data)
    if isinstance(data, Pairs):
        return {"status": "ok", "pairs": len(data), "dropped_unscored": data.dropped,
                "files": data.files}
    if isinstance(data, detection.DetectionSplits):
        out = {"status": "ok", "train": len(data.train), "test": len(data.test),
               "files": data.train.files + data.test.files}
        if data.valid is not None:
            out["valid"] = len(data.valid)
            out["files"] += data.valid.files
        return out
    if isinstance(data, BuccSet):
        return {"status": "ok", "source": len(data.src), "target": len(data.trg),
                "gold": int(len(data.gold)), "files": [data.file]}
    if isinstance(data, Sentences):
        return {"status": "ok", "sentences": len(data.texts), "files": data.files}
    if isinstance(data, Aligned):
        return {"status": "ok", "pairs": len(data.other), "files": data.files}
    if isinstance(data, list):  # the speed set
        return {"status": "ok", "sentences": len(data)}
    return {"status": "ok"}


def run(section: Evaluation, ctx: StageContext | None = None) -> EvalReport:
    """Evaluate ``section.models`` on its suites (progress bars as ``ctx`` says); with
    ``section.out``, write ``report.json``, ``report.md``, ``report.html`` and ``plots/``."""
    from tqdm.auto import tqdm

    from paralib.paths import data_root

    progress = (ctx or StageContext()).progress
    settings = replace(section.settings or Settings(data=data_root()), progress=progress)
    if not settings.data.is_dir():
        raise EvaluateError(f"data folder {settings.data} does not exist")
    names = resolve_suites(section.suites)  # unknown suites fail before any loading
    models: list[EvalModel] = [as_eval_model(n, obj, settings.data)
                               for n, obj in section.models.items()]
    if not models:
        raise EvaluateError("nothing to evaluate: give at least one model or baseline")
    report: dict[str, Any] = {
        "data": str(settings.data), "suites": names, "seed": settings.seed,
        "models": {m.name: {"description": m.description,
                            "languages": None if m.languages is None else list(m.languages),
                            "kind": "encoder" if m.is_encoder else "pair scorer",
                            "source": None if m.source is None else
                            {"kind": m.source.kind, "ref": m.source.ref}, "info": m.info}
                   for m in models},
        "tasks": {},
    }
    bar = tqdm(total=len(names) * len(models), disable=not progress, unit="task")
    for suite in names:
        task = TASKS[suite](settings)
        entry: dict[str, Any] = {"title": task.title, "paper": task.paper,
                                 "notes": list(task.notes), "models": {}}
        try:
            loaded = task.load()
        except Exception as exc:  # unreadable data: this task fails, the others go on
            log.exception("loading %s failed", suite)
            loaded, entry["error"] = None, error(exc)["message"]
        for m in models:
            bar.set_description(f"{suite} · {m.name}")
            start = time.perf_counter()
            if loaded is None:
                result = {"status": "error", "message": entry["error"]}
            else:
                try:
                    result = task.run(m, loaded)
                except Exception as exc:
                    log.exception("%s on %s failed", suite, m.name)
                    result = error(exc)
            result["seconds"] = round(time.perf_counter() - start, 3)
            entry["models"][m.name] = result
            bar.update()
        entry["data"] = {k: describe_data(v) for k, v in (loaded or {}).items()}
        report["tasks"][suite] = entry
    bar.close()
    if section.out is not None:
        from paralib.evaluate.report import write_report

        report["files"] = write_report(report, section.out)
    return EvalReport.load(report)


# the name the package exports (``paralib.evaluate.run`` is this module)
evaluate = run
