"""The experiment plot: ours (solid) against the paper (dashed), one colour per series, for
tables where a curve says more than the numbers (mega-batch size M, years, length ranges).
The left panel shows the numbers, the right one each line relative to its first point (the
direction, whatever the level)."""

from __future__ import annotations

import re
from pathlib import Path

from paralib.experiments.spec import PlotSpec
from paralib.experiments.table import TableData


def _position(label: str, i: int) -> float:
    """A label's x position: its number when it has one (``M=40`` → 40), else its index."""
    m = re.search(r"-?\d+(\.\d+)?", label)
    return float(m.group()) if m else float(i)


def plot_table(table: TableData, spec: PlotSpec, title: str, path: Path) -> Path:
    """Write the plot to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
