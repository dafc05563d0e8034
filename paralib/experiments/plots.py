"""The experiment plot, of the kind its file names (:mod:`paralib.experiments.plotspec`).

A table plot draws ours (solid) against the paper (dashed), one colour per series, for tables
where a curve says more than the numbers (mega-batch size M, years, length ranges): the left
panel shows the numbers, the right one each line relative to its first point (the direction,
whatever the level). An ``over`` plot draws every value behind a computed cell (each fold's
mean over the models, 2018 Table 5); a ``scatter`` plot the runs behind a correlation (2019
§4.2 Figure 1).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from paralib.experiments.aggregate import correlation_points, rank_correlation, step_parts
from paralib.experiments.plotspec import OverPlot, PlotSpec, ScatterPlot, TablePlot
from paralib.experiments.spec import Experiment
from paralib.experiments.table import TableData

Records = dict[str, dict[str, Any]]


def _position(label: str, i: int) -> float:
    """A label's x position: its number when it has one (``M=40`` → 40), else its index."""
    m = re.search(r"-?\d+(\.\d+)?", label)
    return float(m.group()) if m else float(i)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    _pyplot().close(fig)
    return path


def plot_experiment(exp: Experiment, table: TableData, records: Records, path: Path) -> Path:
    """Write the experiment's plot (``exp.plot``) to ``path`` (PNG)."""
    spec: PlotSpec | None = exp.plot
    title = f"{exp.title} ({exp.paper.table})"
    if isinstance(spec, TablePlot):
        return plot_table(table, spec, title, path)
    if isinstance(spec, OverPlot):
        return plot_over(exp, table, records, spec, title, path)
    if isinstance(spec, ScatterPlot):
        return plot_scatter(exp, records, spec, title, path)
    raise ValueError(f"experiment {exp.name} has no plot")


def plot_table(table: TableData, spec: TablePlot, title: str, path: Path) -> Path:
    """Write the table plot to ``path`` (PNG)."""
    plt = _pyplot()
    xs = spec.only or (table.rows if spec.x == "rows" else table.columns)
    series = spec.series or (table.columns if spec.x == "rows" else table.rows)
    numeric = all(re.search(r"\d", x) for x in xs)
    pos = [_position(x, i) if numeric else float(i) for i, x in enumerate(xs)]
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
    return _save(fig, path)


def plot_over(exp: Experiment, table: TableData, records: Records, spec: OverPlot, title: str,
              path: Path) -> Path:
    """A line per row through the values of its cell's outermost step (a value without a
    result is a gap), the value the cell chose ringed. The paper reports only the cell (the
    best fold), so its number is in the legend: a level line on the same axis would squash
    the curves whenever ours sit far from it."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5))
    labels: list[str] = []
    for k, row in enumerate(table.rows):
        ref = exp.ours.cell(row, spec.column)
        if ref is None:
            continue
        factor = exp.ours.factor(spec.column) * ref.scale
        parts = step_parts(exp, ref, records, factor)
        labels = labels or [v for v, _ in parts]
        xs = [_position(v, i) for i, (v, _) in enumerate(parts)]
        ys = [a.value * factor if a.value is not None else float("nan") for _, a in parts]
        step = ref.aggregate[-1]
        paper = table.cells[(row, spec.column)].paper
        colour = f"C{k % 10}"
        ax.plot(xs, ys, "-o", color=colour, label=f"{row} (ours)" + (
            f"; the paper's {step.how} over {step.over}: {paper:g}" if paper is not None
            else ""))
        have = [(x, y) for x, y in zip(xs, ys, strict=True) if math.isfinite(y)]
        if have and step.how in ("max", "min"):  # the value the cell chose
            pick = max if step.how == "max" else min
            ax.plot(*pick(have, key=lambda p: p[1]), "o", ms=13, mfc="none", color=colour)
    if labels:
        ax.set_xticks([_position(v, i) for i, v in enumerate(labels)])
        ax.set_xticklabels(labels)
    ax.set(xlabel=spec.xlabel, ylabel=spec.ylabel, title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))
    return _save(fig, path)


def plot_scatter(exp: Experiment, records: Records, spec: ScatterPlot, title: str,
                 path: Path) -> Path:
    """One labelled point per run of the correlation cell, with the correlation in the
    title (the runs without both numbers are named under the axis)."""
    plt = _pyplot()
    ref = exp.ours.cell(spec.row, spec.column)
    assert ref is not None  # ScatterPlot.check
    step = ref.aggregate[0]
    points, left = correlation_points(step, exp, ref, records)
    fig, ax = plt.subplots(figsize=(7, 5))
    for v, x, y in points:
        ax.plot(x, y, "o", color="C0")
        ax.annotate(v, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    name = "Spearman's ρ" if step.how == "spearman" else "Pearson's r"
    value = (rank_correlation([p[1] for p in points], [p[2] for p in points], step.how)
             if len(points) >= 2 else float("nan"))
    ax.set(xlabel=spec.xlabel + (f"\n(no result: {', '.join(left)})" if left else ""),
           ylabel=spec.ylabel,
           title=f"{title}\n{spec.row}: {name} = {value:.3f} over {len(points)} run(s)")
    ax.grid(alpha=0.3)
    return _save(fig, path)
