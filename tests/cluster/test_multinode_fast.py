"""The cheap multi-node test of the default run: a real two-node Ray cluster on this machine
(a head, and a worker node advertising the custom ``translate`` resource) runs a small
back-translation job submitted through the job server; its translation actors, which ask for
``translate``, must land on the worker node while the driver stays on the head.

The heavier versions (three nodes, the autoscaler adding a node, Ray Train workers on two
nodes) are in test_multinode.py and test_multinode_train.py, marked ``cluster`` (off by
default); this one runs by default and is marked ``slow``.
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

ROWS = 40


@pytest.mark.slow
def test_backtranslation_actors_land_on_the_translate_node(m30k, tmp_path):
    with LocalCluster(head=NodeSpec(num_cpus=1),
                      workers=[NodeSpec(num_cpus=1, resources={TRANSLATE: 1})]) as cluster:
        nodes = cluster.nodes()
        assert len(nodes) == 2
        (translate_node,) = [n["node_id"] for n in nodes if n["resources"].get(TRANSLATE)]
        assert translate_node == cluster.workers[0].node_id != cluster.head_node_id

        config = job_config(tmp_path, m30k, {TRANSLATE: 0.5}, rows=ROWS, shard_rows=ROWS,
                            actors=1)
        result = submit_backtranslate(cluster, config)
        print(f"back-translation job: {result.status} in {result.seconds:.1f} s")
        assert result.succeeded, result.logs[-3000:]
        check_output(tmp_path / "out", rows=ROWS)
        placed = placed_actors(cluster)
        assert placed, "no translation actor was placed on any node"
        assert {a["node_id"] for a in placed} == {translate_node}
