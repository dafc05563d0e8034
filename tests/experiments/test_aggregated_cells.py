"""Cells computed over runs: the best fold of the mean over models (2018 Table 5), Spearman's
ρ over runs with a property of each run (2019 Table 5), and columns not available here."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import yaml
from scipy.stats import spearmanr

from paralib.experiments.aggregate import rank_correlation
from paralib.experiments.render import cell_notes, main_table
from paralib.experiments.spec import ExperimentError, parse_experiment
from paralib.experiments.table import build_table

FOLDS = yaml.safe_load("""
number: 6
name: toy-folds
title: Toy folds
paper:
  citation: a paper
  table: Table 5
  caption: a caption
  rows: [Cost, Overlap]
  columns: [Model Avg.]
  values: {Cost: {Model Avg.: 83.2}, Overlap: {Model Avg.: 83.1}}
ours:
  label: ours
  run: "{row} fold {fold} {model}"
  metric: sts17/sets/en-en
  aggregate: [{over: model, how: mean}, {over: fold, how: max}]
compare:
  - {rows: [Cost, Overlap]}
grid:
  name: "{crit} fold {fold} {model}"
  axes:
    crit: {Cost: {}, Overlap: {}}
    fold: {"1": {}, "2": {}, "3": {}}
    model: {WORD: {}, LSTM: {}}
evaluate: {suites: [sts17]}
sizes: {smoke: {}, full: {}}
""")

# per criterion, fold → (WORD, LSTM): the best single run is not in the best fold
SCORES = {"Cost": {"1": (60.0, 40.0), "2": (70.0, 60.0), "3": (90.0, 20.0)},
          "Overlap": {"1": (50.0, 50.0), "2": (55.0, 45.0), "3": (40.0, 30.0)}}


def sts(value: float | None) -> dict:
    if value is None:
        return {"status": "skipped"}
    return {"status": "ok", "results": {"sts17": {"sets": {"en-en": {"status": "ok",
                                                                     "pearson": value}}}}}


def fold_records() -> dict:
    return {f"{c} fold {f} {m}": sts(v[i]) for c, folds in SCORES.items()
            for f, v in folds.items() for i, m in enumerate(("WORD", "LSTM"))}


def test_best_fold_of_the_mean_over_models():
    exp = parse_experiment(FOLDS, "toy")
    table = build_table(exp, fold_records())
    cost, overlap = table.cells[("Cost", "Model Avg.")], table.cells[("Overlap", "Model Avg.")]
    assert cost.ours == pytest.approx(65.0) and cost.ours_text == "65.0 (fold 2)"
    assert overlap.ours == pytest.approx(50.0) and overlap.ours_text == "50.0 (fold 1)"
    assert cost.details == ["best fold 2 of 3: fold 1: 50.0, fold 2: 65.0, fold 3: 55.0"]
    assert table.directions[0].ours == pytest.approx(15.0)
    notes = "\n".join(cell_notes(table, {}))
    assert "- Cost, Model Avg.: best fold 2 of 3: fold 1: 50.0, fold 2: 65.0" in notes


def test_a_fold_with_a_missing_model_has_no_mean():
    exp = parse_experiment(FOLDS, "toy")
    records = fold_records()
    records["Cost fold 2 LSTM"] = sts(None)          # fold 2 now lacks a model
    cell = build_table(exp, records).cells[("Cost", "Model Avg.")]
    assert cell.ours == pytest.approx(55.0) and cell.ours_text == "55.0 (fold 3)"
    assert "(no result: 2)" in cell.details[0]
    for name in list(records):
        if name.startswith("Cost"):
            records[name] = sts(None)
    cell = build_table(exp, records).cells[("Cost", "Model Avg.")]
    assert cell.ours is None and cell.ours_text == "n/a (no result for any fold)"


def test_aggregate_steps_are_checked():
    bad = copy.deepcopy(FOLDS)
    bad["ours"]["aggregate"] = [{"over": "seed", "how": "mean"}]
    with pytest.raises(ExperimentError, match="has no {seed}"):
        parse_experiment(bad, "toy")
    bad["ours"]["aggregate"] = [{"over": "model", "how": "mean"}]   # {fold} left unfilled
    with pytest.raises(ExperimentError, match="reads run 'Cost fold {fold} WORD'"):
        parse_experiment(bad, "toy")
    bad["ours"]["aggregate"] = [{"over": "model", "how": "mean"},
                                {"over": "fold", "how": "spearman", "with": "train/pairs"}]
    with pytest.raises(ExperimentError, match="first .innermost. step"):
        parse_experiment(bad, "toy")
    bad["ours"]["aggregate"] = [{"over": "model", "how": "spearman"}]
    with pytest.raises(ExperimentError, match="'with' is the other variable"):
        parse_experiment(bad, "toy")


def test_rank_correlation_on_known_numbers():
    assert rank_correlation([1, 2, 3, 4], [10, 20, 40, 30]) == pytest.approx(0.8)
    assert rank_correlation([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # ties take their mean rank: ranks (1.5, 1.5, 3) against (1, 2, 3)
    assert rank_correlation([5, 5, 9], [1, 2, 3]) == pytest.approx(0.8660254)
    assert rank_correlation([1, 2, 3], [7, 7, 7]) != rank_correlation([1, 2, 3], [7, 7, 7])
    assert rank_correlation([1, 2, 3, 4], [1, 4, 9, 15], "pearson") == pytest.approx(
        float(np.corrcoef([1, 2, 3, 4], [1, 4, 9, 15])[0, 1]))
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=30), rng.normal(size=30)
    assert rank_correlation(list(x), list(y)) == pytest.approx(spearmanr(x, y).statistic)


LANGS = yaml.safe_load("""
number: 11
name: toy-langs
title: Toy languages
paper:
  citation: a paper
  table: Table 5
  caption: a caption
  rows: [All Lang., Low]
  columns: [SP Ovl., Lang. Distance]
  values:
    All Lang.: {SP Ovl.: 71.5, Lang. Distance: -22.8}
    Low: {SP Ovl.: 23.6, Lang. Distance: -63.8}
ours:
  label: ours
  run: "SP en-{lang}"
  metric: sts/all
  scale: 100
  aggregate: [{over: lang, how: spearman, with: properties/sp_overlap}]
  cells:
    Low:
      SP Ovl.:
        run: "SP en-{lang}"
        metric: sts/all
        aggregate:
          - {over: lang, how: spearman, with: properties/sp_overlap,
             where: {metric: properties/sp_overlap, at_most: 0.3}}
  unavailable:
    Lang. Distance: URIEL distances are not in the data here
compare:
  - {sign: [All Lang., SP Ovl.]}
  - {sign: [All Lang., Lang. Distance]}
grid:
  name: "SP en-{lang}"
  axes:
    lang: {de: {}, fr: {}, cs: {}, ar: {}, tr: {}}
evaluate: {suites: [sts]}
sizes: {smoke: {}, full: {}}
""")

# language → (SP overlap, STS mean)
LANG_NUMBERS = {"de": (0.50, 60.0), "fr": (0.60, 62.0), "cs": (0.40, 61.0),
                "ar": (0.05, 50.0), "tr": (0.25, 58.0)}


def lang_records(numbers: dict) -> dict:
    return {f"SP en-{k}": {"status": "ok", "properties": {"sp_overlap": x},
                           "results": {"sts": {"all": {"pearson": y}}}}
            for k, (x, y) in numbers.items()}


def test_spearman_across_runs_and_a_filtered_group():
    exp = parse_experiment(LANGS, "toy")
    table = build_table(exp, lang_records(LANG_NUMBERS))
    every = table.cells[("All Lang.", "SP Ovl.")]
    # overlap ranks ar<tr<cs<de<fr = 1..5; STS ranks ar 1, tr 2, de 3, cs 4, fr 5
    assert every.ours == pytest.approx(100 * 0.9) and every.ours_text == "90.0"
    assert "Spearman's ρ over 5 run(s)" in every.details[0]
    assert "ar (0.05, 50.0)" in every.details[0]
    low = table.cells[("Low", "SP Ovl.")]             # only ar and tr have overlap ≤ 0.3
    assert low.ours is None and low.ours_text == "n/a (2 run(s), fewer than 3)"
    signs = [d for d in table.directions if d.kind == "sign"]
    assert signs[0].agrees is True                      # paper +71.5, ours +90
    assert signs[1].ours is None and signs[1].agrees is None


def test_a_run_without_its_property_is_left_out():
    exp = parse_experiment(LANGS, "toy")
    records = lang_records(LANG_NUMBERS)
    records["SP en-fr"] = {"status": "error", "message": "boom"}
    cell = build_table(exp, records).cells[("All Lang.", "SP Ovl.")]
    assert "over 4 run(s)" in cell.details[0] and "without a result: fr" in cell.details[0]
    assert cell.ours == pytest.approx(100 * 0.8)


def test_unavailable_column_renders_with_its_reason():
    exp = parse_experiment(LANGS, "toy")
    table = build_table(exp, lang_records(LANG_NUMBERS))
    cell = table.cells[("All Lang.", "Lang. Distance")]
    assert cell.ours is None and cell.ours_text == "not available here"
    assert cell.paper_text == "-22.8"
    text = "\n".join(main_table(exp, table))
    assert "| -22.8 | not available here | — |" in text
    notes = cell_notes(table, {})
    assert notes[0] == ("Not available here: Lang. Distance: URIEL distances are not in the "
                        "data here.")
    bad = copy.deepcopy(LANGS)
    bad["ours"]["unavailable"] = {"Distance": "x"}
    with pytest.raises(ExperimentError, match="'Distance' is not in paper.columns"):
        parse_experiment(bad, "toy")
