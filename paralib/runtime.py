"""Connecting to Ray: an embedded local instance by default, or a cluster by address."""

from __future__ import annotations

import logging
import os

from paralib.config import RayConfig

log = logging.getLogger(__name__)


def init_ray(cfg: RayConfig) -> dict:
    """Start or join Ray as configured (no-op when already initialised); returns resources.

    ``address: null`` starts Ray embedded in this process (``ray.init()``), as on a laptop;
    ``address: auto`` or ``ray://host:10001`` joins a running cluster, as under
    ``ray job submit``.
    """
    import ray

    if not ray.is_initialized():
        address = cfg.address or os.environ.get("RAY_ADDRESS")
        kwargs: dict = {"ignore_reinit_error": True, "log_to_driver": True}
        if address:
            kwargs["address"] = address
        else:
            if cfg.num_cpus:
                kwargs["num_cpus"] = cfg.num_cpus
            kwargs["include_dashboard"] = cfg.include_dashboard
        ray.init(**kwargs)
    return ray.cluster_resources()
