"""A real tuning run: two trials over length ranges, each selecting from real scored caption
pairs and training a tiny SP encoder for one epoch with Ray Train inside Tune, reporting dev
to Tune; the best configuration is evaluated on STS Benchmark and the report is written.
Also: the reaper frees an idle worker placement group (what an ASHA-stopped trial leaves)
and leaves one in use alone."""

from __future__ import annotations

import json

import pytest

from paralib.contracts import VERSION, TuneSummary
from paralib.tune.reaper import PlacementGroupReaper
from paralib.tune.runner import TuneOptions, run_tune


@pytest.mark.slow
def test_tiny_tuning_run(ray_session, space, space_config, scored_captions, tmp_path):
    storage = tmp_path / "tune"
    summary = run_tune(space, space_config(space, scored_captions),
                       TuneOptions(storage_path=str(storage)), progress=False)
    trials = summary.trials
    assert [t.status for t in trials] == ["completed", "completed"], trials
    assert sorted(json.dumps(t.params["length_range"]) for t in trials) == \
        ["[0, 14]", "[12, 100]"]
    for t in trials:
        assert t.selected_pairs == 300 and t.epochs_run == 1
        (epoch,) = t.history
        assert epoch["epoch"] == 1 and -100 < epoch["dev_pearson"] < 100
        trial_dir = storage / "lengths" / f"trial_{t.trial_id}"
        selection = json.loads((trial_dir / "select" / "selection.json").read_text())
        bound = [s for s in selection["steps"] if s["step"] == "bound"][0]
        assert [bound["lower"], bound["upper"]] == t.params["length_range"]
        assert (trial_dir / "model" / "config.json").is_file()
        assert t.model == str(trial_dir / "model")
        assert list(trial_dir.glob("events.out.tfevents*")), "no TensorBoard log"
        assert (trial_dir / "progress.csv").is_file()
    best = summary.best
    assert best["dev_pearson"] == max(t.history[0]["dev_pearson"] for t in trials)
    assert best["checkpoint_path"].startswith(str(storage / "lengths"))
    test = summary.test["results"]
    assert set(test) == {"stsb dev", "stsb test"} and all(-100 < v < 100 for v in test.values())
    files = summary.files
    report = (storage / "lengths" / "report")
    assert files["html"] == str(report / "report.html")
    md = (report / "report.md").read_text()
    assert "| [0, 14] |" in md and "| [12, 100] |" in md and "stsb test" in md
    assert (report / "plots" / "length_range.png").stat().st_size > 1000
    assert (report / "best-model" / "config.json").is_file()
    saved = json.loads((report / "report.json").read_text())
    assert saved["best"]["trial_id"] == best["trial_id"]
    assert saved == json.loads(json.dumps(summary.dump(), default=str))  # what it returned
    assert TuneSummary.load(saved).dump() == saved and saved["version"] == VERSION


def test_reaper_frees_idle_worker_groups_only(ray_session):
    ray = ray_session
    from ray.util.placement_group import placement_group, remove_placement_group
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

    idle = placement_group([{"CPU": 0.25}])
    busy = placement_group([{"CPU": 0.25}])
    other = placement_group([{"CPU": 0.5}])
    ray.get([idle.ready(), busy.ready(), other.ready()], timeout=60)

    @ray.remote(num_cpus=0.25)
    class Holder:
        def ping(self) -> int:
            return 1

    holder = Holder.options(scheduling_strategy=PlacementGroupSchedulingStrategy(busy)).remote()
    assert ray.get(holder.ping.remote(), timeout=60) == 1
    reaper = PlacementGroupReaper([{"CPU": 0.25}], grace_s=5)
    assert reaper.sweep(now=100.0) == []  # idle, but not yet for grace_s
    assert reaper.sweep(now=106.0) == [idle.id.hex()]
    table = ray.util.placement_group_table()
    assert table[idle.id.hex()]["state"] == "REMOVED"
    assert table[busy.id.hex()]["state"] == "CREATED"  # its bundle is in use
    assert table[other.id.hex()]["state"] == "CREATED"  # not a worker-group shape
    ray.kill(holder)
    remove_placement_group(busy)
    remove_placement_group(other)
