"""The experiment plot, of the kind its file names (:mod:`paralib.experiments.plotspec`).

A table plot draws ours (solid) against the paper (dashed), one colour per series, for tables
where a curve says more than the numbers (mega-batch size M, years, length ranges): the left
panel shows the numbers, the right one each line relative to its first point (the direction,
whatever the level). An ``over`` plot draws every value behind a computed cell (each fold's
mean over the models, 2018 §5.4 Table 5); a ``scatter`` plot the runs behind a correlation
(2019 §4.2 Figure 1). The ``draw_*`` functions return the figure; :func:`plot_experiment`
writes it.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

from paralib.evaluate.plots import pyplot, save_figure
from paralib.experiments.aggregate import (
    aggregate,
    correlation_name,
    correlation_points,
    reduce_parts,
    step_parts,
)
from paralib.experiments.plotspec import OverPlot, ScatterPlot, TablePlot
from paralib.experiments.records import AnyRecords, as_records
from paralib.experiments.spec import Experiment
from paralib.experiments.table import TableData

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _number(label: str) -> float | None:
    """The first number in a label (``M=40`` → 40, ``0-10`` → 0, ``-1.5`` → -1.5); a hyphen
    is a minus sign only at the start or after a space, ``=`` or ``(`` (``fold-1`` → 1)."""
    m = _NUMBER.search(label)
    if m is None:
        return None
    i = m.start()
    minus = i > 0 and label[i - 1] == "-" and (i == 1 or label[i - 2] in " =(")
    return -float(m.group()) if minus else float(m.group())


def positions(labels: list[str]) -> list[float]:
    """x positions of labels: their numbers when every label has one and no two are the same
    (``M=1, M=20, M=40`` → 1, 20, 40), else 0, 1, 2, …"""
    numbers = [_number(label) for label in labels]
    if None in numbers or len(set(numbers)) != len(numbers):
        return [float(i) for i in range(len(labels))]
    return [float(n) for n in numbers if n is not None]


def plot_experiment(exp: Experiment, table: TableData, records: AnyRecords, path: Path) -> Path:
    """Draw the experiment's plot (``exp.plot``) and write it to ``path`` (PNG)."""
    title = f"{exp.title} ({exp.paper.table})"
    spec = exp.plot
    if isinstance(spec, TablePlot):
        fig = draw_table(table, spec, title)
    elif isinstance(spec, OverPlot):
        fig = draw_over(exp, table, records, spec, title)
    elif isinstance(spec, ScatterPlot):
        fig = draw_scatter(exp, records, spec, title)
    else:
        raise ValueError(f"experiment {exp.name} has no plot")
    return save_figure(fig, path, dpi=110)


def draw_table(table: TableData, spec: TablePlot, title: str) -> Figure:
    """Ours (solid) against the paper (dashed) per series; numbers left, relative right."""
    plt = pyplot()
    xs = spec.only or (table.rows if spec.x == "rows" else table.columns)
    series = spec.series or (table.columns if spec.x == "rows" else table.rows)
    pos = positions(xs)
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.2))
    for k, s in enumerate(series):
        cells = [table.cells[(x, s) if spec.x == "rows" else (s, x)] for x in xs]
        colour = f"C{k % 10}"
        for attr, style, who in (("ours", "-", "ours"), ("paper", "--", "paper")):
            pts = [(p, getattr(c, attr)) for p, c in zip(pos, cells, strict=True)
                   if getattr(c, attr) is not None]
            if not pts:
                continue
            kw = {"marker": "o", "color": colour, "label": f"{s} ({who})",
                  "alpha": 1.0 if who == "ours" else 0.6}
            axes[0].plot(*zip(*pts, strict=True), style, **kw)
            first = pts[0][1]
            rel = [(p, v / first if spec.log else v - first) for p, v in pts]
            axes[1].plot(*zip(*rel, strict=True), style, **kw)
    rel_label = (f"ratio to {xs[0]}" if spec.log else f"change from {xs[0]}")
    for ax, ylabel, name in ((axes[0], spec.ylabel, title), (axes[1], rel_label,
                                                             "the same, relative")):
        ax.set_xticks(pos)
        ax.set_xticklabels(xs, rotation=0 if len(xs) < 7 else 30)
        ax.set(xlabel=spec.xlabel, ylabel=ylabel, title=name)
        if spec.log:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))
    return fig


def draw_over(exp: Experiment, table: TableData, records: AnyRecords, spec: OverPlot,
              title: str) -> Figure:
    """A line per row through the values of its cell's outermost step, at the step's labels
    (a value without a result, or one the step's ``where`` leaves out, is a gap), the value
    the cell chose ringed. The paper reports only the cell (the best fold), so its number is
    in the legend: a level line on the same axis would squash the curves whenever ours sit
    far from it."""
    plt, records = pyplot(), as_records(records)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    labels: list[str] = []
    pos: dict[str, float] = {}
    for k, row in enumerate(table.rows):
        ref = exp.ours.cell(row, spec.column)
        if ref is None:
            continue
        step = ref.aggregate[-1]
        if not labels:  # OverPlot.check: every row's step goes over the same values
            labels = exp.axis_values(step)
            pos = dict(zip(labels, positions(labels), strict=True))
        factor = exp.ours.factor(spec.column) * ref.scale
        parts = step_parts(exp, ref, records, factor)
        values = {v: a.value for v, a in parts}
        ys = [values[v] * factor if values.get(v) is not None else math.nan for v in labels]
        paper = table.cells[(row, spec.column)].paper
        colour = f"C{k % 10}"
        ax.plot(list(pos.values()), ys, "-o", color=colour, label=f"{row} (ours)" + (
            f"; the paper's {step.how} over {step.over}: {paper:g}" if paper is not None
            else ""))
        chosen = reduce_parts(step, parts, factor).chosen
        if chosen is not None:
            ax.plot(pos[chosen], values[chosen] * factor, "o", ms=13, mfc="none",
                    color=colour)
    ax.set_xticks(list(pos.values()))
    ax.set_xticklabels(labels)
    ax.set(xlabel=spec.xlabel, ylabel=spec.ylabel, title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))
    return fig


def draw_scatter(exp: Experiment, records: AnyRecords, spec: ScatterPlot, title: str) -> Figure:
    """One labelled point per run of the correlation cell; the title gives the cell's value
    as the table does (n/a, with the reason, below the step's ``min_runs``), and the runs
    without both numbers are named under the axis."""
    plt, records = pyplot(), as_records(records)
    ref = exp.ours.cell(spec.row, spec.column)
    if ref is None:  # ScatterPlot.check refuses absent rows and unavailable columns
        raise ValueError(f"plot: cell ({spec.row}, {spec.column}) has no runs")
    step = ref.aggregate[0]
    points, left = correlation_points(step, exp, ref, records)
    fig, ax = plt.subplots(figsize=(7, 5))
    for v, x, y in points:
        ax.plot(x, y, "o", color="C0")
        ax.annotate(v, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    cell = aggregate(exp, ref, records)
    value = f"{cell.value:.3f}" if cell.value is not None else f"n/a ({cell.why})"
    ax.set(xlabel=spec.xlabel + (f"\n(no result: {', '.join(left)})" if left else ""),
           ylabel=spec.ylabel,
           title=f"{title}\n{spec.row}: {correlation_name(step.how)} = {value} over "
                 f"{len(points)} run(s)")
    ax.grid(alpha=0.3)
    return fig
