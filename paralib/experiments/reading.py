"""The short reading of a reproduced table, generated from its numbers (never typed).

It says how many of the paper's directions hold here and which do not, which row is best in
each column in the paper and here, how far our levels are from the paper's, which runs have
no result and why, and what the size means for the numbers.
"""

from __future__ import annotations

from paralib.experiments.records import AnyRecords, Records, as_records
from paralib.experiments.table import DirectionCheck, TableData

SIZE_TEXT = {
    "smoke": "This is a smoke run (tiny models, a few hundred pairs, one epoch): it tests the "
             "machinery end to end and its numbers mean nothing.",
    "small": "This is the small size (a fraction of the data and model sizes of the full run, "
             "see the runs table): absolute numbers are not comparable with the paper's; the "
             "directions are what this section checks.",
    "full": "",
}


def fmt_delta(d: DirectionCheck, value: float | None) -> str:
    """A difference as ``+1.2`` / ``-0.03`` (two significant digits below 1, so differences of
    correlations on a 0-1 scale keep their sign), a ratio as ``x3.5``."""
    if value is None:
        return "—"
    if d.measure == "ratio":
        return f"x{value:,.1f}" if value >= 10 else f"x{value:.2f}"
    return _signed(value)


def _signed(value: float) -> str:
    # below 0.995 two significant digits; from there .2g would round to a bare "+1"
    return f"{value:+.2g}" if 0 < abs(value) < 0.995 else f"{value:+.1f}"


def where(d: DirectionCheck, table: TableData) -> str:
    """``M=20 vs M=1 (WORD)``: the two cells of a direction, naming what differs."""
    if d.b is None:
        return f"{d.a[0]}, {d.a[1]} vs 0" if len(table.columns) > 1 else f"{d.a[0]} vs 0"
    (ra, ca), (rb, cb) = d.a, d.b
    if ca == cb:
        return f"{ra} vs {rb} ({ca})" if len(table.columns) > 1 else f"{ra} vs {rb}"
    if ra == rb:
        return f"{ca} vs {cb} ({ra})" if len(table.rows) > 1 else f"{ca} vs {cb}"
    return f"{ra}, {ca} vs {rb}, {cb}"


def _group(d: DirectionCheck) -> tuple[str, str, str]:
    """The comparison a direction belongs to, and where within it (a column or a row)."""
    if d.b is None:
        return f"the sign of {d.a[0]}, {d.a[1]}", "", ""
    (ra, ca), (rb, cb) = d.a, d.b
    if d.kind == "rows":
        return f"{ra} vs {rb}", ca, "column"
    if d.kind == "columns":
        return f"{ca} vs {cb}", ra, "row"
    return f"{ra}, {ca} vs {rb}, {cb}", "", ""


def _agreement(table: TableData) -> list[str]:
    checked = [d for d in table.directions if d.agrees is not None]
    if not table.directions:
        return []
    if not checked:
        return ["None of the paper's directions could be checked: the cells they compare "
                "have no result here."]
    agree = sum(bool(d.agrees) for d in checked)
    out = [f"The paper's direction holds in {agree} of {len(checked)} comparisons checked "
           "here."]
    groups: dict[str, list[DirectionCheck]] = {}
    for d in checked:
        groups.setdefault(_group(d)[0], []).append(d)
    parts = []
    for label, dirs in groups.items():
        wrong = [d for d in dirs if not d.agrees]
        if not wrong:
            continue
        if len(dirs) == 1:
            d = wrong[0]
            paper = fmt_delta(d, d.paper) if d.paper is not None else d.paper_sign
            parts.append(f"{label} (paper {paper}, ours {fmt_delta(d, d.ours)})")
        else:
            unit = _group(wrong[0])[2]
            places = ", ".join(_group(d)[1] for d in wrong)
            parts.append(f"{label} in {len(wrong)} of {len(dirs)} {unit}s ({places})")
    if parts:
        out.append("It does not hold for " + "; ".join(parts) + ".")
    return out


def _best_rows(table: TableData, columns: list[str] | None = None) -> list[str]:
    columns = table.columns if columns is None else columns
    if len(table.rows) < 2 or not columns:
        return []
    parts_paper, parts_ours, same, compared = [], [], 0, 0
    for col in columns:
        paper = {r: table.cells[(r, col)].paper for r in table.rows}
        ours = {r: table.cells[(r, col)].ours for r in table.rows}
        both = [r for r in table.rows if paper[r] is not None and ours[r] is not None]
        if len(both) < 2:
            continue
        bp = max(both, key=lambda r: paper[r])  # type: ignore[arg-type, return-value]
        bo = max(both, key=lambda r: ours[r])  # type: ignore[arg-type, return-value]
        compared += 1
        same += bp == bo
        label = f" ({col})" if len(columns) > 1 else ""
        parts_paper.append(f"{bp}{label}")
        parts_ours.append(f"{bo}{label}")
    if not compared:
        return []
    return [f"Best row among those with both numbers, paper: {'; '.join(parts_paper)}. "
            f"Ours: {'; '.join(parts_ours)} (the same row in {same} of {compared} "
            f"column{'s' if compared > 1 else ''})."]


def _levels(table: TableData) -> list[str]:
    diffs = [c.ours - c.paper for c in table.cells.values()
             if c.ours is not None and c.paper is not None]
    if not diffs:
        return []
    mean = sum(diffs) / len(diffs)
    side = "below" if mean < 0 else "above"
    return [f"Our numbers are {_signed(abs(mean)).lstrip('+')} {side} the paper's on average "
            f"over the {len(diffs)} cells that have both (range {_signed(min(diffs))} to "
            f"{_signed(max(diffs))})."]


def _missing(records: Records) -> list[str]:
    out = []
    for status, what in (("missing", "missing input"), ("error", "failed"),
                         ("skipped", "not run at this size")):
        names = [f"{n} ({r.message or ''})" if status != "skipped" else n
                 for n, r in records.items() if r.status == status]
        if names:
            out.append(f"Runs {what}: {'; '.join(names)}.")
    return out


def reading(table: TableData, records: AnyRecords, size: str,
            compare_levels: bool = True, notes: list[str] | None = None,
            best_rows: list[str] | None = None) -> str:
    """The reading paragraph (``best_rows``: the columns whose best row it names)."""
    sentences = _agreement(table) + _best_rows(table, best_rows)
    if compare_levels:
        sentences += _levels(table)
    sentences += _missing(as_records(records))
    if SIZE_TEXT.get(size):
        sentences.append(SIZE_TEXT[size])
    sentences += list(notes or [])
    return " ".join(sentences)
