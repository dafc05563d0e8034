"""The reproduced table: the paper's number and ours in every cell, and the directions.

A direction compares two cells, in the paper and in ours: the paper's sign comes from its
numbers (or from a claim the paper makes without numbers, ``expect``), and ours agrees when
our difference has the same sign (within ``tie`` when the paper's two numbers are equal).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from paralib.experiments.aggregate import aggregate
from paralib.experiments.metrics import read_metric
from paralib.experiments.records import AnyRecords, Records, as_records, record_of
from paralib.experiments.spec import CellRef, Comparison, Experiment

Key = tuple[str, str]

STATUS_TEXT = {"missing": "missing input", "skipped": "not run at this size", "error": "error"}


@dataclass
class Cell:
    """One cell: the paper's number and ours, with the run that gave ours."""

    paper: float | None
    paper_text: str
    ours: float | None
    ours_text: str
    run: str
    details: list[str] = field(default_factory=list)


@dataclass
class DirectionCheck:
    """One checked direction: cell ``a`` against cell ``b``."""

    a: Key
    b: Key | None
    measure: str
    paper: float | None
    paper_sign: str | None
    ours: float | None
    agrees: bool | None
    source: str | None = None
    kind: str = "cells"


@dataclass
class TableData:
    """The whole reproduced table."""

    rows: list[str]
    columns: list[str]
    cells: dict[Key, Cell] = field(default_factory=dict)
    directions: list[DirectionCheck] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)

    def cell_agreement(self, key: Key) -> str:
        """``yes``/``no`` for a cell that is the first side of checked directions (``no`` if
        any disagrees), ``—`` otherwise."""
        mine = [d.agrees for d in self.directions if d.a == key and d.agrees is not None]
        if not mine:
            return "—"
        return "yes" if all(mine) else "no"


def paper_value(value: int | float | list[float] | None) -> tuple[float | None, str]:
    """The paper's number of a cell and its text as typed (a list shows its mean,
    labelled)."""
    if value is None:
        return None, "—"
    if isinstance(value, list):
        mean = sum(value) / len(value)
        return mean, f"{mean:.1f} (mean of {len(value)})"
    return float(value), f"{value:,}" if isinstance(value, int) else f"{value}"


def sign(delta: float) -> str:
    """``>``, ``<`` or ``=``."""
    return ">" if delta > 0 else "<" if delta < 0 else "="


def _delta(a: float | None, b: float | None, measure: str) -> float | None:
    if a is None or b is None:
        return None
    if measure == "ratio":
        return a / b if b else None
    # two cells from the same pairs differ only by summation order (1e-15): that is a tie
    return 0.0 if math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12) else a - b


def direction(comp: Comparison, a: Key, b: Key | None, cells: dict[Key, Cell]) -> DirectionCheck:
    """Check one direction of ``comp`` on cells ``a`` and ``b`` (``None``: zero)."""
    zero = Cell(0.0, "0", 0.0, "0", "")
    cb = cells[b] if b is not None else zero
    paper = _delta(cells[a].paper, cb.paper, comp.measure)
    ours = _delta(cells[a].ours, cb.ours, comp.measure)
    centre = 1.0 if comp.measure == "ratio" else 0.0
    paper_sign = comp.expect or (None if paper is None else sign(paper - centre))
    agrees = None
    if paper_sign is not None and ours is not None:
        if paper_sign == "=":
            agrees = abs(ours - centre) <= comp.tie
        else:
            agrees = sign(ours - centre) == paper_sign
    kind = "rows" if comp.rows is not None else "columns" if comp.columns is not None \
        else "cells" if comp.cells is not None else "sign"
    return DirectionCheck(a, b, comp.measure, paper, paper_sign, ours, agrees, comp.source, kind)


def _aggregated_cell(exp: Experiment, ref: CellRef, col: str, p: float | None, ptext: str,
                     records: Records) -> Cell:
    factor = exp.ours.factor(col) * ref.scale
    agg = aggregate(exp, ref, records, scale=factor)
    if agg.value is None:
        return Cell(p, ptext, None, f"n/a ({agg.why})", ref.run, agg.details)
    ours = agg.value * factor
    text = exp.ours.format.format(ours) + (f" ({agg.note})" if agg.note else "")
    return Cell(p, ptext, ours, text, ref.run, agg.details)


def build_table(exp: Experiment, records: AnyRecords) -> TableData:
    """Fill the table from the run records (run name → record)."""
    records = as_records(records)
    table = TableData(list(exp.paper.rows), list(exp.paper.columns),
                      unavailable=dict(exp.ours.unavailable))
    for row in table.rows:
        for col in table.columns:
            ref = exp.ours.cell(row, col)
            p, ptext = paper_value(exp.paper.values.get(row, {}).get(col))
            if ref is None:
                table.cells[(row, col)] = Cell(p, ptext, None, exp.ours.missing_text(row, col),
                                               "")
                continue
            if ref.aggregate:
                table.cells[(row, col)] = _aggregated_cell(exp, ref, col, p, ptext, records)
                continue
            record = record_of(records, ref.run)
            ours = read_metric(record, ref.metric)
            if ours is not None and math.isfinite(ours):
                ours *= exp.ours.factor(col) * ref.scale
                chosen = record.tuned.chosen if record.tuned else None  # on dev, 2017 §5.5
                otext = exp.ours.format.format(ours) + (f" (tuned: {chosen})" if chosen else "")
            else:
                ours, otext = None, STATUS_TEXT.get(record.status, "n/a")
            table.cells[(row, col)] = Cell(p, ptext, ours, otext, ref.run)
    for comp in exp.compare:
        for a, b in comp.pairs(table.rows, table.columns):
            d = direction(comp, a, b, table.cells)
            if d.paper_sign is not None:  # the paper says nothing about this pair of cells
                table.directions.append(d)
    return table
