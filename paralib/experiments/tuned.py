"""Tuned runs: selection parameters chosen on development data before the reported model
(2017 §5.5: "Length (tuned)", §5.6-5.7: every filter "tuned on dev").

A tuned run is a plain grid: one candidate per combination of the parameters' values
(:class:`paralib.experiments.spec.TuneSpec`), each selected and trained through the
experiment's own path (same engine, data and epochs as its other runs), its dev score read
from the training summary; the candidate with the best dev score is the run's model and is
evaluated on the test suites like any other run. Parameters mean what they mean to
``paralib tune`` (:mod:`paralib.tune.params`): ``length_range`` sets a ``[lo, hi]`` bound on
``len_trans``, ``cost_max`` an upper bound on ``cost``, and so on.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from paralib.console import log_to_file
from paralib.contracts import RunRecord, Tuned
from paralib.experiments.metrics import MetricError, read_metric
from paralib.experiments.plan import RunPlan
from paralib.experiments.records import RECORD, RecordStore, read_record, write_record
from paralib.experiments.spec import ExperimentError

log = logging.getLogger(__name__)


def score(record: RunRecord | Mapping[str, Any], metric: str) -> float | None:
    """A candidate's dev score (``None`` when it failed or has none)."""
    try:
        value = read_metric(record, metric)
    except MetricError:
        return None
    return value if value is not None and math.isfinite(value) else None


def choose(records: Sequence[RunRecord | Mapping[str, Any]], metric: str, mode: str = "max"
           ) -> int | None:
    """Index of the candidate with the best ``metric`` (the first on a tie), ``None`` when no
    candidate has a score."""
    scored = [(i, s) for i, s in enumerate(score(r, metric) for r in records) if s is not None]
    if not scored:
        return None
    sign = 1.0 if mode == "max" else -1.0
    return max(scored, key=lambda p: (sign * p[1], -p[0]))[0]


def making(plan: RunPlan, progress: bool, **more: Any) -> dict[str, Any]:
    """The options of :func:`paralib.runs.make_model` for ``plan`` (a run or a candidate)."""
    return {"select": plan.select, "engine": plan.engine, "trained": plan.trained,
            "train_key": plan.train_key, "progress": progress, **more}


def _candidate(cand: RunPlan, progress: bool, store: RecordStore) -> RunRecord:
    """Train one candidate of a tuned run, or reuse its record (this machine's with its
    model, or a kept one without); a failure is its record's status."""
    from paralib.runs import make_model
    from paralib.select.steps import SelectError

    old = cand.rekey(read_record(cand.folder / RECORD))
    if not (old is not None and old.train_key == cand.train_key and old.train):
        old = cand.rekey(store.read(cand.folder))
    rec = RunRecord(name=cand.name, params=cand.params, status="ok", train_key=cand.train_key,
                    seconds={}, reused=True)
    assert cand.config is not None
    try:
        make_model(cand.config, rec, **making(cand, progress, previous=old, need_model=False))
    except Exception as exc:  # a candidate that cannot be made is left out of the choice
        log.warning("tune candidate %s failed: %s", cand.folder, exc)
        log_to_file(f"tune candidate {cand.folder} failed", exc)
        rec.status, rec.message = "error", f"{type(exc).__name__}: {exc}"
        rec.reused, rec.too_few_pairs = False, isinstance(exc, SelectError)
    write_record(cand.folder, rec, store)
    return rec


def make_tuned(plan: RunPlan, record: RunRecord, progress: bool, store: RecordStore) -> None:
    """2017 §5.5-5.7: a model per candidate, the best dev score chosen; the chosen one is
    trained again when its record was kept elsewhere and its model is not here."""
    from paralib.runs import make_model

    metric = plan.tune_metric or "train/dev_pearson"
    recs = [_candidate(c, progress, store) for c in plan.candidates]
    best = choose(recs, metric, plan.tune_mode)
    record.tuned = Tuned.model_validate({
        "metric": metric, "mode": plan.tune_mode,
        "chosen": plan.candidates[best].name if best is not None else None,
        "params": plan.candidates[best].params if best is not None else None,
        "value": score(recs[best], metric) if best is not None else None,
        "candidates": [{"label": c.name, "params": c.params, "status": r.status,
                        "message": r.message, "value": score(r, metric),
                        "too_few_pairs": bool(r.too_few_pairs),
                        "pairs": (r.train.dump() if r.train else {}).get("pairs")}
                       for c, r in zip(plan.candidates, recs, strict=True)]})
    for key in ("select", "train"):
        record.seconds[key] = sum((r.seconds.get(key) or 0.0) for r in recs)
    broken = [f"{c.name} ({r.message})" for c, r in zip(plan.candidates, recs, strict=True)
              if r.status == "error" and not r.too_few_pairs]
    if broken:  # only a selection too small for the size leaves a candidate out for good
        raise ExperimentError(f"{len(broken)} candidate(s) of the tuned run failed, so it is "
                              f"made again next time: {'; '.join(broken)}")
    if best is None:
        raise ExperimentError(f"no candidate of the tuned run has a {metric} score "
                              f"({len(recs)} tried)")
    plan.chosen = chosen = plan.candidates[best]
    record.train, record.selection = recs[best].train, recs[best].selection
    if not (chosen.model_dir / "config.json").is_file():
        again = RunRecord(seconds={})
        assert chosen.config is not None
        make_model(chosen.config, again, **making(chosen, progress))
        record.train, record.selection = again.train, again.selection
        record.retrained = chosen.name
        for key, value in again.seconds.items():
            record.seconds[key] += value
