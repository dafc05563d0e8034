"""The three plot kinds: what each draws, and the errors of a plot that does not fit its
experiment."""

from __future__ import annotations

import copy
from pathlib import Path

import matplotlib.image
import pytest
from toys import FOLDS, LANG_NUMBERS, LANGS, fold_records, lang_records

from paralib.experiments.aggregate import correlation_points, step_parts
from paralib.experiments.plots import plot_experiment
from paralib.experiments.plotspec import OverPlot, ScatterPlot, TablePlot
from paralib.experiments.render import RunInfo, render_section
from paralib.experiments.spec import ExperimentError, parse_experiment
from paralib.experiments.table import build_table

OVER = {"kind": "over", "column": "Model Avg.", "xlabel": "fold", "ylabel": "r"}
SCATTER = {"kind": "scatter", "row": "All Lang.", "column": "SP Ovl.", "xlabel": "overlap",
           "ylabel": "STS"}


def with_plot(tree: dict, plot: dict) -> dict:
    out = copy.deepcopy(tree)
    out["plot"] = plot
    return out


def drawn(path: Path) -> tuple[int, int]:
    """Height and width of a written PNG (it must read back as an image)."""
    image = matplotlib.image.imread(path)
    return image.shape[0], image.shape[1]


def test_over_plot_draws_every_fold_mean(tmp_path):
    exp = parse_experiment(with_plot(FOLDS, OVER), "toy")
    assert isinstance(exp.plot, OverPlot)
    records = fold_records()
    ref = exp.ours.cell("Cost", "Model Avg.")
    # the values behind the cell: each fold's mean over WORD and LSTM, not only the best
    means = {v: a.value for v, a in step_parts(exp, ref, records)}
    assert means == pytest.approx({"1": 50.0, "2": 65.0, "3": 55.0})
    path = plot_experiment(exp, build_table(exp, records), records, tmp_path / "folds.png")
    height, width = drawn(path)
    assert width > height > 300


def test_over_plot_keeps_a_gap_for_a_fold_without_a_mean(tmp_path):
    exp = parse_experiment(with_plot(FOLDS, OVER), "toy")
    records = fold_records()
    records["Cost fold 2 LSTM"] = {"status": "error", "message": "boom"}
    ref = exp.ours.cell("Cost", "Model Avg.")
    values = {v: a.value for v, a in step_parts(exp, ref, records)}
    assert values["2"] is None and values["3"] == pytest.approx(55.0)
    assert plot_experiment(exp, build_table(exp, records), records,
                           tmp_path / "gap.png").stat().st_size > 10_000


def test_scatter_plot_draws_the_runs_of_a_correlation(tmp_path):
    exp = parse_experiment(with_plot(LANGS, SCATTER), "toy")
    assert isinstance(exp.plot, ScatterPlot)
    records = lang_records(LANG_NUMBERS)
    records["SP en-fr"] = {"status": "error", "message": "boom"}
    ref = exp.ours.cell("All Lang.", "SP Ovl.")
    points, left = correlation_points(ref.aggregate[0], exp, ref, records)
    assert [p[0] for p in points] == ["de", "cs", "ar", "tr"] and left == ["fr"]
    assert points[0][1:] == (0.50, 60.0)
    path = plot_experiment(exp, build_table(exp, records), records, tmp_path / "langs.png")
    assert min(drawn(path)) > 300


def test_the_section_names_what_the_plot_shows():
    info = RunInfo(size="full", command="paralib experiment toy", seconds=1.0,
                   started="2026-11-22 12:00 UTC", cpus=2, load=0.5, made=5, reused=0,
                   reused_seconds=0.0, plot="results/toy.png")
    for tree, plot, alt in ((LANGS, SCATTER, "ours, one point per run"),
                            (FOLDS, OVER, "ours against the paper")):
        exp = parse_experiment(with_plot(tree, plot), "toy")
        records = lang_records(LANG_NUMBERS) if tree is LANGS else fold_records()
        text = render_section(exp, build_table(exp, records), records, info)
        assert f"![{exp.title}: {alt}](results/toy.png)" in text


def test_a_plot_without_kind_is_a_table_plot():
    exp = parse_experiment(with_plot(FOLDS, {"x": "rows", "xlabel": "a", "ylabel": "b"}),
                           "toy")
    assert isinstance(exp.plot, TablePlot)
    with pytest.raises(ExperimentError, match="plot.only: 'Nope' is not in paper.rows"):
        parse_experiment(with_plot(FOLDS, {"x": "rows", "only": ["Nope"], "xlabel": "a",
                                           "ylabel": "b"}), "toy")


@pytest.mark.parametrize("tree, plot, message", [
    (FOLDS, {**OVER, "column": "Nope"}, "column 'Nope' is not in paper.columns"),
    (LANGS, {**OVER, "column": "SP Ovl."}, "is a correlation; draw it with kind: scatter"),
    (FOLDS, {**SCATTER, "row": "Cost", "column": "Model Avg."}, "is not one correlation"),
    (LANGS, {**SCATTER, "row": "Nope"}, "row 'Nope' is not in paper.rows"),
    (LANGS, {**SCATTER, "column": "Lang. Distance"}, "is not one correlation"),
    (FOLDS, {**OVER, "kind": "pie"}, "plot: kind .pie. is not one of .table., .over., .scatter."),
    (FOLDS, {**OVER, "colour": "red"}, "plot.over.colour: unknown key"),
])
def test_a_plot_that_does_not_fit_its_experiment_is_refused(tree, plot, message):
    with pytest.raises(ExperimentError, match=message):
        parse_experiment(with_plot(tree, plot), "toy")


def test_a_cell_not_computed_over_runs_cannot_be_drawn_over_steps():
    plain = copy.deepcopy(FOLDS)
    plain["ours"]["aggregate"] = []
    plain["ours"]["run"] = "{row} fold 1 WORD"
    with pytest.raises(ExperimentError, match="is not computed over runs"):
        parse_experiment(with_plot(plain, OVER), "toy")
