"""Cells computed over runs: the best fold of the mean over models (2018 Table 5), Spearman's
ρ over runs with a property of each run (2019 Table 5), and columns not available here."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from scipy.stats import spearmanr
from toys import FOLDS, LANG_NUMBERS, LANGS, fold_records, lang_records, sts

from paralib.experiments.aggregate import rank_correlation
from paralib.experiments.metrics import MetricError
from paralib.experiments.render import cell_notes, main_table
from paralib.experiments.spec import ExperimentError, parse_experiment
from paralib.experiments.table import build_table


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


def test_a_wrong_metric_path_in_a_computed_cell_is_an_error_not_n_a():
    bad = copy.deepcopy(LANGS)
    bad["ours"]["aggregate"][0]["with"] = "properties/sp_overlp"
    exp = parse_experiment(bad, "toy")
    with pytest.raises(MetricError, match="no 'sp_overlp' in the results of run 'SP en-de'"):
        build_table(exp, lang_records(LANG_NUMBERS))
    folds = copy.deepcopy(FOLDS)
    folds["ours"]["metric"] = "sts17/sets/en-eng"
    with pytest.raises(MetricError, match="no 'en-eng'"):
        build_table(parse_experiment(folds, "toy"), fold_records())


def test_a_step_over_no_values_is_refused():
    bad = copy.deepcopy(FOLDS)
    bad["ours"]["aggregate"] = [{"over": "model", "how": "mean"},
                                {"over": "fold", "how": "max", "values": []}]
    with pytest.raises(ExperimentError, match="aggregate.1.values: List should have at least "
                                              "1 item"):
        parse_experiment(bad, "toy")
