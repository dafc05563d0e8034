"""Bar charts of the report: one bar per model, grouped by dataset (matplotlib, Agg, PNG)."""

from __future__ import annotations

import re
from operator import itemgetter, methodcaller
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from paralib.contracts import TaskReport

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Values = dict[str, dict[str, float | None]]  # model -> category -> value


def _ok(entry: dict | None) -> bool:
    return bool(entry) and entry.get("status") == "ok"


PEARSON = methodcaller("get", "pearson")
# suite -> (title, y label, the plotted number of one ok set)
CHARTS = {
    "sts": ("STS 2012-2016 per dataset", "Pearson's r × 100", PEARSON),
    "stsb": ("STS Benchmark", "Pearson's r × 100", PEARSON),
    "sick": ("SICK relatedness", "Pearson's r × 100", PEARSON),
    "sts17": ("STS 2017", "Pearson's r × 100", PEARSON),
    "detection": ("Paraphrase detection, MLP on [u, v]", "accuracy (%)",
                  lambda e: (e["features"].get("concat") or e["features"].get("score"))
                  ["accuracy"]),
    "tatoeba": ("Tatoeba retrieval xx→en", "accuracy (%)", itemgetter("xx->en")),
    "xnli": ("XNLI dev retrieval xx→en", "accuracy (%)", itemgetter("xx->en")),
    "bucc": ("BUCC 2018 mining", "F1 × 100", lambda e: e["test"]["f1"]),
    "speed": ("Encoding speed", "sentences / s", itemgetter("sentences_per_s")),
}


def plot_values(suite: str, task: TaskReport) -> tuple[str, str, Values] | None:
    """(title, y label, values) of a task's plot, or None when it has none."""
    if suite not in CHARTS:
        return None
    title, ylabel, value = CHARTS[suite]
    vals: Values = {m: {s: value(e) for s, e in res.get("sets", {}).items() if _ok(e)}
                    for m, res in task.models.items()}
    if not any(v is not None for d in vals.values() for v in d.values()):
        return None
    return title, ylabel, vals


def pyplot() -> ModuleType:
    """``matplotlib.pyplot`` on the headless Agg backend, imported on first use (every report
    of paralib draws with it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Figure, path: Path, dpi: int = 80) -> Path:
    """Lay ``fig`` out, write it to ``path`` (PNG, its folder created) and close it."""
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path


def bar_chart(title: str, ylabel: str, values: Values, path: Path) -> Path:
    """Grouped bars: categories on the x axis, one colour per model; saved as PNG."""
    plt = pyplot()
    cats = list(dict.fromkeys(c for d in values.values() for c in d))
    models = list(values)
    width = 0.8 / max(len(models), 1)
    fig, ax = plt.subplots(figsize=(min(16.0, 2.5 + len(cats) * (0.3 + 0.12 * len(models))),
                                    4.5))
    x = np.arange(len(cats))
    for i, m in enumerate(models):
        ys = [values[m].get(c) for c in cats]
        ax.bar(x + (i - (len(models) - 1) / 2) * width,
               [np.nan if y is None else y for y in ys], width, label=m)
    ax.set_xticks(x, cats, rotation=60 if len(cats) > 4 else 0, ha="right" if len(cats) > 4
                  else "center", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.axhline(0, color="black", linewidth=0.5)
    if len(models) > 1:
        ax.legend(fontsize=8)
    return save_figure(fig, path)


def plot_name(suite: str) -> str:
    """File name of a task's plot."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", suite) + ".png"
