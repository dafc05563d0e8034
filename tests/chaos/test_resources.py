"""A request that no node can hold fails at once, naming what was asked
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


def test_an_autoscaler_that_can_add_no_such_node_fails_at_once(ray_session, tmp_path, caplog):
    """With ``ray.node_types`` (the cluster launcher YAML), a joined cluster checks a request
    against the node types the autoscaler can add: one that fits none fails at once."""
    spec = tmp_path / "cluster.yaml"
    spec.write_text("head_node_type: head\navailable_node_types:\n"
                    "  head: {resources: {CPU: 8}, max_workers: 0}\n"
                    "  gpu: {resources: {CPU: 4, GPU: 1}, max_workers: 4}\n")
    cfg = RayConfig(address="auto", node_types=str(spec))
    check_fits(cfg, {"CPU": 1, "GPU": 1}, "backtranslate actor")  # a gpu node can come
    assert "waiting for the autoscaler to add a node of type gpu" in caplog.text
    with pytest.raises(ResourceRequestError, match=r"nor can the autoscaler add one.*gpu "
                                                   r"\{CPU=4, GPU=1\} x4"):
        check_fits(cfg, {"CPU": 16}, "score.num_cpus_per_actor")
    with pytest.raises(ResourceRequestError, match="nor can the autoscaler"):
        check_fits(cfg, {"GPU": 1}, "train.workers", count=5)  # 4 gpu nodes at most
    bad = tmp_path / "bad.yaml"
    bad.write_text("nodes: []\n")
    with pytest.raises(ResourceRequestError, match="not a Ray cluster launcher YAML"):
        check_fits(RayConfig(address="auto", node_types=str(bad)), {"CPU": 99}, "x")


def test_train_with_too_many_workers_fails_before_preparing(ray_session, tmp_path):
    import ray

    from paralib.io.context import StageContext
    from paralib.train.run import train

    cfg = load_config(None, [f"train.output={tmp_path}/model", f"train.storage_path={tmp_path}",
                             f"train.workers={int(ray.cluster_resources()['CPU']) + 1}",
                             "train.sources=[{kind: pairs, path: /nonexistent/pairs}]"])
    with pytest.raises(ResourceRequestError, match="train.workers x train.cpus_per_worker"):
        # the missing source would fail later: the check comes first
        train(cfg.train, StageContext.of(cfg))
