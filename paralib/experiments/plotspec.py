"""What an experiment plots (``plot:`` in ``experiments/NAME.yaml``), in one of three kinds.

- ``table`` (the default): a line per table column (or row) across the rows (or columns), ours
  solid and the paper's dashed (mega-batch size M, STS years, length ranges, noise levels).
- ``over``: for a cell computed over runs, a line per table row across the values of the
  cell's outermost aggregation step, each point the inner steps' result; the paper's number,
  which is that step's result, is a dashed level (2018 Table 5: every fold's mean over the
  models, of which the paper reports the best).
- ``scatter``: the runs behind a correlation cell, one labelled point each (2019 §4.2
  Figure 1: STS against each language's SP overlap with English).

Each kind checks itself against the experiment when the file is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Discriminator, Tag

from paralib.schema import Strict

if TYPE_CHECKING:
    from paralib.experiments.spec import CellRef, Experiment


class TablePlot(Strict):
    """``x`` is the table's rows or columns (``only`` a subset), one line per other label
    (``series`` a subset); ``log`` a log y axis with ratios in the relative panel."""

    kind: Literal["table"] = "table"
    x: Literal["rows", "columns"]
    only: list[str] | None = None
    series: list[str] | None = None
    xlabel: str
    ylabel: str
    log: bool = False

    def check(self, exp: Experiment) -> None:
        """Raise ``ValueError`` for labels that are not in the table."""
        labels = exp.paper.rows if self.x == "rows" else exp.paper.columns
        other = exp.paper.columns if self.x == "rows" else exp.paper.rows
        for label in self.only or []:
            if label not in labels:
                raise ValueError(f"plot.only: '{label}' is not in paper.{self.x}")
        for label in self.series or []:
            if label not in other:
                raise ValueError(f"plot.series: '{label}' is not in the table")


def _aggregated(exp: Experiment, row: str, column: str, what: str) -> CellRef | None:
    if column not in exp.paper.columns:
        raise ValueError(f"{what}: column '{column}' is not in paper.columns")
    ref = exp.ours.cell(row, column)
    if ref is not None and not ref.aggregate:
        raise ValueError(f"{what}: cell ({row}, {column}) is not computed over runs "
                         "(it has no aggregate steps)")
    return ref


class OverPlot(Strict):
    """Every row's cell in ``column``, drawn across the values of its outermost step."""

    kind: Literal["over"]
    column: str
    xlabel: str
    ylabel: str

    def check(self, exp: Experiment) -> None:
        """Raise ``ValueError`` unless the column's cells end in a mean/max/min step."""
        for row in exp.paper.rows:
            ref = _aggregated(exp, row, self.column, "plot")
            if ref is not None and ref.aggregate[-1].correlation:
                raise ValueError(f"plot: cell ({row}, {self.column}) is a correlation; "
                                 "draw it with kind: scatter")


class ScatterPlot(Strict):
    """The runs of the correlation cell (``row``, ``column``): x is the correlation's
    ``with`` metric, y the cell's metric."""

    kind: Literal["scatter"]
    row: str
    column: str
    xlabel: str
    ylabel: str

    def check(self, exp: Experiment) -> None:
        """Raise ``ValueError`` unless the cell is one correlation step."""
        if self.row not in exp.paper.rows:
            raise ValueError(f"plot: row '{self.row}' is not in paper.rows")
        ref = _aggregated(exp, self.row, self.column, "plot")
        if ref is None or len(ref.aggregate) != 1 or not ref.aggregate[0].correlation:
            raise ValueError(f"plot: cell ({self.row}, {self.column}) is not one correlation "
                             "over runs")


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("kind", "table"))
    return getattr(value, "kind", "table")


PlotSpec = Annotated[Annotated[TablePlot, Tag("table")] | Annotated[OverPlot, Tag("over")]
                     | Annotated[ScatterPlot, Tag("scatter")], Discriminator(_kind)]
