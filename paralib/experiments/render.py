"""The Markdown of one experiment's section of the results book.

The table in the paper's layout with, for every paper column, three columns side by side: the
paper's number, ours, and whether the paper's direction holds for that cell; then every
checked direction, the runs (what was trained, on how many pairs, how long it took), the
generated reading, the exact command, the wall time measured here and the plot.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from paralib.contracts import Made, RunRecord, RunSetup, TrainingSummary
from paralib.experiments.reading import fmt_delta, reading, where
from paralib.experiments.records import AnyRecords, as_records
from paralib.experiments.spec import Experiment
from paralib.experiments.table import DirectionCheck, TableData


@dataclass
class RunInfo:
    """What the section says about the invocation that wrote it."""

    size: str
    command: str
    seconds: float
    started: str
    cpus: int
    load: float
    made: int
    reused: int
    reused_seconds: float
    reused_made: list[Made] = field(default_factory=list)
    plot: str | None = None
    gpu: str | None = None


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main_table(exp: Experiment, table: TableData) -> list[str]:
    """The table in the paper's layout, paper / ours / agrees per column."""
    head = [_cell(exp.paper.row_header)]
    for col in table.columns:
        head += [f"{_cell(col)} paper", f"{_cell(col)} ours", f"{_cell(col)} agrees"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in table.rows:
        ours = exp.ours.rows.get(row)
        cells = [_cell(row) + (f"<br>ours: {_cell(ours)}" if ours else "")]
        for col in table.columns:
            c = table.cells[(row, col)]
            cells += [c.paper_text, c.ours_text, table.cell_agreement((row, col))]
        lines.append("| " + " | ".join(cells) + " |")
    notes = [f"{_cell(col)}: {_cell(text)}" for col, text in exp.ours.columns.items()]
    if notes:
        lines += ["", "Columns here: " + "; ".join(notes) + "."]
    return lines


def tuned_text(name: str, record: RunRecord) -> str | None:
    """One line for a tuned run: what it chose on dev and every candidate's dev score."""
    tuned = record.tuned
    if not tuned:
        return None
    cands = "; ".join(f"{c.label}: " + (_num(c.value) if c.status == "ok"
                                        else f"{c.status} ({c.message})")
                      for c in tuned.candidates)
    chose = (f"chose {tuned.chosen} ({tuned.metric} {_num(tuned.value)})"
             if tuned.chosen else "chose nothing")
    return f"{_cell(name)}: {chose} of {len(tuned.candidates)} candidates: {cands}"


def cell_notes(table: TableData, records: AnyRecords) -> list[str]:
    """Under the table: columns not available here and why, how aggregated cells were
    computed, and what each tuned run chose on dev (2017 §5.5-5.7)."""
    lines = [f"Not available here: {_cell(col)}: {_cell(why)}."
             for col, why in table.unavailable.items()]
    agg = [f"- {_cell(r)}, {_cell(c)}: " + "; ".join(map(_cell, cell.details))
           for (r, c), cell in table.cells.items() if cell.details]
    if agg:
        lines += ["", "Cells computed over runs:", "", *agg]
    tuned = [t for t in (tuned_text(n, r) for n, r in as_records(records).items()) if t]
    if tuned:
        lines += ["", "Tuned on dev (a model per candidate, the best dev score kept):", "",
                  *[f"- {t}" for t in tuned]]
    return lines[1:] if lines and lines[0] == "" else lines


def _outcome(d: DirectionCheck) -> str:
    paper = fmt_delta(d, d.paper) if d.paper is not None else f"{d.paper_sign} (stated)"
    agrees = "n/a" if d.agrees is None else "yes" if d.agrees else "no"
    return f"{paper} / {fmt_delta(d, d.ours)} {agrees}"


def directions_table(table: TableData) -> list[str]:
    """Every checked direction: the paper's difference (or ratio), ours, and whether ours
    agrees. Row comparisons are one line per pair of rows with a column per table column
    (column comparisons the other way round); single cells one line each."""
    lines: list[str] = []
    for kind, across, i in (("rows", table.columns, 0), ("columns", table.rows, 1)):
        dirs = [d for d in table.directions if d.kind == kind]
        if not dirs:
            continue
        # (row a, row b, column) of row comparisons, (column a, column b, row) of column ones
        first = {(d.a[i], d.b[i], d.a[1 - i]): d for d in reversed(dirs)}  # type: ignore[index]
        pairs = list(dict.fromkeys((d.a[i], d.b[i]) for d in dirs))  # type: ignore[index]
        used = [x for x in across if any(d.a[1 - i] == x for d in dirs)]
        lines += ["| paper / ours, agrees | " + " | ".join(map(_cell, used)) + " |",
                  "|---|" + "---|" * len(used)]
        for a, b in pairs:
            cells = [_outcome(first[(a, b, x)]) if (a, b, x) in first else "—" for x in used]
            lines.append(f"| {_cell(a)} vs {_cell(b)} | " + " | ".join(cells) + " |")
        lines.append("")
    singles = [d for d in table.directions if d.kind in ("cells", "sign")]
    if singles:
        lines += ["| direction | paper / ours, agrees | source of the paper's direction |",
                  "|---|---|---|"]
        lines += [f"| {_cell(where(d, table))} | {_outcome(d)} | "
                  f"{_cell(d.source or 'its numbers')} |" for d in singles]
        lines.append("")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _model_text(record: RunRecord) -> str:
    setup = record.setup or RunSetup()
    if setup.baseline:
        return f"baseline `{setup.baseline}`"
    if setup.report:
        return f"report `{setup.report}`"
    parts = setup.parts or []
    text = " + ".join(parts) if setup.combine == "sum" else ", ".join(parts)
    if len(parts) > 1:
        text += f" ({setup.combine})"
    return text or "—"


def _num(value: Any, fmt: str = "{:.1f}") -> str:
    return "—" if value is None else fmt.format(value)


def _collapsed(train: TrainingSummary) -> bool:
    """Whether the kept epoch's encoder had collapsed (:mod:`paralib.train.epoch`; records made
    before that check do not say)."""
    return next((h.collapsed for h in train.history if h.epoch == train.best_epoch), False)


def runs_table(records: AnyRecords) -> list[str]:
    """One line per run: model, data, epochs, dev score, times, and whether it was reused."""
    lines = ["| run | model | training pairs | epochs (best) | M | dev r | train s | eval s | "
             "status |", "|---|---|---|---|---|---|---|---|---|"]
    for name, r in as_records(records).items():
        setup, secs = r.setup or RunSetup(), r.seconds
        train = r.train or TrainingSummary()
        epochs = f"{setup.epochs} ({train.best_epoch})" if setup.epochs and r.train else "—"
        megabatch = "—" if setup.megabatch is None else setup.megabatch
        if setup.trained is False:
            epochs, megabatch = "untrained (tokenisers fitted)", "—"
        status = r.status
        if status == "ok" and r.reused:
            status = "ok (reused)"
        elif status != "ok":
            status = f"{status}: {r.message or ''}"
        train_s = (secs.get("train") or 0) + (secs.get("select") or 0)
        train_text = _num(train_s if secs.get("train") else None)
        if train.gpu and secs.get("train"):
            train_text += " (GPU)"
        dev = _num(train.dev_pearson) + (" (collapsed)" if _collapsed(train) else "")
        lines.append(
            f"| {_cell(name)} | {_cell(_model_text(r))} | "
            f"{_num(train.pairs if r.train else None, '{:,}')} | "
            f"{epochs} | {megabatch} | {dev} | {train_text} "
            f"| {_num(secs.get('evaluate'))} | {_cell(status)} |")
    return lines


def _made_text(info: RunInfo) -> str:
    """When the reused runs were made, and how long they took then."""
    text = f"{info.reused_seconds:,.0f} s of training and evaluation"
    if info.reused_made:
        times = sorted(m.at for m in info.reused_made)
        loads = [m.load for m in info.reused_made if m.load is not None]
        span = times[0] if times[0] == times[-1] else f"{times[0]} to {times[-1]}"
        load = f", load average {min(loads):.1f} to {max(loads):.1f}" if loads else ""
        text += f" when they were made ({span}{load}{_machines_text(info.reused_made)})"
    return text


def _machines_text(made: list[Made]) -> str:
    """Where the reused runs were made, for the records that say (older ones do not)."""
    counts = Counter(m.machine for m in made if m.machine)
    if not counts:
        return ""
    parts = [f"{n} on {machine}" for machine, n in counts.items()]
    rest = len(made) - sum(counts.values())
    if rest:
        parts.append(f"{rest} on a machine their records do not name")
    return "; " + ", ".join(parts)


def wall_time(info: RunInfo) -> str:
    """The wall-time sentence: this invocation, and the runs it reused."""
    gpu = f" and an {info.gpu}" if info.gpu else ""
    where = (f"on {info.cpus} CPU core(s){gpu} shared with other users (load average "
             f"{info.load:.1f} at the start)")
    if not info.reused:
        return (f"Wall time here: {info.seconds:,.0f} s for {info.made} run(s) made in this "
                f"invocation, started {info.started} {where}.")
    if not info.made:
        return (f"Wall time here: the {info.reused} run(s) took {_made_text(info)}; this "
                f"invocation ({info.started}) reused them all and took {info.seconds:,.0f} s.")
    return (f"Wall time here: {info.seconds:,.0f} s for this invocation ({info.made} run(s) "
            f"made, {info.reused} reused, which took {_made_text(info)}), started "
            f"{info.started} {where}.")


def render_section(exp: Experiment, table: TableData, records: AnyRecords, info: RunInfo
                   ) -> str:
    """The whole section (without its markers)."""
    records = as_records(records)
    paper = exp.paper
    where_ = f"{paper.citation}, {paper.table}" + (f" ({paper.section})" if paper.section
                                                    else "")
    out = [f"### {exp.number}. {exp.title}", "",
           f"Paper: {where_}: {paper.caption}. Ours: {exp.ours.label}; size `{info.size}`.",
           "", *main_table(exp, table), ""]
    notes = cell_notes(table, records)
    if notes:
        out += [*notes, ""]
    dirs = directions_table(table)
    if dirs:
        out += ["Directions checked (the paper's difference / ours, and whether ours has the "
                "paper's sign):", "", *dirs, ""]
    text = reading(table, records, info.size, exp.ours.compare_levels, exp.notes,
                   exp.ours.best_rows)
    out += [f"Reading: {text}",
            "", "Runs:", "", *runs_table(records), "",
            f"Command: `{info.command}`", "",
            wall_time(info), ""]
    if info.plot:
        alt = exp.plot.alt if exp.plot else "ours"
        out += [f"![{exp.title}: {alt}]({info.plot})", ""]
    return "\n".join(out)
