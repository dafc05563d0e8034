"""A real multi-node Ray cluster on this machine: jobs through the job server, actors placed by
custom resources, and the autoscaler adding a node (fake multi-node provider). Slow: the
default run has the cheap two-node version (test_multinode_fast.py).

Each job runs back-translation as ``ray job submit --working-dir .`` would: the working tree
is uploaded, the driver joins the cluster through ``RAY_ADDRESS``, and the shipped
``models/de-en`` translates 200 Multi30k sentences. The entrypoint is ``python -m paralib
backtranslate``, the command ``jobs/run.py backtranslate`` runs (see test_job_entrypoints.py for
why not the script itself yet).
"""

from __future__ import annotations

import pytest
from multinode_jobs import (
    TRANSLATE,
    check_output,
    job_config,
    placed_actors,
    submit_backtranslate,
)

from paralib.cluster.local import LocalCluster, NodeSpec
from paralib.cluster.validate import check_address

pytestmark = [pytest.mark.slow, pytest.mark.cluster]


def test_cluster_has_three_nodes_with_their_resources(multinode):
    nodes = multinode.nodes()
    assert len(nodes) == 3
    assert sorted(n["resources"].get("CPU", 0) for n in nodes) == [1, 1, 1]
    translate = [n for n in nodes if n["resources"].get(TRANSLATE)]
    assert [n["node_id"] for n in translate] == [multinode.workers[0].node_id]
    # the live cluster passes the address check, under both of its addresses
    assert check_address(multinode.address, timeout_s=5) == multinode.address
    check_address(multinode.dashboard_url, timeout_s=5)


def test_backtranslation_job_runs_its_actors_on_the_translate_node(multinode, m30k, tmp_path):
    config = job_config(tmp_path, m30k, {TRANSLATE: 0.5})
    result = submit_backtranslate(multinode, config)
    print(f"back-translation job: {result.status} in {result.seconds:.1f} s")
    assert result.succeeded, result.logs[-3000:]
    check_output(tmp_path / "out")

    translate_node = multinode.workers[0].node_id
    placed = placed_actors(multinode)
    assert placed, "no translation actor was placed on any node"
    assert {a["node_id"] for a in placed} == {translate_node}
    # the job's driver ran on the head, not where the actors went
    assert translate_node != multinode.head_node_id


def test_actors_asking_for_a_missing_resource_make_the_autoscaler_add_a_node(m30k, tmp_path):
    """Fake multi-node provider: the head alone, a ``translate`` node type that starts at 0."""
    node_type = {"resources": {"CPU": 1, TRANSLATE: 1}, "min_workers": 0, "max_workers": 1}
    with LocalCluster(head=NodeSpec(num_cpus=1),
                      autoscaling={"translate-node": node_type}) as cluster:
        before = cluster.nodes()
        assert len(before) == 1 and not before[0]["resources"].get(TRANSLATE)

        result = submit_backtranslate(cluster, job_config(tmp_path, m30k, {TRANSLATE: 0.5}))
        print(f"autoscaled back-translation job: {result.status} in {result.seconds:.1f} s")
        assert result.succeeded, result.logs[-3000:]
        assert "Adding 1 node(s) of type translate-node" in result.logs
        check_output(tmp_path / "out")

        added = [n for n in cluster.nodes() if n["resources"].get(TRANSLATE)]
        assert len(added) == 1 and added[0]["node_id"] != before[0]["node_id"]
        placed = placed_actors(cluster)
        assert placed and {a["node_id"] for a in placed} == {added[0]["node_id"]}
