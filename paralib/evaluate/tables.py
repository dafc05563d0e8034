"""The report's tables, in the papers' layouts, built from the results of a run.

A :class:`Table` is a title, a header, rows of cells and notes; :mod:`paralib.evaluate.report`
renders it as Markdown and HTML. Numbers are formatted here (one decimal, as the papers);
a cell without a number shows the status (``missing``, ``skipped``, ``n/a``, ``error``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from paralib.contracts import TaskReport
from paralib.evaluate.loaders import STS_YEARS


@dataclass
class Table:
    """One table of the report."""

    title: str
    header: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)


def num(value: Any, digits: int = 1) -> str:
    """A number with ``digits`` decimals; ``-`` for a missing one."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def cell(entry: dict | None, key: str, digits: int = 1) -> str:
    """The number ``entry[key]`` or, when the entry is not ok, its status."""
    if entry is None:
        return "-"
    if entry.get("status", "ok") != "ok":
        return entry["status"]
    return num(entry.get(key), digits)


def pair_cell(entry: dict | None, a: str, b: str) -> str:
    """``a / b`` of an ok entry, else its status."""
    if entry is None or entry.get("status", "ok") != "ok":
        return cell(entry, a)
    return f"{num(entry.get(a))} / {num(entry.get(b))}"


def _set(result: dict, name: str) -> dict:
    """The per-set entry, or the model-level status when the task did not run on sets."""
    if "sets" in result and name in result["sets"]:
        return result["sets"][name]
    if result.get("status") != "ok":
        return {"status": result.get("status", "error")}
    return {"status": "-"}


def sts_tables(task: TaskReport) -> list[Table]:
    """2018 Table 8 (year means, Pearson and Spearman) and every dataset."""
    years = [str(y) for y in STS_YEARS]
    out = []
    for metric, sym in (("pearson", "Pearson's r × 100"), ("spearman", "Spearman's ρ × 100")):
        rows = []
        for m, res in task.models.items():
            if res.get("status") != "ok":
                rows.append([m] + [res.get("status", "error")] * (len(years) + 1))
                continue
            rows.append([m] + [num(res["years"][y][metric]) for y in years] +
                        [num(res["all"][metric])])
        out.append(Table(f"STS 2012-2016, mean per year ({sym})", ["Model", *years, "All"],
                         rows))
    sets = list(next(iter(task.models.values()), {}).get("sets", {}))
    names = list(task.models)
    rows = [[s] + [pair_cell(_set(task.models[m], s), "pearson", "spearman") for m in names]
            for s in sets]
    out.append(Table("STS 2012-2016 per dataset (r / ρ × 100)", ["Dataset", *names], rows))
    return out


def split_table(task: TaskReport, title: str) -> list[Table]:
    """STS Benchmark (2018 Table 9) or SICK: r and ρ per split."""
    sets = list(next(iter(task.models.values()), {}).get("sets", {}))
    header = ["Model"] + [f"{s} {k}" for s in sets for k in ("r", "ρ")]
    rows = [[m] + [cell(_set(res, s), k) for s in sets for k in ("pearson", "spearman")]
            for m, res in task.models.items()]
    return [Table(title, header, rows)]


def sts17_tables(task: TaskReport) -> list[Table]:
    """2019 Table 2: Pearson's r × 100 per track (Spearman's ρ in a second table)."""
    tracks = list(next(iter(task.models.values()), {}).get("sets", {}))
    out = []
    for metric, sym in (("pearson", "Pearson's r × 100"), ("spearman", "Spearman's ρ × 100")):
        rows = [[m] + [cell(_set(res, t), metric) for t in tracks]
                for m, res in task.models.items()]
        out.append(Table(f"STS 2017 ({sym})", ["Model", *tracks], rows))
    return out


def detection_tables(task: TaskReport) -> list[Table]:
    """Accuracy / F1 × 100 per set and feature set (Opusparcus Tables 2 and 7)."""
    from paralib.evaluate.detection import FEATURES

    sets = list(task.data)
    labels = {**FEATURES, "score": "score"}
    rows = []
    for m, res in task.models.items():
        kinds = list(dict.fromkeys(k for s in sets for k in _set(res, s).get("features", {})))
        for k in kinds or ["concat"]:
            row = [f"{m} {labels[k]}"]
            for s in sets:
                e = _set(res, s)
                row.append(pair_cell(e.get("features", {}).get(k), "accuracy", "f1")
                           if e.get("status") == "ok" else e.get("status", "-"))
            rows.append(row)
    base = ["all paraphrases"]
    for s in sets:
        found = [_set(r, s)["all_paraphrases"] for r in task.models.values()
                 if _set(r, s).get("status") == "ok"]
        base.append(pair_cell(found[0], "accuracy", "f1") if found else "-")
    rows.append(base)
    return [Table("Paraphrase detection (accuracy / F1 × 100)", ["Model (features)", *sets], rows)]


def tatoeba_tables(task: TaskReport, title: str = "Tatoeba") -> list[Table]:
    """Retrieval accuracy xx→en / en→xx (%) per language."""
    langs = list(dict.fromkeys(s for res in task.models.values() for s in res.get("sets", {})))
    rows = [[m] + [pair_cell(_set(res, s), "xx->en", "en->xx") for s in langs]
            for m, res in task.models.items()]
    return [Table(f"{title} retrieval accuracy (%, xx→en / en→xx)", ["Model", *langs],
                  rows)]


def bucc_tables(task: TaskReport) -> list[Table]:
    """2019 Table 3 (F1) and the precision / recall / threshold behind it."""
    pairs = list(task.data)
    f1 = [[m] + [_test(_set(res, p), "f1") for p in pairs] for m, res in task.models.items()]
    detail = []
    for m, res in task.models.items():
        for p in pairs:
            e = _set(res, p)
            if e.get("status") != "ok":
                detail.append([m, p, e.get("status", "-")] + ["-"] * 6)
                continue
            detail.append([m, p, num(e["threshold"], 3), num(e["test"]["precision"]),
                           num(e["test"]["recall"]), num(e["test"]["f1"]),
                           num(e["oracle_test_f1"]), num(e["gold_tune"]), num(e["gold_test"])])
    return [Table("BUCC 2018 mining F1 × 100 (second half of the sample gold)", ["Model", *pairs],
                  f1),
            Table("BUCC 2018 details", ["Model", "Pair", "Threshold", "P", "R", "F1",
                                        "Oracle F1", "Gold (tune)", "Gold (test)"], detail)]


def _test(entry: dict, key: str) -> str:
    return num(entry["test"][key]) if entry.get("status") == "ok" else entry.get("status", "-")


def neighbours_tables(task: TaskReport) -> list[Table]:
    """Opusparcus Tables 4-5: the closest sentences to each query, models side by side."""
    out = []
    queries: dict[tuple[str, str], dict[str, list]] = {}
    for m, res in task.models.items():
        for lang, e in res.get("sets", {}).items():
            if e.get("status") != "ok":
                continue
            for q in e["queries"]:
                queries.setdefault((lang, q["query"]), {})[m] = q["neighbours"]
    for (lang, query), by_model in queries.items():
        names = list(by_model)
        depth = max(len(v) for v in by_model.values())
        rows = [[str(i + 1)] + [f"{by_model[m][i][0]} ({by_model[m][i][1]:.2f})"
                                if i < len(by_model[m]) else "" for m in names]
                for i in range(depth)]
        out.append(Table(f"Nearest neighbours of “{query}” ({lang})", ["#", *names], rows))
    return out


def speed_tables(task: TaskReport) -> list[Table]:
    """2019 Table 4: sentences per second."""
    rows = []
    for m, res in task.models.items():
        e = _set(res, "multi30k-en")
        if e.get("status") != "ok":
            rows.append([m, e.get("status", "-"), "-", "-", "-", "-"])
            continue
        rows.append([m, num(e["dim"]), num(e["sentences_per_s"], 0), num(e["sentences"]),
                     num(e["seconds"], 2), num(e["torch_threads"])])
    return [Table("Encoding speed", ["Model", "Dim", "Sentences/Sec.", "Sentences", "Seconds",
                                     "Torch threads"], rows)]


TABLES = {
    "sts": sts_tables,
    "stsb": lambda t: split_table(t, "STS Benchmark (× 100)"),
    "sick": lambda t: split_table(t, "SICK relatedness (× 100)"),
    "sts17": sts17_tables,
    "detection": detection_tables,
    "tatoeba": tatoeba_tables,
    "bucc": bucc_tables,
    "neighbours": neighbours_tables,
    "speed": speed_tables,
    "xnli": lambda t: tatoeba_tables(t, "XNLI dev"),
}


def status_notes(task: TaskReport) -> list[str]:
    """One line per missing file, and per model and reason for skipped / failed sets."""
    notes = []
    for name, d in task.data.items():
        if d.status == "missing":
            notes.append(f"Missing data ({name}): {d.message}")
    if task.error:
        notes.append(f"The task failed: {task.error}")
    for m, res in task.models.items():
        if res.get("status") in ("n/a", "skipped", "error") and not res.get("sets"):
            needs = f" (needs {', '.join(res['needs'])})" if res.get("needs") else ""
            notes.append(f"{m}: {res['status']}{needs}: {res.get('reason') or res.get('message')}")
        by_reason: dict[str, list[str]] = {}
        for s, e in res.get("sets", {}).items():
            if e.get("status") in ("skipped", "error"):
                text = e.get("reason") or e.get("message")
                by_reason.setdefault(f"{e['status']}: {text}", []).append(s)
        for reason, sets in by_reason.items():
            notes.append(f"{m}: {', '.join(sets)} {reason}")
    return notes
