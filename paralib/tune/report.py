"""The tuning report: ``report.json`` (everything), ``report.md`` and ``report.html`` (the
trial table, the best configuration with its test results, the plots) and ``plots/*.png``:
the dev metric against each searched parameter (as in 2017 Tables 5-7 and §5.7's
threshold discussion) and every trial's learning curve (ASHA's stops show as short curves).
"""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path
from typing import Any

from paralib.contracts import Searched, TrialRecord, TuneSummary
from paralib.evaluate.plots import pyplot, save_figure
from paralib.io import fs
from paralib.tune.results import best_of


def _fmt(value: Any, spec: str = ".2f") -> str:
    """A value for the report: floats by ``spec``, whole floats as integers."""
    if value is None:
        return "–"
    if isinstance(value, float):
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        return f"{value:{spec}}" if not value.is_integer() or abs(value) >= 1e4 \
            else f"{value:g}"
    if isinstance(value, list):
        return "[" + ", ".join(_fmt(v, spec) for v in value) + "]"
    return str(value)


def _status(t: TrialRecord, asha: bool) -> str:
    if t.status == "error":
        return f"error: {t.error}"
    if t.status == "stopped":
        return f"stopped by {'ASHA' if asha else 'Tune'} after epoch {t.epochs_run}"
    return "completed"


def status_counts(summary: TuneSummary) -> dict[str, int]:
    """How many trials ``completed``, were ``stopped`` (by ASHA) or failed (``error``)."""
    return {s: sum(t.status == s for t in summary.trials)
            for s in ("completed", "stopped", "error")}


def trial_rows(summary: TuneSummary) -> tuple[list[str], list[list[str]]]:
    """The trial table (header, rows), best dev first."""
    metric, mode = summary.metric, summary.mode
    names = [p.name for p in summary.parameters]
    header = ["trial", *names, "pairs", "epochs", f"best {metric} (epoch)", "status"]
    rows = []
    sign = -1 if mode == "max" else 1
    bests = [(t, best_of(t.history, metric, mode)) for t in summary.trials]
    for t, b in sorted(bests, key=lambda tb: sign * tb[1][metric] if tb[1] else math.inf):
        best = f"{b[metric]:.2f} ({b.epoch})" if b else "–"
        rows.append([t.trial_id, *[_fmt(t.params.get(n), ".3g") for n in names],
                     _fmt(t.pairs if "pairs" in t.model_fields_set else t.selected_pairs),
                     f"{t.epochs_run}/{t.epochs_planned}",
                     best, _status(t, summary.asha.enabled)])
    return header, rows


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _plot_parameter(summary: TuneSummary, param: Searched, path: Path) -> None:
    plt = pyplot()
    metric, mode = summary.metric, summary.mode
    fig, ax = plt.subplots(figsize=(6, 3.6))
    categorical = param.values is not None and any(
        not isinstance(v, (int, float)) or isinstance(v, bool) or
        (isinstance(v, float) and math.isinf(v)) for v in param.values)
    labels = [_fmt(v) for v in param.values or []] if categorical else []
    for status, marker, face in (("completed", "o", "C0"), ("stopped", "o", "none")):
        xs, ys = [], []
        for t in summary.trials:
            b = best_of(t.history, metric, mode)
            if t.status != status or b is None:
                continue
            v = t.params.get(param.name)
            xs.append(labels.index(_fmt(v)) if categorical else v)
            ys.append(b[metric])
        if xs:
            ax.scatter(xs, ys, marker=marker, facecolors=face, edgecolors="C0", s=40,
                       label="completed" if status == "completed" else "stopped by ASHA")
    if categorical:
        ax.set_xticks(range(len(labels)), labels, rotation=45 if len(labels) > 6 else 0,
                      ha="right" if len(labels) > 6 else "center")
    elif param.kind == "loguniform":
        ax.set_xscale("log")
    ax.set(xlabel=param.name, ylabel=f"best {metric}", title=f"{metric} against {param.name}")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    save_figure(fig, path, dpi=110)


def _plot_curves(summary: TuneSummary, path: Path) -> None:
    plt = pyplot()
    metric = summary.metric
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for t in summary.trials:
        pts = [(h.epoch, h[metric]) for h in t.history if getattr(h, metric, None) is not None]
        if not pts:
            continue
        x, y = zip(*pts, strict=True)
        ax.plot(x, y, marker="o", ls="--" if t.status == "stopped" else "-",
                label=t.trial_id[-5:])
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set(xlabel="epoch", ylabel=metric, title=f"{metric} per epoch (dashed: stopped by ASHA)")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0] and len(summary.trials) <= 12:
        ax.legend(fontsize=7, ncol=2)
    save_figure(fig, path, dpi=110)


def write_plots(summary: TuneSummary, out: Path) -> list[Path]:
    """One PNG per searched parameter plus the learning curves."""
    plots = out / "plots"
    plots.mkdir(parents=True, exist_ok=True)
    files = [plots / f"{_slug(p.name)}.png" for p in summary.parameters]
    for param, f in zip(summary.parameters, files, strict=True):
        _plot_parameter(summary, param, f)
    _plot_curves(summary, plots / "curves.png")
    return [*files, plots / "curves.png"]


def _best_lines(summary: TuneSummary) -> list[tuple[str, str]]:
    best, metric = summary.best, summary.metric
    if best is None:
        return [("best", "no trial reported the metric")]
    rows = [("trial", best["trial_id"]), ("epoch", _fmt(best["epoch"])),
            (f"dev {metric}", _fmt(best[metric]))]
    rows += [(k, _fmt(v, ".3g")) for k, v in best["params"].items()]
    for name, value in (summary.test.results if summary.test else {}).items():
        rows.append((f"test: {name}", _fmt(value)))
    return rows


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    def esc(s: str) -> str:
        return s.replace("|", "\\|")
    return ["| " + " | ".join(map(esc, header)) + " |",
            "| " + " | ".join("---" for _ in header) + " |",
            *("| " + " | ".join(map(esc, r)) + " |" for r in rows)]


def _headline(summary: TuneSummary) -> str:
    n, counts = len(summary.trials), status_counts(summary)
    return (f"{summary.search} search over {', '.join(p.name for p in summary.parameters)}"
            f" ({summary.space}): {n} trials, {counts['completed']} completed, "
            f"{counts['stopped']} stopped by ASHA, {counts['error']} failed; "
            f"{summary.concurrent} at a time; {summary.seconds:.0f} s.")


def write_markdown(summary: TuneSummary, out: Path, plots: list[Path]) -> Path:
    header, rows = trial_rows(summary)
    lines = [f"# Tuning report: {summary.name}", "", summary.description or "", "",
             _headline(summary), "", "## Best configuration", "",
             *_md_table(["", "value"], [list(r) for r in _best_lines(summary)]), ""]
    if summary.test:
        lines += [f"Test suites evaluated once on the best model: "
                  f"{', '.join(summary.test.suites)} (details: `evaluate/report.md`).", ""]
    lines += ["## Trials", "", *_md_table(header, rows), "", "## Plots", ""]
    lines += [f"![{p.stem}](plots/{p.name})" for p in plots]
    lines += ["", f"Results and TensorBoard logs: `{summary.experiment}` "
              f"(`{summary.tensorboard}`).", ""]
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                   for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def write_html(summary: TuneSummary, out: Path, plots: list[Path]) -> Path:
    header, rows = trial_rows(summary)
    imgs = "".join(f'<img src="plots/{p.name}" alt="{html.escape(p.stem)}">' for p in plots)
    test = ""
    if summary.test:
        test = (f"<p>Test suites evaluated once on the best model: "
                f"{html.escape(', '.join(summary.test.suites))} "
                f'(<a href="evaluate/report.html">evaluation report</a>).</p>')
    page = f"""<!doctype html><html><head><meta charset="utf-8">
<title>Tuning report: {html.escape(summary.name)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:75em}}
table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:3px 8px;
font-size:90%;text-align:left}}img{{max-width:48%;margin:4px}}</style></head><body>
<h1>Tuning report: {html.escape(summary.name)}</h1>
<p>{html.escape(summary.description or '')}</p><p>{html.escape(_headline(summary))}</p>
<h2>Best configuration</h2>{_html_table(['', 'value'], [list(r) for r in _best_lines(summary)])}
{test}<h2>Trials</h2>{_html_table(header, rows)}<h2>Plots</h2>{imgs}
<p>Results and TensorBoard logs: <code>{html.escape(summary.experiment)}</code>
(<code>{html.escape(summary.tensorboard)}</code>).</p></body></html>"""
    path = out / "report.html"
    path.write_text(page, encoding="utf-8")
    return path


def write_report(summary: TuneSummary, out: str | Path, at: str | None = None
                 ) -> dict[str, str]:
    """Write ``report.json`` (the summary), ``report.md``, ``report.html`` and ``plots/`` into
    ``out``; the summary's ``files`` name them there, or in ``at`` (where ``out`` goes)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plots = write_plots(summary, out)
    made = {"json": out / "report.json", "markdown": write_markdown(summary, out, plots),
            "html": write_html(summary, out, plots), "plots": out / "plots"}
    summary.files = {k: fs.join(at, p.name) if at else str(p) for k, p in made.items()}
    (out / "report.json").write_text(json.dumps(summary.dump(), indent=2, default=str),
                                     encoding="utf-8")
    return summary.files
