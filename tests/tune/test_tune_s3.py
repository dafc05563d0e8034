"""A tiny tuning search with ``storage_path`` on S3 (a moto server on 127.0.0.1): Tune's
experiment state, every trial's results and TensorBoard event files, the trial outputs and the
report all land in the bucket, and the best configuration is read back from there, both
through paralib's report and through Ray Tune's own ``ExperimentAnalysis``."""

from __future__ import annotations

import json

import pytest

from paralib.io import fs
from paralib.tune.results import read_best
from paralib.tune.runner import TuneOptions, run_tune

boto3 = pytest.importorskip("boto3")

BUCKET = "paralib-tune"


@pytest.fixture()
def s3_client(s3_endpoint):
    client = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1",
                          aws_access_key_id="testing", aws_secret_access_key="testing")
    client.create_bucket(Bucket=BUCKET)
    return client


def _keys(client, prefix: str) -> list[str]:
    keys, token = [], None
    while True:
        page = client.list_objects_v2(Bucket=BUCKET, Prefix=prefix,
                                      **({"ContinuationToken": token} if token else {}))
        keys += [o["Key"] for o in page.get("Contents", [])]
        if not page.get("IsTruncated"):
            return keys
        token = page["NextContinuationToken"]


@pytest.mark.slow
def test_tuning_results_and_report_go_to_s3(ray_session, space, space_config, scored_captions,
                                            s3_endpoint, s3_client):
    cfg = space_config(space, scored_captions, s3={
        "endpoint_url": s3_endpoint, "access_key": "testing", "secret_key": "testing"})
    storage = f"s3://{BUCKET}/tune"
    summary = run_tune(space, cfg, TuneOptions(storage_path=storage), progress=False)

    experiment = f"{storage}/lengths"
    assert summary.experiment == experiment
    trials = summary.trials
    assert [t.status for t in trials] == ["completed", "completed"], trials
    keys = _keys(s3_client, "tune/lengths/")
    for t in trials:
        root = f"tune/lengths/trial_{t.trial_id}"
        mine = [k for k in keys if k.startswith(root + "/")]
        assert f"{root}/result.json" in mine and f"{root}/progress.csv" in mine, mine
        assert any(k.rsplit("/", 1)[-1].startswith("events.out.tfevents") for k in mine), \
            f"no TensorBoard event file under {root}: {mine}"
        for name in ("trial.json", "parameters.json", "select/selection.json",
                     "select/pairs.parquet", "model/config.json"):
            assert f"{root}/{name}" in mine, (name, mine)
        assert t.model == f"s3://{BUCKET}/{root}/model"
        assert t.selected_pairs == 300 and len(t.history) == 1
        result = json.loads(s3_client.get_object(Bucket=BUCKET, Key=f"{root}/result.json")
                            ["Body"].read().decode().splitlines()[-1])
        assert result["dev_pearson"] == t.history[0]["dev_pearson"]
    # Tune's experiment state (what Tuner.restore and ExperimentAnalysis read)
    assert any(k.startswith("tune/lengths/experiment_state") for k in keys), keys
    for name in ("report.json", "report.md", "report.html", "plots/length_range.png",
                 "best-model/config.json", "evaluate/report.md"):
        assert f"tune/lengths/report/{name}" in keys, (name, keys)
    assert summary.files["json"] == f"{experiment}/report/report.json"
    assert set(summary.test["results"]) == {"stsb dev", "stsb test"}

    # the best configuration, read back from the bucket
    best = read_best(experiment, cfg.s3.options())
    assert best == summary.best
    assert best["dev_pearson"] == max(t.history[0]["dev_pearson"] for t in trials)
    assert best["checkpoint_path"].startswith(f"{BUCKET}/tune/lengths/trial_{best['trial_id']}")
    assert fs.exists(f"s3://{best['checkpoint_path']}/model/model.safetensors",
                     cfg.s3.options())

    from ray.tune import ExperimentAnalysis

    filesystem, inner = fs.resolve(experiment, cfg.s3.options())
    analysis = ExperimentAnalysis(inner, storage_filesystem=filesystem,
                                  default_metric="dev_pearson", default_mode="max")
    assert space.decode(analysis.get_best_config(scope="all")) == best["params"]
