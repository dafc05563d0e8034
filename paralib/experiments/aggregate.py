"""Cells computed over several runs: the best fold of the mean over models (2018 §5.4,
Table 5) and correlations over runs with a property of each run (2019 §4.2, Table 5:
Spearman's ρ between STS and the SP overlap of each language with English).

A cell's ``aggregate`` steps (:class:`paralib.experiments.spec.AggStep`) go innermost first:
``[{over: model, how: mean}, {over: fold, how: max}]`` takes, for each fold, the mean over the
models, then the best fold. The result keeps what each value was made of, for the table's
note (the winning fold) and the details under the table (every fold's mean).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from paralib.experiments.metrics import read_metric
from paralib.experiments.records import Records, record_of
from paralib.experiments.spec import AggStep, CellRef, Experiment, Where, fill


@dataclass
class Aggregated:
    """A cell computed over runs: its value (``None`` when it cannot be computed, ``why``
    says why), the label that won a ``max``/``min`` step (``chosen``, and ``note`` for the
    table), and one line of details."""

    value: float | None
    note: str = ""
    chosen: str | None = None
    why: str = ""
    details: list[str] = field(default_factory=list)


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.3g}" if abs(value) < 1 else f"{value:.1f}"


def _metric(records: Records, run: str, metric: str) -> float | None:
    """A run's number, ``None`` for a run without a result (not ok) or a NaN. A run that is ok
    but lacks the metric raises :class:`MetricError`, as in a plain cell: that is a wrong
    metric path (a typo), not a missing result."""
    value = read_metric(record_of(records, run), metric)
    return value if value is None or math.isfinite(value) else None


def correlation_name(how: str) -> str:
    """``Spearman's ρ`` or ``Pearson's r``."""
    return "Spearman's ρ" if how == "spearman" else "Pearson's r"


def kept_values(step: AggStep, exp: Experiment, ref: CellRef, records: Records,
                bound: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """``(value, run name)`` of every value the step goes over that its ``where`` keeps."""
    runs = [(v, fill(ref.run, **(bound or {}), **{step.over: v})) for v in exp.axis_values(step)]
    return [(v, run) for v, run in runs
            if step.where is None or passes(step.where, _metric(records, run, step.where.metric))]


def passes(where: Where | None, value: float | None) -> bool:
    """Whether a run with ``value`` of the ``where`` metric is kept."""
    if where is None:
        return True
    if value is None:
        return False
    if where.above is not None and not value > where.above:
        return False
    return where.at_most is None or value <= where.at_most


def rank_correlation(x: list[float], y: list[float], how: str = "spearman") -> float:
    """Spearman's ρ (Pearson's r of the ranks, ties given their mean rank) or Pearson's r;
    NaN when either variable is constant."""
    a, b = pd.Series(x, dtype=float), pd.Series(y, dtype=float)
    if how == "spearman":
        a, b = a.rank(method="average"), b.rank(method="average")
    if len(a) < 2 or a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a.to_numpy(), b.to_numpy())[0, 1])


def correlation_points(step: AggStep, exp: Experiment, ref: CellRef, records: Records,
                       bound: dict[str, str] | None = None
                       ) -> tuple[list[tuple[str, float, float]], list[str]]:
    """The runs a correlation step goes over, as ``(value, with-metric, cell metric)``
    points (those ``where`` keeps), and the values whose run lacks either number."""
    points: list[tuple[str, float, float]] = []
    left: list[str] = []
    for v, run in kept_values(step, exp, ref, records, bound):
        x, y = _metric(records, run, step.with_ or ""), _metric(records, run, ref.metric)
        if x is None or y is None:
            left.append(v)
            continue
        points.append((v, x, y))
    return points, left


def _correlate(step: AggStep, exp: Experiment, ref: CellRef, records: Records,
               bound: dict[str, str]) -> Aggregated:
    points, left = correlation_points(step, exp, ref, records, bound)
    name = correlation_name(step.how)
    listed = ", ".join(f"{v} ({_num(x)}, {_num(y)})" for v, x, y in points)
    detail = (f"{name} over {len(points)} run(s) of ({step.with_}, {ref.metric}): "
              f"{listed or 'none'}" + (f"; without a result: {', '.join(left)}" if left
                                       else ""))
    if len(points) < step.min_runs:
        return Aggregated(None, why=f"{len(points)} run(s), fewer than {step.min_runs}",
                          details=[detail])
    rho = rank_correlation([p[1] for p in points], [p[2] for p in points], step.how)
    if not math.isfinite(rho):
        return Aggregated(None, why="a constant variable", details=[detail])
    return Aggregated(rho, details=[detail])


def reduce_parts(step: AggStep, parts: list[tuple[str, Aggregated]], scale: float = 1.0
                 ) -> Aggregated:
    """A mean/max/min step over its :func:`step_parts` (``scale`` only formats the details)."""
    have = [(v, a.value) for v, a in parts if a.value is not None]
    lacking = [v for v, a in parts if a.value is None]
    listed = ", ".join(f"{step.over} {v}: {_num(a.value * scale if a.value is not None else None)}"
                       + (f" ({a.note})" if a.note else "") for v, a in parts)
    inner = [d for _, a in parts for d in a.details]
    if step.how == "mean":
        if lacking or not have:
            return Aggregated(None, why=f"no result for {step.over} {', '.join(lacking)}",
                              details=inner)
        return Aggregated(sum(x for _, x in have) / len(have), details=inner)
    if not have:
        return Aggregated(None, why=f"no result for any {step.over}", details=inner)
    pick = max if step.how == "max" else min
    label, value = pick(have, key=lambda p: p[1])
    word = "best" if step.how == "max" else "lowest"
    detail = f"{word} {step.over} {label} of {len(parts)}: {listed}" + (
        f" (no result: {', '.join(lacking)})" if lacking else "")
    return Aggregated(value, note=f"{step.over} {label}", chosen=label, details=[detail])


def aggregate(exp: Experiment, ref: CellRef, records: Records,
              scale: float = 1.0, bound: dict[str, str] | None = None,
              steps: list[AggStep] | None = None) -> Aggregated:
    """The value of an aggregated cell from the run records (before ``scale``, which only
    formats the details of mean/max/min steps)."""
    bound = bound or {}
    steps = ref.aggregate if steps is None else steps
    if not steps:
        return Aggregated(_metric(records, fill(ref.run, **bound), ref.metric))
    step = steps[-1]
    if step.correlation:
        return _correlate(step, exp, ref, records, bound)
    return reduce_parts(step, step_parts(exp, ref, records, scale, bound, steps), scale)


def step_parts(exp: Experiment, ref: CellRef, records: Records,
               scale: float = 1.0, bound: dict[str, str] | None = None,
               steps: list[AggStep] | None = None) -> list[tuple[str, Aggregated]]:
    """Each value of the outermost mean/max/min step (those its ``where`` keeps) with what
    the inner steps make of it: every fold's mean over the models of 2018 Table 5."""
    bound = bound or {}
    steps = ref.aggregate if steps is None else steps
    step, inner = steps[-1], steps[:-1]
    return [(v, aggregate(exp, ref, records, scale, {**bound, step.over: v}, inner))
            for v, _ in kept_values(step, exp, ref, records, bound)]
