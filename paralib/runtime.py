"""Connecting to Ray: an embedded local instance by default, or a cluster by address."""

from __future__ import annotations

import logging
import os

from paralib.config import RayConfig

log = logging.getLogger(__name__)


def check_ray_address(cfg: RayConfig, timeout_s: float = 10.0) -> None:
    """When an address is configured (``ray.address``, or ``$RAY_ADDRESS`` while Ray is not
    running in this process), check that a cluster answers there within ``timeout_s``; raises
    :class:`~paralib.cluster.errors.ClusterAddressError` naming the address and the reason
    (``ray.init`` would wait about a minute and fail less clearly)."""
    import ray

    address = cfg.address
    if not address and not ray.is_initialized():
        address = os.environ.get("RAY_ADDRESS")
    if address:
        from paralib.cluster.address import check_address

        check_address(address, timeout_s=timeout_s)


def init_ray(cfg: RayConfig) -> dict:
    """Start or join Ray as configured (no-op when already initialised); returns resources.

    ``address: null`` starts Ray embedded in this process (``ray.init()``), as on a laptop;
    ``address: auto`` or ``ray://host:10001`` joins a running cluster, as under
    ``ray job submit`` (checked first by :func:`check_ray_address`).
    """
    import ray

    if not ray.is_initialized():
        check_ray_address(cfg)
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
