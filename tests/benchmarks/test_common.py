"""``benchmarks/common.py``: the one result format every benchmark writes."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def common(load_script, monkeypatch):
    module = load_script("common")
    monkeypatch.setattr(module, "_run", None)
    return module


def test_result_starts_with_what_ran_where_when_and_under_what_load(common, tmp_path):
    common.begin("demo", ["--n", "two words"])
    path = common.write_json(tmp_path / "demo", {"rows": [{"a": 1}], "extra": "kept"})
    assert path == tmp_path / "demo.json"
    result = json.loads(path.read_text())
    assert list(result)[:5] == ["benchmark", "command", "machine", "date", "load_average"]
    assert result["benchmark"] == "demo"
    assert result["command"] == "python -m benchmarks demo --n 'two words'"
    assert result["machine"]["cores"] >= 1 and "torch" in result["machine"]
    assert len(result["load_average"]["before"]) == len(result["load_average"]["after"]) == 3
    assert result["rows"] == [{"a": 1}] and result["extra"] == "kept"


def test_payload_keys_win_and_load_before_is_unknown_outside_the_harness(common):
    stamped = common.stamp({"machine": {"cpu": "where the parts ran"}})
    assert stamped["machine"] == {"cpu": "where the parts ran"}
    assert stamped["load_average"]["before"] is None
    assert len(stamped["load_average"]["after"]) == 3
