"""What an experiment plots (``plot:`` in ``experiments/NAME.yaml``), in one of three kinds.

- ``table`` (the default): a line per table column (or row) across the rows (or columns), ours
  solid and the paper's dashed (mega-batch size M, STS years, length ranges, noise levels).
- ``over``: for a cell computed over runs, a line per table row across the values of the
  cell's outermost aggregation step, each point the inner steps' result, the value the cell
  chose ringed; the paper reports only the cell, so its number is in the legend (2018 Table 5:
  every fold's mean over the models, of which the paper reports the best).
- ``scatter``: the runs behind a correlation cell, one labelled point each (2019 §4.2
  Figure 1: STS against each language's SP overlap with English).

Each kind checks itself against the experiment when the file is read.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Protocol

from pydantic import Discriminator, Tag

from paralib.experiments.cells import AggStep, CellRef, OursSpec, PaperTable
from paralib.schema import Strict


class PlottedExperiment(Protocol):
    """What a plot checks itself against: the experiment's paper table, how ours are computed,
    and the values an aggregation step goes over (:class:`paralib.experiments.spec.Experiment`)."""

    paper: PaperTable
    ours: OursSpec

    def axis_values(self, step: AggStep) -> list[str]:
        """The values ``step`` goes over, in order."""
        ...


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
    alt: ClassVar[str] = "ours against the paper"

    def check(self, exp: PlottedExperiment) -> None:
        """Raise ``ValueError`` for labels that are not in the table."""
        labels = exp.paper.rows if self.x == "rows" else exp.paper.columns
        other = exp.paper.columns if self.x == "rows" else exp.paper.rows
        for label in self.only or []:
            if label not in labels:
                raise ValueError(f"plot.only: '{label}' is not in paper.{self.x}")
        for label in self.series or []:
            if label not in other:
                raise ValueError(f"plot.series: '{label}' is not in the table")


def _aggregated(exp: PlottedExperiment, row: str, column: str) -> CellRef | None:
    """The cell's reference (``None`` for an absent row); an error for a column that is not
    in the table or is unavailable, and for a cell not computed over runs."""
    if column not in exp.paper.columns:
        raise ValueError(f"plot: column '{column}' is not in paper.columns")
    if column in exp.ours.unavailable:
        raise ValueError(f"plot: column '{column}' is unavailable here "
                         f"({exp.ours.unavailable[column]}), so it has nothing to draw")
    ref = exp.ours.cell(row, column)
    if ref is not None and not ref.aggregate:
        raise ValueError(f"plot: cell ({row}, {column}) is not computed over runs "
                         "(it has no aggregate steps)")
    return ref


class OverPlot(Strict):
    """Every row's cell in ``column``, drawn across the values of its outermost step."""

    kind: Literal["over"]
    column: str
    xlabel: str
    ylabel: str
    alt: ClassVar[str] = "ours at every value behind the computed cells"

    def check(self, exp: PlottedExperiment) -> None:
        """Raise ``ValueError`` unless the column's cells end in a mean/max/min step and at
        least one row has such a cell."""
        refs = [_aggregated(exp, row, self.column) for row in exp.paper.rows]
        for row, ref in zip(exp.paper.rows, refs, strict=True):
            if ref is not None and ref.aggregate[-1].correlation:
                raise ValueError(f"plot: cell ({row}, {self.column}) is a correlation; "
                                 "draw it with kind: scatter")
        if all(ref is None for ref in refs):
            raise ValueError(f"plot: every row is absent in column '{self.column}', so it "
                             "has nothing to draw")
        drawn = [(row, exp.axis_values(ref.aggregate[-1]))
                 for row, ref in zip(exp.paper.rows, refs, strict=True) if ref is not None]
        for row, values in drawn[1:]:
            if values != drawn[0][1]:
                raise ValueError(f"plot: the rows of column '{self.column}' share one x axis, "
                                 f"but row '{row}' goes over {values} and row "
                                 f"'{drawn[0][0]}' over {drawn[0][1]}")


class ScatterPlot(Strict):
    """The runs of the correlation cell (``row``, ``column``): x is the correlation's
    ``with`` metric, y the cell's metric."""

    kind: Literal["scatter"]
    row: str
    column: str
    xlabel: str
    ylabel: str
    alt: ClassVar[str] = "ours, one point per run"

    def check(self, exp: PlottedExperiment) -> None:
        """Raise ``ValueError`` unless the cell is one correlation step."""
        if self.row not in exp.paper.rows:
            raise ValueError(f"plot: row '{self.row}' is not in paper.rows")
        if self.row in exp.ours.absent:
            raise ValueError(f"plot: row '{self.row}' is absent here "
                             f"({exp.ours.absent[self.row]}), so it has nothing to draw")
        ref = _aggregated(exp, self.row, self.column)
        if ref is None or len(ref.aggregate) != 1 or not ref.aggregate[0].correlation:
            raise ValueError(f"plot: cell ({self.row}, {self.column}) is not one correlation "
                             "over runs")


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("kind", "table"))
    return getattr(value, "kind", "table")


PlotSpec = Annotated[Annotated[TablePlot, Tag("table")] | Annotated[OverPlot, Tag("over")]
                     | Annotated[ScatterPlot, Tag("scatter")], Discriminator(_kind)]
