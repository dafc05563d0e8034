"""Direction checks, metric paths and the generated reading, on hand-made run records."""

from __future__ import annotations

import pytest
import yaml

from paralib.experiments.metrics import MetricError, read_metric
from paralib.experiments.reading import reading
from paralib.experiments.render import directions_table, main_table
from paralib.experiments.spec import Comparison, parse_experiment
from paralib.experiments.table import Cell, build_table, direction

TREE = yaml.safe_load("""
number: 7
name: toy
title: Toy
paper:
  citation: a paper
  table: Table 6
  caption: a caption
  rows: [M=1, M=20]
  columns: [WORD, LSTM]
  values:
    M=1: {WORD: 82.3, LSTM: 81.5}
    M=20: {WORD: 84.0, LSTM: 81.5}
ours: {label: ours, run: "{column} {row}", metric: sts17/sets/en-en}
compare:
  - {rows: [M=20, M=1]}
grid:
  name: "{enc} {M}"
  axes:
    enc: {WORD: {}, LSTM: {}}
    M: {M=1: {}, M=20: {}}
evaluate: {suites: [sts17]}
sizes: {smoke: {}, full: {}}
""")


def record(value: float | None, status: str = "ok") -> dict:
    """A run record whose STS 2017 en-en Pearson is ``value``."""
    sets = {"en-en": {"status": "ok", "pearson": value}} if value is not None else \
        {"en-en": {"status": "missing", "message": "no file"}}
    return {"status": status, "results": {"sts17": {"status": "ok", "sets": sets}}}


def cells(pa, pb, oa, ob) -> dict:
    return {("a", "c"): Cell(pa, "", oa, "", "r1"), ("b", "c"): Cell(pb, "", ob, "", "r2")}


@pytest.mark.parametrize(("paper", "ours", "expect", "agrees"), [
    ((84.0, 82.3), (60.0, 55.0), None, True),     # same sign
    ((84.0, 82.3), (55.0, 60.0), None, False),    # opposite sign
    ((84.0, 82.3), (55.0, 55.0), None, False),    # a tie is not "higher"
    ((81.5, 81.5), (55.2, 55.0), None, True),     # paper tie: ours within the tie margin
    ((81.5, 81.5), (57.0, 55.0), None, False),    # ... or not
    ((None, None), (9.0, 3.0), ">", True),        # a claim stated without numbers
    ((84.0, 82.3), (None, 3.0), None, None),      # no result of ours: not checked
])
def test_direction_signs(paper, ours, expect, agrees):
    comp = Comparison(cells=(("a", "c"), ("b", "c")), expect=expect)
    d = direction(comp, ("a", "c"), ("b", "c"), cells(*paper, *ours))
    assert d.agrees is agrees
    if expect is None and paper[0] is not None:
        assert d.paper == pytest.approx(paper[0] - paper[1])


def test_rounding_noise_between_equal_cells_is_a_tie():
    from paralib.experiments.reading import fmt_delta

    # the same pairs selected twice: means differ only by summation order
    comp = Comparison(cells=(("a", "c"), ("b", "c")))
    d = direction(comp, ("a", "c"), ("b", "c"), cells(84.0, 82.3, 51.5, 51.5 + 7e-15))
    assert d.ours == 0.0 and fmt_delta(d, d.ours) == "+0.0"
    assert d.agrees is False  # a tie is not the paper's "higher"


def test_ratio_and_sign_comparisons():
    comp = Comparison(cells=(("a", "c"), ("b", "c")), measure="ratio")
    d = direction(comp, ("a", "c"), ("b", "c"), cells(855571.0, 2601.0, 5000.0, 20.0))
    assert d.paper == pytest.approx(855571 / 2601) and d.ours == 250.0 and d.agrees
    sign = Comparison(sign=("a", "c"))
    d = direction(sign, ("a", "c"), None, cells(-35.1, None, 12.0, None))
    assert d.paper_sign == "<" and d.agrees is False


def test_table_from_records_with_missing_and_skipped_runs():
    exp = parse_experiment(TREE, "toy.yaml")
    records = {"WORD M=1": record(50.0), "WORD M=20": record(52.5),
               "LSTM M=1": record(40.0), "LSTM M=20": {"status": "missing",
                                                       "message": "needs x"}}
    table = build_table(exp, records)
    assert table.cells[("M=20", "WORD")].ours == 52.5
    assert table.cells[("M=20", "LSTM")].ours_text == "missing input"
    assert [d.agrees for d in table.directions] == [True, None]
    assert table.cell_agreement(("M=20", "WORD")) == "yes"
    assert table.cell_agreement(("M=1", "WORD")) == "—"
    lines = main_table(exp, table)
    assert lines[0] == ("|  | WORD paper | WORD ours | WORD agrees | LSTM paper | LSTM ours | "
                        "LSTM agrees |")
    assert "| M=20 | 84.0 | 52.5 | yes | 81.5 | missing input | — |" in lines
    dirs = directions_table(table)
    assert dirs[2] == "| M=20 vs M=1 | +1.7 / +2.5 yes | +0.0 / — n/a |"
    text = reading(table, records, "smoke")
    assert text.startswith("The paper's direction holds in 1 of 1 comparisons checked here.")
    assert "Runs missing input: LSTM M=20 (needs x)." in text
    assert "smoke run" in text


def test_reading_names_what_disagrees_per_comparison():
    exp = parse_experiment(TREE, "toy.yaml")
    records = {"WORD M=1": record(50.0), "WORD M=20": record(49.0),
               "LSTM M=1": record(40.0), "LSTM M=20": record(45.0)}
    text = reading(build_table(exp, records), records, "full")
    assert "holds in 0 of 2" in text  # LSTM: paper tie, ours +5 beyond the margin
    assert "It does not hold for M=20 vs M=1 in 2 of 2 columns (WORD, LSTM)." in text
    assert "below the paper's on average over the 4 cells" in text


def test_metric_paths():
    rec = {"status": "ok", "name": "r", "train": {"dev_pearson": 71.2},
           "results": {
               "sts": {"status": "ok", "all": {"pearson": 60.0},
                       "years": {"2012": {"pearson": 55.0, "spearman": 50.0}},
                       "sets": {"2012 MSRpar": {"status": "ok", "pearson": 40.0},
                                "2013 FNWN": {"status": "ok", "pearson": 20.0},
                                "2016 headlines": {"status": "ok", "pearson": 90.0},
                                "2014 images": {"status": "missing"}}},
               "report": {"rows": [{"x": 1.0}, {"x": 2.0}]}}}
    assert read_metric(rec, "sts/all") == 60.0
    assert read_metric(rec, "sts/years/2012") == 55.0
    assert read_metric(rec, "sts/years/2012/spearman") == 50.0
    assert read_metric(rec, "sts/datasets/2012-2015") == 30.0
    assert read_metric(rec, "sts/sets/2014 images") is None
    assert read_metric(rec, "train/dev_pearson") == 71.2
    assert read_metric(rec, "report/rows/-1/x") == 2.0
    assert read_metric({**rec, "status": "missing"}, "sts/all") is None
    with pytest.raises(MetricError, match="no 'tears'"):
        read_metric(rec, "sts/tears/2012")
    with pytest.raises(MetricError, match="not evaluated on suite 'stsb'"):
        read_metric(rec, "stsb/sets/test")


def test_small_differences_keep_their_sign_and_digits():
    from paralib.experiments.reading import fmt_delta
    from paralib.experiments.table import DirectionCheck

    d = DirectionCheck(a=("x", "y"), b=None, measure="difference", paper=None, paper_sign=None,
                  ours=None, agrees=None)
    assert [fmt_delta(d, v) for v in (0.03, -0.004, 0.0, 1.25, -12.0)] == [
        "+0.03", "-0.004", "+0.0", "+1.2", "-12.0"]
    # near 1 two significant digits would round to a bare "+1"
    assert [fmt_delta(d, v) for v in (0.99, 0.996, -0.9951)] == ["+0.99", "+1.0", "-1.0"]
