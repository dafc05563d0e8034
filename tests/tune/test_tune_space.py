"""Search-space files: bad input fails before anything starts, naming the file and the key."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from paralib.config import Config
from paralib.tune.space import SpaceError, decode, encode, read_space
from paralib.tune.validate import grid_points, probe_points, validate_space

SPACES = Path(__file__).resolve().parents[2] / "tune" / "spaces"


def _space(tmp_path: Path, text: str, name: str = "space.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _fails(path: Path, *needles: str) -> str:
    with pytest.raises(SpaceError) as err:
        read_space(path)
    msg = str(err.value)
    assert str(path) in msg
    for n in needles:
        assert n in msg, msg
    return msg


def test_unknown_parameter_names_file_and_key(tmp_path):
    path = _space(tmp_path, """
        parameters:
          margin: [0.2, 0.4]
          lenght_range: [[0, 10]]
    """)
    msg = _fails(path, "parameters.lenght_range", "unknown parameter")
    assert "length_range" in msg  # the shortcuts are listed


def test_unknown_dotted_key_names_the_missing_part(tmp_path):
    _fails(_space(tmp_path, "parameters: {train.margn: [0.2]}"),
           "parameters.train.margn", "train has no key 'margn'")
    _fails(_space(tmp_path, "parameters: {train.model.parts.first.dim: [8]}"),
           "parameters.train.model.parts.first.dim",
           "train.model.parts is a list; expected an index, got 'first'")
    _fails(_space(tmp_path, "set: {select.sise: 10}\nparameters: {margin: [0.2]}"),
           "set.select.sise")


@pytest.mark.parametrize("domain, needle", [
    ("{grid: []}", "empty range"),
    ("[]", "empty range"),
    ("{range: [1.0, 0.5, 0.1]}", "empty range"),
    ("{uniform: [0.5, 0.5]}", "empty range"),
    ("{loguniform: [0.01, 0.001]}", "empty range"),
    ("{randint: [5, 2]}", "empty range"),
    ("{range: [0.1, 0.5, 0]}", "step must be positive"),
    ("{normal: [0, 1]}", "unknown domain 'normal'"),
    ("{grid: [0.2, 0.2]}", "repeats a value"),
])
def test_empty_or_malformed_domains(tmp_path, domain, needle):
    _fails(_space(tmp_path, f"parameters:\n  margin: {domain}\n"), "parameters.margin", needle)


def test_structure_errors(tmp_path):
    _fails(_space(tmp_path, "parameters: {}\n"), "parameters")
    _fails(_space(tmp_path, "search: annealing\nparameters: {margin: [0.2]}\n"), "search")
    _fails(_space(tmp_path, "parameter: {margin: [0.2]}\n"), "parameter", "unknown key")
    _fails(_space(tmp_path, "parameters: [margin\n"), "not valid YAML")
    with pytest.raises(SpaceError, match="not found"):
        read_space(tmp_path / "missing.yaml")


def test_domains_and_labels(tmp_path):
    space = read_space(_space(tmp_path, """
        parameters:
          cost_max: {range: [0.2, 1.0, 0.1]}
          length_range: [[0, 10], [10, 30]]
          lr: {loguniform: [1.0e-4, 1.0e-2]}
          megabatch: {randint: [1, 60]}
          ppl_max: [25, .inf]
    """))
    by = {p.name: p for p in space.params}
    assert by["cost_max"].values == [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    assert by["length_range"].labels() == ["[0, 10]", "[10, 30]"]
    assert decode(encode([10, 30])) == [10, 30] and decode(0.5) == 0.5
    assert (by["lr"].kind, by["lr"].low, by["lr"].high) == ("loguniform", 1e-4, 1e-2)
    assert by["ppl_max"].values[1] == float("inf")
    assert space.decode({"cost_max": 0.3, "length_range": "[0, 10]", "lr": 0.001,
                         "megabatch": 7, "ppl_max": 25})["length_range"] == [0, 10]
    probes = probe_points(space)
    assert {p["lr"] for p in probes} == {1e-4, 1e-2} and {p["megabatch"] for p in probes} \
        == {1, 60}
    with pytest.raises(SpaceError, match="parameters.lr: grid search needs discrete values"):
        grid_points(space, 0)


def test_grid_is_the_shuffled_cross_product(tmp_path):
    space = read_space(_space(tmp_path, """
        samples: 2
        parameters:
          overlap_min: [0.0, 0.1, 0.2, 0.3]
          overlap_max: {range: [0.6, 1.0, 0.1]}
    """))
    points = grid_points(space, seed=3)
    assert len(points) == 40
    combos = {(p["overlap_min"], p["overlap_max"]) for p in points}
    assert len(combos) == 20
    in_order = [(lo, hi) for lo in (0.0, 0.1, 0.2, 0.3) for hi in (0.6, 0.7, 0.8, 0.9, 1.0)]
    assert [(p["overlap_min"], p["overlap_max"]) for p in points[:20]] != in_order
    assert grid_points(space, seed=3) == points


def _base(scored: Path, **train) -> Config:
    return Config.model_validate({"select": {"input": str(scored)},
                                  "train": {"dev": "stsb-dev", **train}})


def test_values_the_configuration_rejects(tmp_path, scored_captions):
    path = _space(tmp_path, "parameters:\n  length_range: [[0, 10], [30, 10]]\n")
    with pytest.raises(SpaceError) as err:
        validate_space(read_space(path), _base(scored_captions), "grid")
    assert str(path) in str(err.value) and "length_range: [30, 10]" in str(err.value)
    assert "lower 30.0 > upper 10.0" in str(err.value)
    path = _space(tmp_path, "parameters:\n  noise: [0.8]\n")
    with pytest.raises(SpaceError, match="noise needs select.noise"):
        validate_space(read_space(path), _base(scored_captions), "grid")
    path = _space(tmp_path, "parameters:\n  megabatch: {randint: [0, 3]}\n")
    with pytest.raises(SpaceError, match="megabatch: 0"):
        validate_space(read_space(path), _base(scored_captions), "random")


def test_columns_metric_and_suites_checked_before_start(tmp_path, scored_captions):
    path = _space(tmp_path, "parameters:\n  ppl_max: [50, .inf]\n")
    with pytest.raises(SpaceError, match="column.s. lm_ppl, which the scored pairs"):
        validate_space(read_space(path), _base(scored_captions), "grid")
    path = _space(tmp_path, "parameters:\n  length_range: [[0, 10]]\n")
    with pytest.raises(SpaceError, match="metric: dev_pearson needs a dev set"):
        validate_space(read_space(path), Config.model_validate(
            {"select": {"input": str(scored_captions)}, "train": {"dev": "none"}}), "grid")
    with pytest.raises(SpaceError, match="no scored pairs at"):
        validate_space(read_space(path), _base(tmp_path / "nothing"), "grid")
    path = _space(tmp_path, "evaluate: [stsx]\nparameters:\n  length_range: [[0, 10]]\n")
    with pytest.raises(SpaceError, match="evaluate: unknown suite 'stsx'"):
        validate_space(read_space(path), _base(scored_captions), "grid")
    ok = _space(tmp_path, "parameters:\n  length_range: [[0, 10], [10, 100]]\n  bleu_max: "
                          "[0.6, 1.0]\n")
    assert len(validate_space(read_space(ok), _base(scored_captions), "grid")) == 4


@pytest.mark.parametrize("path", sorted(SPACES.glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_spaces_read(path):
    space = read_space(path)
    assert space.params and space.spec.description
    if space.spec.search == "grid":
        assert grid_points(space, 0)
