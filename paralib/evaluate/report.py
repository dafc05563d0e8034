"""The evaluation report: ``report.json`` (every number of the run), ``report.md`` and
``report.html`` (the tables of :mod:`paralib.evaluate.tables` and the plots of
:mod:`paralib.evaluate.plots`). Nothing in the report is typed in: every number comes from the
results of the evaluation stage (:func:`paralib.evaluate.run.run`).
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any

from paralib.contracts import EvalReport
from paralib.evaluate.plots import bar_chart, plot_name, plot_values
from paralib.evaluate.tables import TABLES, Table, status_notes

REPORT_JSON, REPORT_MD, REPORT_HTML, PLOTS = "report.json", "report.md", "report.html", "plots"


def clean(obj: Any) -> Any:
    """JSON-safe copy: NaN and infinities become null, numpy scalars Python numbers."""
    if isinstance(obj, dict):
        return {str(k): clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, (str, bytes)):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def sections(report: dict | EvalReport, out: Path | None = None) -> list[dict]:
    """One section per task: title, paper, notes, tables and (when ``out``) its plot."""
    result = []
    for suite, entry in EvalReport.load(report).tasks.items():
        tables: list[Table] = TABLES[suite](entry) if entry.models else []
        plot = None
        spec = plot_values(suite, entry)
        if out is not None and spec is not None:
            plot = f"{PLOTS}/{plot_name(suite)}"
            bar_chart(*spec, out / plot)
        result.append({"suite": suite, "title": entry.title, "paper": entry.paper,
                       "notes": entry.notes, "status": status_notes(entry),
                       "tables": tables, "plot": plot})
    return result


def _models_table(report: EvalReport) -> Table:
    rows = [[name, m.kind, m.description,
             "any" if m.languages is None else ", ".join(m.languages)]
            for name, m in report.models.items()]
    return Table("Models", ["Model", "Kind", "Description", "Languages"], rows)


def _md_table(t: Table) -> str:
    def esc(s: str) -> str:
        return str(s).replace("|", "\\|").replace("\n", " ")

    lines = [f"**{t.title}**", "", "| " + " | ".join(esc(h) for h in t.header) + " |",
             "|" + "|".join("---" for _ in t.header) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in t.rows]
    lines += [f"\n{n}" for n in t.notes]
    return "\n".join(lines)


def markdown(report: EvalReport, secs: list[dict]) -> str:
    """The Markdown report."""
    parts = ["# paralib evaluation", "", f"Data: `{report.data}`; suites: "
             f"{', '.join(report.suites)}; seed {report.seed}.", "",
             _md_table(_models_table(report))]
    for s in secs:
        parts += ["", f"## {s['title']}", "", f"*{s['paper']}*", ""]
        parts += [f"- {n}" for n in s["notes"]]
        for t in s["tables"]:
            parts += ["", _md_table(t)]
        if s["plot"]:
            parts += ["", f"![{s['title']}]({s['plot']})"]
        if s["status"]:
            parts += [""] + [f"- {n}" for n in s["status"]]
    return "\n".join(parts) + "\n"


def _html_table(t: Table) -> str:
    e = html.escape
    head = "".join(f"<th>{e(str(h))}</th>" for h in t.header)
    body = "".join("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>"
                   for row in t.rows)
    notes = "".join(f"<p class='note'>{e(n)}</p>" for n in t.notes)
    return (f"<h3>{e(t.title)}</h3><table><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>{notes}")


def to_html(report: EvalReport, secs: list[dict]) -> str:
    """The HTML report (plots referenced as ``plots/*.png`` next to it)."""
    e = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'>",
             "<title>paralib evaluation</title><style>body{font-family:sans-serif;margin:2em}"
             "table{border-collapse:collapse;margin:0.5em 0}td,th{padding:2px 8px;"
             "border-bottom:1px solid #ddd;text-align:left}.note{color:#555}"
             ".status{color:#a40}</style></head><body>",
             "<h1>paralib evaluation</h1>",
             f"<p>Data: <code>{e(report.data)}</code>; suites: "
             f"{e(', '.join(report.suites))}; seed {report.seed}.</p>",
             _html_table(_models_table(report))]
    for s in secs:
        parts += [f"<h2 id='{e(s['suite'])}'>{e(s['title'])}</h2>",
                  f"<p><em>{e(s['paper'])}</em></p>",
                  "<ul>" + "".join(f"<li>{e(n)}</li>" for n in s["notes"]) + "</ul>"]
        parts += [_html_table(t) for t in s["tables"]]
        if s["plot"]:
            parts.append(f"<img src='{e(s['plot'])}' alt='{e(s['title'])}'>")
        if s["status"]:
            parts.append("<ul class='status'>" +
                         "".join(f"<li>{e(n)}</li>" for n in s["status"]) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(report: dict | EvalReport, out: str | Path) -> dict[str, Any]:
    """Write ``report.json``, ``report.md``, ``report.html`` and ``plots/`` into ``out``;
    returns their paths (``plots``: suite → PNG)."""
    report = EvalReport.load(report)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    secs = sections(report, folder)
    files: dict[str, Any] = {"json": str(folder / REPORT_JSON), "markdown": str(folder / REPORT_MD),
             "html": str(folder / REPORT_HTML)}
    (folder / REPORT_MD).write_text(markdown(report, secs), encoding="utf-8")
    (folder / REPORT_HTML).write_text(to_html(report, secs), encoding="utf-8")
    files["plots"] = {s["suite"]: str(folder / s["plot"]) for s in secs if s["plot"]}
    (folder / REPORT_JSON).write_text(json.dumps(clean({**report.dump(), "files": files}),
                                                 indent=2, ensure_ascii=False),
                                      encoding="utf-8")
    return files
