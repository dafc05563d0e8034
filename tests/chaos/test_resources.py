"""Issue 30 item 11: a request that no node can hold fails at once, naming what was asked
and what exists, instead of waiting forever (embedded Ray: nothing can be added)."""

from __future__ import annotations

import pytest

from paralib.config import RayConfig, load_config
from paralib.runtime import ResourceRequestError, check_fits


def test_check_fits_names_the_request_and_the_cluster(ray_session):
    import ray

    cpus = ray.cluster_resources()["CPU"]
    check_fits(RayConfig(), {"CPU": cpus}, "fits")  # the whole node: fine
    with pytest.raises(ResourceRequestError, match=r"score.num_cpus_per_actor: 1 x \{CPU="):
        check_fits(RayConfig(), {"CPU": cpus + 1}, "score.num_cpus_per_actor")
    with pytest.raises(ResourceRequestError, match=r"\d+ x \{CPU=1\}.*cluster \{CPU="):
        check_fits(RayConfig(), {"CPU": 1}, "train.workers", count=int(cpus) + 1)
    with pytest.raises(ResourceRequestError, match="GPU=1"):
        check_fits(RayConfig(), {"CPU": 0.5, "GPU": 1}, "backtranslate actor")


def test_a_joined_cluster_only_warns(ray_session, caplog):
    import ray

    cfg = RayConfig(address="auto")
    check_fits(cfg, {"CPU": ray.cluster_resources()["CPU"] + 1}, "score.num_cpus_per_actor")
    assert "waiting in case an autoscaler adds nodes" in caplog.text


def test_train_with_too_many_workers_fails_before_preparing(ray_session, tmp_path):
    import ray

    from paralib.train.run import train

    cfg = load_config(None, [f"train.output={tmp_path}/model", f"train.storage_path={tmp_path}",
                             f"train.workers={int(ray.cluster_resources()['CPU']) + 1}",
                             "train.sources=[{kind: pairs, path: /nonexistent/pairs}]"])
    with pytest.raises(ResourceRequestError, match="train.workers x train.cpus_per_worker"):
        train(cfg)  # the missing source would fail later: the check comes first
