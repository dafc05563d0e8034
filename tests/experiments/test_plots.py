"""The three plot kinds: what each draws (read back from the figure's lines), and the errors of
a plot that does not fit its experiment."""

from __future__ import annotations

import copy
import math

import matplotlib.image
import pytest
from toys import FOLDS, LANG_NUMBERS, LANGS, fold_records, lang_records

from paralib.experiments.plots import (
    draw_over,
    draw_scatter,
    draw_table,
    plot_experiment,
    positions,
)
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


def curves(fig) -> dict[str, tuple[list[float], list[float]]]:
    """The labelled lines of a figure's first axes: label → (x, y)."""
    return {line.get_label(): (list(line.get_xdata()), list(line.get_ydata()))
            for line in fig.axes[0].lines if not line.get_label().startswith("_")}


def rings(fig) -> list[tuple[float, float]]:
    """The unlabelled single points (the rings on chosen values)."""
    return [(line.get_xdata()[0], line.get_ydata()[0]) for line in fig.axes[0].lines
            if line.get_label().startswith("_") and len(line.get_xdata()) == 1]


def test_over_plot_draws_every_fold_mean_and_rings_the_chosen_one():
    exp = parse_experiment(with_plot(FOLDS, OVER), "toy")
    assert isinstance(exp.plot, OverPlot)
    records = fold_records()
    fig = draw_over(exp, build_table(exp, records), records, exp.plot, "t")
    lines = curves(fig)
    cost = lines["Cost (ours); the paper's max over fold: 83.2"]
    # each fold's mean over WORD and LSTM, at the fold numbers, not only the best
    assert cost == ([1.0, 2.0, 3.0], pytest.approx([50.0, 65.0, 55.0]))
    overlap = lines["Overlap (ours); the paper's max over fold: 83.1"]
    assert overlap[1] == pytest.approx([50.0, 50.0, 35.0])
    assert sorted(rings(fig)) == [(1.0, 50.0), (2.0, 65.0)]
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["1", "2", "3"]


def test_over_plot_leaves_a_gap_where_a_fold_has_no_mean(tmp_path):
    exp = parse_experiment(with_plot(FOLDS, OVER), "toy")
    records = fold_records()
    records["Cost fold 2 LSTM"] = {"status": "error", "message": "boom"}
    fig = draw_over(exp, build_table(exp, records), records, exp.plot, "t")
    _, ys = curves(fig)["Cost (ours); the paper's max over fold: 83.2"]
    assert ys[0] == pytest.approx(50.0) and math.isnan(ys[1]) and ys[2] == pytest.approx(55.0)
    assert (3.0, 55.0) in rings(fig)               # fold 2 has no mean: fold 3 is the best
    path = plot_experiment(exp, build_table(exp, records), records, tmp_path / "gap.png")
    assert matplotlib.image.imread(path).shape[2] in (3, 4)


def test_over_plot_keeps_values_under_their_labels_when_where_leaves_some_out():
    tree = copy.deepcopy(LANGS)
    tree["paper"]["columns"] = ["Best"]
    tree["paper"]["values"] = {"All Lang.": {"Best": 70.0}, "Low": {"Best": 60.0}}
    tree["ours"] = {"label": "ours", "run": "SP en-{lang}", "metric": "sts/all",
                    "aggregate": [{"over": "lang", "how": "max"}],
                    "cells": {"Low": {"Best": {
                        "run": "SP en-{lang}", "metric": "sts/all", "aggregate": [
                            {"over": "lang", "how": "max", "where": {
                                "metric": "properties/sp_overlap", "at_most": 0.3}}]}}}}
    tree["compare"] = []
    exp = parse_experiment(with_plot(tree, {**OVER, "column": "Best"}), "toy")
    records = lang_records(LANG_NUMBERS)
    lines = curves(draw_over(exp, build_table(exp, records), records, exp.plot, "t"))
    xs, ys = lines["Low (ours); the paper's max over lang: 60"]
    # languages de fr cs ar tr: only ar (0.05) and tr (0.25) have overlap ≤ 0.3
    assert xs == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert [y if not math.isnan(y) else None for y in ys] == [None, None, None, 50.0, 58.0]


def test_scatter_plot_draws_the_runs_and_the_cells_value():
    exp = parse_experiment(with_plot(LANGS, SCATTER), "toy")
    assert isinstance(exp.plot, ScatterPlot)
    records = lang_records(LANG_NUMBERS)
    records["SP en-fr"] = {"status": "error", "message": "boom"}
    fig = draw_scatter(exp, records, exp.plot, "t")
    ax = fig.axes[0]
    drawn = sorted((line.get_xdata()[0], line.get_ydata()[0]) for line in ax.lines)
    assert drawn == [(0.05, 50.0), (0.25, 58.0), (0.40, 61.0), (0.50, 60.0)]
    assert sorted(t.get_text() for t in ax.texts) == ["ar", "cs", "de", "tr"]
    assert "Spearman's ρ = 0.800 over 4 run(s)" in ax.get_title()   # as the table's 80.0
    assert "(no result: fr)" in ax.get_xlabel()


def test_scatter_title_says_n_a_where_the_table_does():
    exp = parse_experiment(with_plot(LANGS, SCATTER), "toy")
    records = lang_records({k: LANG_NUMBERS[k] for k in ("de", "ar")})
    fig = draw_scatter(exp, records, exp.plot, "t")
    assert "= n/a (2 run(s), fewer than 3) over 2 run(s)" in fig.axes[0].get_title()


def test_table_plot_positions_and_the_written_file(tmp_path):
    tree = with_plot(FOLDS, {"x": "rows", "xlabel": "a", "ylabel": "b"})
    exp = parse_experiment(tree, "toy")
    assert isinstance(exp.plot, TablePlot)
    records = fold_records()
    fig = draw_table(build_table(exp, records), exp.plot, "t")
    assert curves(fig)["Model Avg. (paper)"] == ([0.0, 1.0], [83.2, 83.1])
    path = plot_experiment(exp, build_table(exp, records), records, tmp_path / "p.png")
    assert matplotlib.image.imread(path).ndim == 3


@pytest.mark.parametrize("labels, expected", [
    (["M=1", "M=20", "M=40"], [1.0, 20.0, 40.0]),
    (["0-10", "10-20", "20-30"], [0.0, 10.0, 20.0]),
    (["-1.5", "0", "x=-2"], [-1.5, 0.0, -2.0]),
    (["fold-1", "fold-2"], [1.0, 2.0]),
    (["m30k-de", "m30k-fr", "xnli-ar"], [0.0, 1.0, 2.0]),     # not every label has a number
    (["m30k-de", "m30k-fr"], [0.0, 1.0]),                     # the same number twice
])
def test_positions(labels, expected):
    assert positions(labels) == expected


def test_the_section_names_what_the_plot_shows():
    info = RunInfo(size="full", command="paralib experiment toy", seconds=1.0,
                   started="2026-11-22 12:00 UTC", cpus=2, load=0.5, made=5, reused=0,
                   reused_seconds=0.0, plot="results/toy.png")
    for tree, plot, records in ((LANGS, SCATTER, lang_records(LANG_NUMBERS)),
                                (FOLDS, OVER, fold_records())):
        exp = parse_experiment(with_plot(tree, plot), "toy")
        text = render_section(exp, build_table(exp, records), records, info)
        assert f"![{exp.title}: {exp.plot.alt}](results/toy.png)" in text
    assert OverPlot.alt != ScatterPlot.alt != TablePlot.alt


def test_a_plot_without_kind_is_a_table_plot():
    with pytest.raises(ExperimentError, match="plot.only: 'Nope' is not in paper.rows"):
        parse_experiment(with_plot(FOLDS, {"x": "rows", "only": ["Nope"], "xlabel": "a",
                                           "ylabel": "b"}), "toy")


@pytest.mark.parametrize("tree, plot, message", [
    (FOLDS, {**OVER, "column": "Nope"}, "column 'Nope' is not in paper.columns"),
    (LANGS, {**OVER, "column": "SP Ovl."}, "is a correlation; draw it with kind: scatter"),
    (FOLDS, {**SCATTER, "row": "Cost", "column": "Model Avg."}, "is not one correlation"),
    (LANGS, {**SCATTER, "row": "Nope"}, "row 'Nope' is not in paper.rows"),
    (LANGS, {**SCATTER, "column": "Lang. Distance"}, "column 'Lang. Distance' is unavailable "
                                                     "here .URIEL"),
    (LANGS, {**OVER, "column": "Lang. Distance"}, "'Lang. Distance' is unavailable here"),
    (FOLDS, {**OVER, "kind": "pie"}, "plot: kind .pie. is not one of .table., .over., "
                                     ".scatter."),
    (FOLDS, {**OVER, "colour": "red"}, "plot.over.colour: unknown key"),
])
def test_a_plot_that_does_not_fit_its_experiment_is_refused(tree, plot, message):
    with pytest.raises(ExperimentError, match=message):
        parse_experiment(with_plot(tree, plot), "toy")


def test_an_absent_row_cannot_be_drawn():
    tree = copy.deepcopy(LANGS)
    tree["ours"]["absent"] = {"All Lang.": "no runs for every language"}
    tree["compare"] = []
    with pytest.raises(ExperimentError, match="row 'All Lang.' is absent here"):
        parse_experiment(with_plot(tree, SCATTER), "toy")
    folds = copy.deepcopy(FOLDS)
    folds["ours"]["absent"] = {"Cost": "x", "Overlap": "y"}
    folds["compare"] = []
    with pytest.raises(ExperimentError, match="every row is absent in column 'Model Avg.'"):
        parse_experiment(with_plot(folds, OVER), "toy")


def test_a_cell_not_computed_over_runs_cannot_be_drawn_over_steps():
    plain = copy.deepcopy(FOLDS)
    plain["ours"]["aggregate"] = []
    plain["ours"]["run"] = "{row} fold 1 WORD"
    with pytest.raises(ExperimentError, match="is not computed over runs"):
        parse_experiment(with_plot(plain, OVER), "toy")


def test_rows_drawn_over_different_values_are_refused():
    folds = copy.deepcopy(FOLDS)
    folds["ours"]["cells"] = {"Overlap": {"Model Avg.": {
        "run": "Overlap fold {fold} {model}", "metric": "sts17/sets/en-en",
        "aggregate": [{"over": "model", "how": "mean"},
                      {"over": "fold", "how": "max", "values": ["1", "2"]}]}}}
    with pytest.raises(ExperimentError, match="row 'Overlap' goes over \\['1', '2'\\] and "
                                              "row 'Cost' over \\['1', '2', '3'\\]"):
        parse_experiment(with_plot(folds, OVER), "toy")
