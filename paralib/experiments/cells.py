"""The paper's table in an experiment file and how our numbers fill it: ``paper`` (the
numbers typed from the paper), ``ours`` (which run and metric fill each cell, or a cell
computed over several runs), and ``compare`` (the directions of the paper to check).
Part of :mod:`paralib.experiments.spec`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from paralib.schema import Strict


class PaperTable(Strict):
    """The paper's table as printed: rows, columns and the numbers typed from the paper.

    A value may be a list of the paper's numbers (e.g. its per-corpus rows of one language):
    the table then shows their mean, labelled as such."""

    citation: str
    table: str
    caption: str
    section: str | None = None
    row_header: str = ""
    rows: list[str] = Field(min_length=1)
    columns: list[str] = Field(min_length=1)
    values: dict[str, dict[str, int | float | list[float] | None]] = Field(
        default_factory=dict)

    @model_validator(mode="after")
    def _values_in_table(self) -> PaperTable:
        for row, cols in self.values.items():
            if row not in self.rows:
                raise ValueError(f"paper.values: row '{row}' is not in paper.rows")
            for col in cols:
                if col not in self.columns:
                    raise ValueError(f"paper.values.{row}: column '{col}' is not in "
                                     "paper.columns")
        return self


class Where(Strict):
    """Keep the runs whose ``metric`` is ``> above`` and/or ``<= at_most`` (2019 Table 5's
    languages with SP overlap ≤ 0.3 and > 0.3); a run without the metric is left out."""

    metric: str
    above: float | None = None
    at_most: float | None = None

    @model_validator(mode="after")
    def _some_side(self) -> Where:
        if self.above is None and self.at_most is None:
            raise ValueError(f"where on '{self.metric}' needs above, at_most or both")
        return self


class AggStep(Strict):
    """One step of a cell computed over several runs. The cell's ``run`` template has a
    ``{OVER}`` placeholder; the step goes over its ``values`` (default: the labels of the grid
    axis named ``over``) and reduces them: ``mean``, ``max`` or ``min`` (the table names the
    value that won, e.g. the best fold of 2018 Table 5), or ``spearman`` / ``pearson``: the
    correlation over runs of the cell's metric with the metric ``with`` (2019 Table 5, e.g.
    ``properties/sp_overlap``), of the runs that pass ``where``. Steps go innermost first; a
    correlation or a ``where`` reads single runs, so it must be the first step."""

    over: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    how: Literal["mean", "max", "min", "spearman", "pearson"]
    values: list[str] | None = Field(default=None, min_length=1)
    with_: str | None = Field(default=None, alias="with")
    where: Where | None = None
    min_runs: int = Field(default=3, ge=2)

    @model_validator(mode="after")
    def _with_for_correlation(self) -> AggStep:
        if self.correlation != (self.with_ is not None):
            raise ValueError(f"aggregate over '{self.over}': 'with' is the other variable of "
                             "a correlation (spearman, pearson) and only of one")
        return self

    @property
    def correlation(self) -> bool:
        """Whether this step correlates two metrics over runs."""
        return self.how in ("spearman", "pearson")


class CellRef(Strict):
    """Which run and which metric fill one cell (times ``scale``, into the paper's units);
    with ``aggregate``, the cell is computed over the runs the steps name (:class:`AggStep`).
    """

    run: str
    metric: str
    scale: float = 1.0
    aggregate: list[AggStep] = Field(default_factory=list)

    @model_validator(mode="after")
    def _steps(self) -> CellRef:
        for i, step in enumerate(self.aggregate):
            if i and (step.correlation or step.where):
                raise ValueError(f"aggregate over '{step.over}': a correlation or a 'where' "
                                 "must be the first (innermost) step")
            if "{" + step.over + "}" not in self.run:
                raise ValueError(f"aggregate over '{step.over}': the run template "
                                 f"'{self.run}' has no {{{step.over}}}")
        return self


class _Keep(dict):
    """Format values that leave unknown ``{placeholders}`` as they are."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, **values: str) -> str:
    """``template`` with the given placeholders filled and any others left."""
    return template.format_map(_Keep(values))


class OursSpec(Strict):
    """How our table is filled: ``run`` and ``metric`` are templates over ``{row}`` and
    ``{column}`` (or a mapping column → template); ``cells`` overrides single cells; ``absent``
    names paper rows we have no run for, with the reason; ``scale`` multiplies our numbers
    (all, or per column) into the paper's units; ``rows``
    and ``columns`` describe what our version of a paper row or column is; ``format`` formats
    our numbers; ``compare_levels: false`` leaves out the comparison of absolute levels with
    the paper's (where the setting differs in kind, e.g. GPU against CPU speed);
    ``best_rows`` names the columns where the reading compares the best row (default: all);
    ``aggregate`` makes every templated cell one computed over runs (:class:`AggStep`);
    ``unavailable`` names paper columns that cannot be measured here, with the reason (shown
    as "not available here", never as a number)."""

    label: str
    run: str | dict[str, str]
    metric: str | dict[str, str]
    aggregate: list[AggStep] = Field(default_factory=list)
    cells: dict[str, dict[str, CellRef]] = Field(default_factory=dict)
    absent: dict[str, str] = Field(default_factory=dict)
    unavailable: dict[str, str] = Field(default_factory=dict)
    scale: float | dict[str, float] = 1.0
    rows: dict[str, str] = Field(default_factory=dict)
    columns: dict[str, str] = Field(default_factory=dict)
    format: str = "{:.1f}"
    compare_levels: bool = True
    best_rows: list[str] | None = None

    def factor(self, column: str) -> float:
        """What our numbers in ``column`` are multiplied by."""
        if isinstance(self.scale, dict):
            return self.scale.get(column, 1.0)
        return float(self.scale)

    def cell(self, row: str, column: str) -> CellRef | None:
        """The run and metric of one cell (``None`` for an ``absent`` row or an
        ``unavailable`` column)."""
        if row in self.absent or column in self.unavailable:
            return None
        if column in self.cells.get(row, {}):
            ref = self.cells[row][column]
            return ref.model_copy(update={"run": fill(ref.run, row=row, column=column)})
        run = self.run if isinstance(self.run, str) else self.run.get(column)
        metric = self.metric if isinstance(self.metric, str) else self.metric.get(column)
        if run is None or metric is None:
            raise ValueError(f"ours: no run or metric for column '{column}'")
        return CellRef(run=fill(run, row=row, column=column),
                       metric=fill(metric, row=row, column=column),
                       aggregate=self.aggregate)

    def missing_text(self, row: str, column: str) -> str:
        """What an absent or unavailable cell shows."""
        if column in self.unavailable:
            return "not available here"
        return self.absent[row]


class Comparison(Strict):
    """A direction of the paper to check: row ``a`` against row ``b`` in every column
    (``rows``), column ``a`` against ``b`` in every row (``columns``), two ``cells``, or the
    sign of one cell (``sign``: the cell against zero).

    The paper's direction comes from its numbers, or from ``expect`` where the paper states it
    without numbers (``source`` says where). ``measure: ratio`` reports a/b (speeds); with
    ``expect: "="`` ours agrees when |Δ| ≤ ``tie``."""

    rows: tuple[str, str] | None = None
    columns: tuple[str, str] | None = None
    cells: tuple[tuple[str, str], tuple[str, str]] | None = None
    sign: tuple[str, str] | None = None
    expect: Literal[">", "<", "="] | None = None
    source: str | None = None
    measure: Literal["difference", "ratio"] = "difference"
    tie: float = Field(default=0.5, ge=0)

    @model_validator(mode="after")
    def _one_form(self) -> Comparison:
        given = [k for k in ("rows", "columns", "cells", "sign") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("a comparison names one of rows, columns, cells, sign; got "
                             f"{given}")
        if self.sign is not None and self.measure == "ratio":
            raise ValueError("a sign comparison cannot be a ratio")
        return self

    def pairs(self, rows: list[str], columns: list[str]
              ) -> list[tuple[tuple[str, str], tuple[str, str] | None]]:
        """The (row, column) cell pairs this comparison checks (``None``: zero)."""
        if self.sign is not None:
            return [(tuple(self.sign), None)]  # type: ignore[list-item]
        if self.rows is not None:
            return [((self.rows[0], c), (self.rows[1], c)) for c in columns]
        if self.columns is not None:
            return [((r, self.columns[0]), (r, self.columns[1])) for r in rows]
        assert self.cells is not None
        return [(tuple(self.cells[0]), tuple(self.cells[1]))]  # type: ignore[list-item]
