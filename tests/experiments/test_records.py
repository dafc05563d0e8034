"""Kept run records: a run finished on one machine is reused on another without its model,
and ``--only`` makes an experiment a few runs at a time, its section waiting for the last."""

from __future__ import annotations

import argparse
import json
import shutil

import pytest
from toys import TEST

from paralib.contracts import RunRecord
from paralib.experiments import cli, runner
from paralib.experiments.book import section_names
from paralib.experiments.plan import kept_runs, plan_runs
from paralib.experiments.records import RecordStore, selected
from paralib.experiments.spec import ExperimentError, load_experiment


def test_only_finished_records_are_kept(tmp_path):
    store = RecordStore(tmp_path / "kept")
    run = tmp_path / "runs" / "GRAN-PPDB"
    ok = {"status": "ok", "train_key": "t", "eval_key": "e", "results": {"sts": {}}}
    store.keep(run, {**ok, "status": "error", "message": "boom"})
    store.keep(run, {"status": "ok", "train_key": "t", "eval_key": "e"})  # no results
    assert store.read(run) is None
    store.keep(run, ok)
    assert store.read(run).dump() == {"version": 1, **ok}
    assert (tmp_path / "kept/GRAN-PPDB.json").is_file()
    assert store.read(run).complete("t", "e")
    assert not store.read(run).complete("t", "other")
    (tmp_path / "kept/GRAN-PPDB.json").write_text("{ torn")
    assert store.read(run) is None                    # unreadable: made again
    assert RecordStore(None).read(run) is None
    nested = RecordStore(tmp_path / "kept", runs=tmp_path / "runs")
    assert nested.path(run / "tune" / "train.lr-0.2") == \
        tmp_path / "kept/GRAN-PPDB/tune/train.lr-0.2.json"   # the dot is not a suffix
    of = RecordStore.of(tmp_path / "kept", "toy", "full", tmp_path / "out")
    assert of.path(tmp_path / "out/toy/full/runs/GRAN-PPDB/tune/c") == \
        tmp_path / "kept/toy/full/GRAN-PPDB/tune/c.json"
    assert selected("GRAN PPDB", []) and selected("GRAN PPDB", ["AVG *", "GRAN *"])
    assert not selected("AVG PPDB", ["GRAN *"])


def test_a_tuned_record_missing_a_candidate_for_another_reason_is_made_again():
    def tuned(*candidates):
        return RunRecord.load({"status": "ok", "train_key": "t", "eval_key": "e",
                               "results": {"sts": {}}, "tuned": {"candidates": [
                                   {"status": "ok", "value": 66.1}, *candidates]}})

    small = {"status": "error", "message": "SelectError: size 24000 asked but only 6834 pairs "
             "pass the filters", "value": None}           # a record made before the flag
    assert tuned(small).complete("t", "e")
    assert tuned({"status": "error", "message": "x", "too_few_pairs": True}).complete("t", "e")
    disk = {"status": "error", "message": "WorkerGroupError: Training failed due to worker "
            "errors: [Errno 28] No space left on device", "value": None}
    assert not tuned(small, disk).complete("t", "e")
    assert not tuned({**small, "too_few_pairs": False}).complete("t", "e")

def test_a_run_kept_on_one_machine_is_reused_on_another_without_its_model(crafted,
                                                                          tmp_path):
    path, trained = crafted
    kept = tmp_path / "kept"
    first = runner.run_experiment(str(path), size="smoke", out=tmp_path / "machine1",
                                  records=kept, echo=lambda _: None)
    here = kept / "toy-tuned/smoke"
    files = sorted(str(p.relative_to(here)) for p in here.rglob("*.json"))
    assert files == ["Fixed.json", "Tuned.json", "Tuned/tune/train.lr-0.1.json",
                     "Tuned/tune/train.lr-0.2.json", "Tuned/tune/train.lr-0.3.json"]
    texts = [(here / f).read_text() for f in files]
    stamps = [(here / f).stat().st_mtime_ns for f in files]
    assert json.loads((kept / "toy-tuned/smoke/Fixed.json").read_text())["results"] == \
        first.records["Fixed"].results

    trained.clear()                                   # a fresh machine: no run folders
    second = runner.run_experiment(str(path), size="smoke", out=tmp_path / "machine2",
                                   records=kept, echo=lambda _: None)
    assert trained == []
    assert all(r.reused for r in second.records.values())
    assert not (tmp_path / "machine2/toy-tuned/smoke/runs/Fixed/model").exists()
    assert {k: c.ours for k, c in second.table.cells.items()} == \
        {k: c.ours for k, c in first.table.cells.items()}
    assert second.records["Tuned"].made == first.records["Tuned"].made
    kept_text = {str(p.relative_to(here)): p.read_text() for p in here.rglob("*.json")}
    assert kept_text == dict(zip(files, texts, strict=True))  # reuse rewrites nothing
    assert [(here / f).stat().st_mtime_ns for f in files] == stamps
    assert "reused them all" in second.results.read_text()
    assert kept_runs(load_experiment(str(path)), "smoke", kept) == (2, 2)

    # a changed run is made again; the unchanged one is still reused
    third = runner.run_experiment(str(path), size="smoke", out=tmp_path / "machine3",
                                  records=kept, overrides=["train.lr=0.3"],
                                  echo=lambda _: None)
    assert trained == [0.3] and third.records["Tuned"].reused
    assert third.table.cells[("Fixed", "STS")].ours == TEST[0.3]
    # the kept Fixed now has lr 0.3: the experiment as written has one run left to make
    assert kept_runs(load_experiment(str(path)), "smoke", kept) == (1, 2)
    (kept / "toy-tuned/smoke/Tuned.json").unlink()
    assert kept_runs(load_experiment(str(path)), "smoke", kept) == (0, 2)
    assert kept_runs(load_experiment(str(path)), "smoke", tmp_path / "none") == (0, 2)


def test_only_makes_some_runs_and_the_section_waits_for_the_rest(crafted, tmp_path):
    path, trained = crafted
    out, kept = tmp_path / "out", tmp_path / "kept"
    book = out / "toy-tuned/smoke/RESULTS.md"
    lines: list[str] = []
    part = runner.run_experiment(str(path), size="smoke", out=out, records=kept,
                                 only=["Fix*"], echo=lines.append)
    assert trained == [0.1] and not part.written and part.held == ["Tuned"]
    assert part.records["Tuned"].status == "held" and part.failed == []
    assert not book.exists()
    assert "1 run(s) not made yet" in lines[-1] and "Tuned" in lines[-1]

    shutil.rmtree(out)                                # the next machine, the rest of it
    trained.clear()
    rest = runner.run_experiment(str(path), size="smoke", out=out, records=kept,
                                 only=["Tuned"], echo=lambda _: None)
    assert sorted(trained) == [0.1, 0.2, 0.3] and rest.written and rest.held == []
    assert rest.records["Fixed"].reused and not rest.records["Tuned"].reused
    assert section_names(book.read_text()) == ["toy-tuned"]
    assert f"--records {kept}" in book.read_text() and "--only" not in book.read_text()


def test_only_must_name_a_run(crafted, tmp_path, capsys):
    path, trained = crafted
    with pytest.raises(ExperimentError, match=r"--only GRAN\* names no run \(runs: Fixed, "
                                              r"Tuned\)"):
        runner.run_experiment(str(path), size="smoke", out=tmp_path, only=["GRAN*"],
                              echo=lambda _: None)
    assert trained == []
    parser = argparse.ArgumentParser()
    cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["experiment", str(path), "--smoke", "--out", str(tmp_path),
                              "--records", str(tmp_path / "kept"), "--only", "Fixed"])
    assert args.only == ["Fixed"] and cli.run(args) == 0
    assert "1 run(s) not made yet" in capsys.readouterr().err
    assert (tmp_path / "kept/toy-tuned/smoke/Fixed.json").is_file()


def test_a_tuned_grid_spread_over_machines_trains_its_choice_again(crafted, tmp_path):
    path, trained = crafted
    kept = tmp_path / "kept"
    tune = kept / "toy-tuned/smoke/Tuned/tune"
    runner.run_experiment(str(path), size="smoke", out=tmp_path / "machine1", records=kept,
                          only=["Fixed"], echo=lambda _: None)
    # machine 2 made two candidates of the grid before it was given back
    for lr in (0.1, 0.2):
        (tune / f"train.lr-{lr}.json").parent.mkdir(parents=True, exist_ok=True)
        (tune / f"train.lr-{lr}.json").write_text(json.dumps(
            {"status": "ok", "train": {"dev_pearson": {0.1: 50.0, 0.2: 70.0}[lr]},
             "train_key": _candidate_key(path, lr), "seconds": {"train": 5.0}}))
    trained.clear()
    result = runner.run_experiment(str(path), size="smoke", out=tmp_path / "machine3",
                                   records=kept, echo=lambda _: None)
    # the missing candidate is trained, then the dev-best kept one again for its model
    assert trained == [0.3, 0.2]
    rec = result.records["Tuned"]
    assert rec.tuned["chosen"] == "train.lr 0.2" and rec.retrained == "train.lr 0.2"
    assert rec.seconds["train"] > 10.0             # the kept candidates' seconds count
    assert result.table.cells[("Tuned", "STS")].ours == TEST[0.2]
    assert json.loads((tune / "train.lr-0.3.json").read_text())["train"]["dev_pearson"] == 60.0


def _candidate_key(path, lr: float) -> str:
    """The fingerprint of the toy's candidate ``lr`` (the same under any output folder)."""
    plans = plan_runs(load_experiment(str(path)), "smoke", path.parent / "elsewhere")
    tuned = next(p for p in plans if p.name == "Tuned")
    return next(c.train_key for c in tuned.candidates if c.params["train.lr"] == lr)



def test_a_record_kept_before_a_field_entered_the_keys_is_rekeyed_not_orphaned(crafted,
                                                                              tmp_path):
    """A run that sets a field run keys left out when it was kept
    (``ChangesResultsRekeyed``: ``train.group_negatives``) is found under its former keys,
    reused, and kept again under its new ones."""
    path, trained = crafted
    kept, setting = tmp_path / "kept", {"train.group_negatives": False}
    runner.run_experiment(str(path), size="smoke", out=tmp_path / "machine1", records=kept,
                          overrides=["train.group_negatives=false"], echo=lambda _: None)
    exp = load_experiment(str(path))
    fixed = {p.name: p for p in plan_runs(exp, "smoke", tmp_path / "machine2" / exp.name /
                                          "smoke", setting)}["Fixed"]
    assert fixed.former_keys[0] and fixed.former_keys[0] != fixed.train_key
    record = kept / "toy-tuned/smoke/Fixed.json"
    made = json.loads(record.read_text())
    assert (made["train_key"], made["eval_key"]) == (fixed.train_key, fixed.eval_key)
    made["train_key"], made["eval_key"] = fixed.former_keys   # as the keys were before
    record.write_text(json.dumps(made))

    trained.clear()
    again = runner.run_experiment(str(path), size="smoke", out=tmp_path / "machine2",
                                  records=kept, overrides=["train.group_negatives=false"],
                                  echo=lambda _: None)
    assert trained == [] and again.records["Fixed"].reused
    now = json.loads(record.read_text())
    assert (now["train_key"], now["eval_key"]) == (fixed.train_key, fixed.eval_key)
    assert now["results"] == made["results"]
