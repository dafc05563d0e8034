"""Ray Train workers on several nodes of a real multi-node cluster on this machine: a job
submitted through the job server runs ``jobs/run.py train`` with two DDP workers of one CPU each
on nodes of one CPU each, so they must land on different nodes."""

from __future__ import annotations

import sys

import pytest
import yaml

import paralib
from paralib.paths import PROJECT_ROOT, data_root

pytestmark = [pytest.mark.slow, pytest.mark.cluster]


def test_training_workers_run_on_several_nodes(multinode, tmp_path):
    config = {"train": {
        "sources": [{"kind": "sts"}],
        "model": {"parts": [{"name": "sp", "vocab_size": 1000, "dim": 32}]},
        "megabatch": {"size": 2, "across_workers": True}, "epochs": 1, "workers": 2,
        "cpus_per_worker": 1, "output": str(tmp_path / "model"),
        "storage_path": str(tmp_path / "runs"), "name": "multinode"}}
    path = tmp_path / "train.yaml"
    path.write_text(yaml.safe_dump(config))
    result = multinode.submit(
        f"{sys.executable} jobs/run.py train --config {path} --no-progress",
        runtime_env={"working_dir": str(PROJECT_ROOT),
                     # the job runs from a copy of the working tree, where ../shared/data
                     # (the STS sets) is not: name the data folder
                     "env_vars": {"OMP_NUM_THREADS": "1", "PARALIB_DATA": str(data_root())}},
        timeout_s=500)
    print(f"training job: {result.status} in {result.seconds:.1f} s")
    assert result.succeeded, result.logs[-3000:]
    workers = [a for a in multinode.actors("RayTrainWorker") if a["node_id"]]
    assert len({a["node_id"] for a in workers}) == 2
    assert paralib.load(tmp_path / "model").encode(["a dog"]).shape == (1, 32)
