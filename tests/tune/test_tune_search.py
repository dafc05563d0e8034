"""The searchers: Tune domains from a space, the shuffled grid as points to evaluate, and
Optuna's TPE suggesting values inside the domains (lists as JSON text, ∞ kept)."""

from __future__ import annotations

import textwrap

import pytest

from paralib.tune.runner import make_search, param_space
from paralib.tune.space import read_space
from paralib.tune.validate import grid_points


@pytest.fixture()
def space(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(textwrap.dedent("""
        parameters:
          length_range: [[0, 10], [10, 30]]
          ppl_max: [50, .inf]
          lr: {loguniform: [1.0e-4, 1.0e-2]}
          megabatch: {randint: [1, 4]}
    """))
    return read_space(path)


def test_grid_points_become_points_to_evaluate(tmp_path):
    path = tmp_path / "g.yaml"
    path.write_text("parameters:\n  length_range: [[0, 10], [10, 30]]\n  margin: [0.2, 0.4]\n")
    g = read_space(path)
    points = grid_points(g, seed=1)
    alg, n = make_search("grid", g, points, concurrent=1, seed=1, samples=1)
    assert n == 4 and alg.max_concurrent == 1
    assert {p["length_range"] for p in alg._points_to_evaluate} == {"[0, 10]", "[10, 30]"}
    assert [g.decode(p) for p in alg._points_to_evaluate] == points


def test_optuna_suggests_inside_the_domains(space):
    pytest.importorskip("optuna")
    alg, n = make_search("optuna", space, [], concurrent=2, seed=0, samples=6)
    assert n == 6
    assert alg.set_search_properties("dev_pearson", "max", param_space(space))
    for i in range(6):
        values = space.decode(alg.suggest(f"t{i}"))
        assert values["length_range"] in ([0, 10], [10, 30])
        assert values["ppl_max"] in (50, float("inf"))
        assert 1e-4 <= values["lr"] <= 1e-2 and values["megabatch"] in (1, 2, 3, 4)
        alg.on_trial_complete(f"t{i}", {"dev_pearson": 50.0 + i, "training_iteration": 1})
