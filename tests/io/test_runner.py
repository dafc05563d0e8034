"""The sharded-stage runner (paralib/io/runner.py) with a stage of its own: shards of numbers
through one actor pool; odd numbers are rejects. It writes parts, markers and the summary,
skips finished shards on a rerun, refuses shards made with other options, and calls the
stage's hooks in order."""

from __future__ import annotations

import json
import sys

import pandas as pd
import pytest

from paralib.config import RayConfig
from paralib.io.context import StageContext
from paralib.io.runner import Actor, Plan, ShardedStage, Work, run_stage
from paralib.io.shards import read_marker, read_output
from paralib.io.stage import StageError, fingerprint


def read_numbers(batch: pd.DataFrame) -> pd.DataFrame:
    """The rows of the shards in ``batch``: ``n`` from ``start`` to ``stop``."""
    frames = []
    for key, start, stop in zip(batch["key"], batch["start"], batch["stop"], strict=True):
        frames.append(pd.DataFrame({"n": list(range(int(start), int(stop))), "shard_key": key,
                                    "shard_total": int(stop - start)}))
    return pd.concat(frames, ignore_index=True)


class Halve:
    """Halves even numbers; an odd number is a reject."""

    def __init__(self, factor: int):
        self.factor = factor

    def __call__(self, batch: pd.DataFrame) -> pd.DataFrame:
        odd = batch["n"].astype("int64") % 2 == 1
        return batch.assign(half=batch["n"] // 2 * self.factor, _first=True,
                            reason=odd.map({True: "odd", False: ""}), id=batch["n"].astype(str),
                            corpus="numbers", src_lang="xx", line=batch["n"], raw="")


class Numbers(ShardedStage):
    """Two shards of numbers, 0-9 and 10-14."""

    name, key, unit, columns = "numbers", "numbers.output", "halves", ["n", "half"]

    def __init__(self, ctx: StageContext, output: str, factor: int = 1):
        super().__init__(ctx)
        self.output, self.factor, self.calls = output, factor, []

    def plan(self) -> Plan:
        items = {"a": {"key": "a", "start": 0, "stop": 10},
                 "b": {"key": "b", "start": 10, "stop": 15}}
        return Plan(items, {k: fingerprint(i, self.factor) for k, i in items.items()},
                    rows=lambda keys: sum(items[k]["stop"] - items[k]["start"] for k in keys))

    def claimed(self) -> tuple[dict[str, str], dict]:
        return {}, {"factor": self.factor}

    def before(self, keys: list[str], report) -> list[str]:
        self.calls.append(("before", list(keys)))
        return keys

    def work(self, cluster: dict, keys: list[str]) -> Work:
        self.calls.append(("work", list(keys)))
        return Work([Actor(Halve, {"factor": self.factor}, "numbers actor", num_cpus=0.5)],
                    read=read_numbers)

    def after(self, report) -> None:
        self.calls.append(("after", report.rows_in))


def test_a_stage_runs_once_and_resumes(tmp_path):
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # Ray's workers get the code
    out = str(tmp_path / "numbers")
    ctx = StageContext(progress=False)
    stage = Numbers(ctx, out)
    report = run_stage(stage)
    assert (report.rows_in, report.rows_out, report.rows_rejected) == (15, 8, 7)
    assert report.reasons == {"odd": 7} and report.stage == "numbers"
    assert stage.calls == [("before", ["a", "b"]), ("work", ["a", "b"]), ("after", 15)]
    data = read_output(out).to_pandas().sort_values("n")
    assert data["n"].tolist() == [0, 2, 4, 6, 8, 10, 12, 14]
    assert data["half"].tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    assert read_marker(out, "b").rows_in == 5 and read_marker(out, "b").stage == "numbers"
    summary = json.loads((tmp_path / "numbers" / "_summary.json").read_text())
    assert summary["rows_in"] == 15 and summary["shards"] == 2

    again = Numbers(ctx, out)
    report = run_stage(again)
    assert report.shards_skipped == 2 and report.rows_in == 15
    assert again.calls == [("before", []), ("after", 15)]  # no actors: nothing to do

    with pytest.raises(StageError, match="other options"):
        run_stage(Numbers(ctx, out, factor=3))


def test_in_process_runs_the_same_chain_without_ray(tmp_path, monkeypatch):
    def no_ray(self):
        raise AssertionError("ray.in_process must not start Ray")

    monkeypatch.setattr(StageContext, "init_ray", no_ray)
    out = str(tmp_path / "numbers")
    ctx = StageContext(progress=False, ray=RayConfig(in_process=True))
    stage = Numbers(ctx, out, factor=2)
    report = run_stage(stage)
    assert (report.rows_in, report.rows_out, report.rows_rejected) == (15, 8, 7)
    assert report.reasons == {"odd": 7}
    data = read_output(out).to_pandas().sort_values("n")
    assert data["half"].tolist() == [0, 2, 4, 6, 8, 10, 12, 14]
    assert read_marker(out, "a").rows_in == 10 and read_marker(out, "b").rows_out == 3
    assert run_stage(Numbers(ctx, out, factor=2)).shards_skipped == 2
