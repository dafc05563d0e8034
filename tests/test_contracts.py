"""The typed contracts at the seams of a run: the committed run records load through the
migration and round-trip (their fingerprints: tests/experiments/test_fingerprints.py), and a
record from a newer paralib is refused."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from paralib import contracts
from paralib.contracts import (
    VERSION,
    ContractError,
    EvalReport,
    RunRecord,
    StageManifest,
    TrainingSummary,
    TrialRecord,
)
from paralib.experiments.records import RECORDS
from paralib.io.stage import fingerprint

COMMITTED = sorted(RECORDS.rglob("*.json"))


def test_the_committed_records_are_there():
    assert len(COMMITTED) > 300


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(RECORDS)))
def test_every_committed_record_migrates_and_round_trips(path: Path):
    raw = json.loads(path.read_text())
    assert raw.get("version", 0) in (0, VERSION)      # 0: written before the contracts
    record = RunRecord.load(raw)
    assert record.dump() == {"version": VERSION, **raw}  # nothing lost, nothing added
    again = RunRecord.load(json.loads(json.dumps(record.dump())))
    assert again.dump() == record.dump() and again == record
    if raw.get("train"):
        assert isinstance(record.train, TrainingSummary)
        assert record.train.pairs == raw["train"]["pairs"]
        assert record.train.dump()["history"] == raw["train"]["history"]
    assert record.complete(raw["train_key"], raw.get("eval_key", "")) == (
        "results" in raw and "eval_key" in raw and raw["status"] == "ok")


def test_a_record_of_a_newer_paralib_is_refused():
    with pytest.raises(ContractError, match="upgrade paralib"):
        RunRecord.load({"version": VERSION + 1, "name": "x"})
    with pytest.raises(ContractError):
        TrialRecord.load({"version": "one"})


def test_a_marker_keeps_what_it_was_given():
    made = fingerprint({"a": 1}, ["f"])
    marker = StageManifest(rows_in=3, rows_out=2, rows_rejected=1, hypotheses=2,
                           reasons={"long": 1}, stage="score", fingerprint=made,
                           identity=made.identity)
    back = StageManifest.load(json.loads(json.dumps(marker.dump())))
    assert back == marker and back.fingerprint == str(made)
    partial = StageManifest.load({"rows_in": 1})      # a hand-made marker
    assert partial.dump() == {"version": VERSION, "rows_in": 1} and partial.hypotheses == 0


def test_the_evaluation_report_reads_a_pearson_anywhere():
    report = EvalReport.load({"data": "d", "suites": ["stsb"], "seed": 1, "models": {},
                              "tasks": {"stsb": {"title": "STSB", "paper": "p", "models": {
                                  "m": {"status": "ok", "sets": {"dev": {"pearson": 71.5}}}}}}})
    assert report.pearson("stsb", "m", "sets", "dev") == 71.5
    assert report.pearson("stsb", "m", "sets", "test") is None
    assert report.pearson("sts", "m", "all") is None
    assert report.results("m") == {"stsb": {"status": "ok", "sets": {"dev": {"pearson": 71.5}}}}
    assert report.result("stsb", "m") == {"status": "ok", "sets": {"dev": {"pearson": 71.5}}}
    assert report.result("stsb", "other") == {} and report.result("sts", "m") == {}


def _free_form(annotation: Any) -> bool:
    """Whether a field's type is or holds a dict of ``Any`` (keys nothing declares)."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is dict and args[-1:] == (Any,):
        return True
    return any(_free_form(arg) for arg in args)


def test_the_contracts_have_at_most_five_free_form_fields():
    assert _free_form(dict[str, Any] | None) and _free_form(list[dict[str, Any]])
    assert _free_form(dict[str, dict[str, Any]]) and not _free_form(dict[str, float])
    models = [m for m in vars(contracts).values() if isinstance(m, type) and
              issubclass(m, BaseModel) and m.__module__ == contracts.__name__]
    free = [f"{m.__name__}.{name}" for m in models for name, field in m.model_fields.items()
            if _free_form(field.annotation)]
    assert len(free) <= 5, f"free-form dict fields in paralib/contracts.py: {free}"
