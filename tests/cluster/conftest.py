"""A three-node Ray cluster on this machine, shared by the multi-node tests of this folder.

Reuse (e.g. for Ray Train workers on several nodes): request ``multinode`` for this shape, or
build another with ``paralib.cluster.local.LocalCluster(head=NodeSpec(...),
workers=[NodeSpec(...), ...])`` and submit with ``cluster.submit(entrypoint, runtime_env)``.
"""

from __future__ import annotations

import pytest

from paralib.cluster.local import LocalCluster, NodeSpec

TRANSLATE = "translate"


@pytest.fixture(scope="module")
def multinode():
    """Head (1 CPU) + a worker with the ``translate`` resource (1 CPU) + a plain worker (1 CPU).

    Logical CPUs are kept small: the machine has 2 cores shared with other work.
    """
    cluster = LocalCluster(head=NodeSpec(num_cpus=1),
                           workers=[NodeSpec(num_cpus=1, resources={TRANSLATE: 1}),
                                    NodeSpec(num_cpus=1)])
    with cluster:
        yield cluster
