"""Connecting to Ray: an embedded local instance by default, or a cluster by address."""

from __future__ import annotations

import logging
import os

from paralib.config import RayConfig
from paralib.errors import ResourcesError

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
    ``ray job submit`` (checked first by :func:`check_ray_address`). Workers stream their
    output to this terminal only with ``--verbose`` (:mod:`paralib.console`).
    """
    import ray

    from paralib.console import current, quiet_ray

    if not ray.is_initialized():
        check_ray_address(cfg)
        address = ray_address(cfg)
        quiet_ray()
        kwargs: dict = {"ignore_reinit_error": True, "log_to_driver": current().log_to_driver}
        if address:
            kwargs["address"] = address
        else:
            if cfg.num_cpus:
                kwargs["num_cpus"] = cfg.num_cpus
            kwargs["include_dashboard"] = cfg.include_dashboard
        ray.init(**kwargs)
        quiet_ray()
    return ray.cluster_resources()


def largest_node() -> dict[str, float]:
    """The resources of the largest alive node (by CPUs) of the connected Ray cluster."""
    import ray

    nodes = [n.get("Resources", {}) for n in ray.nodes() if n.get("Alive")]
    return max(nodes, key=lambda r: r.get("CPU", 0.0), default={})


def ray_address(cfg: RayConfig) -> str | None:
    """The cluster to join: ``ray.address``, else ``$RAY_ADDRESS``; ``None``: embedded."""
    return cfg.address or os.environ.get("RAY_ADDRESS")


def embedded(cfg: RayConfig) -> bool:
    """Whether paralib runs (or will run) Ray embedded in this process: no address."""
    return not ray_address(cfg)


def check_fits(cfg: RayConfig, bundle: dict[str, float], what: str, count: int = 1) -> None:
    """Fail at once, instead of waiting forever, when one ``bundle`` (e.g. ``{"CPU": 3}`` for
    an actor or a training worker) fits no node of the cluster, or ``count`` of them exceed
    the whole cluster (training workers must all run at once).

    On an embedded Ray nothing can be added, so this raises :class:`ResourceRequestError`
    naming what was asked and what exists; on a joined cluster, which an autoscaler may
    grow, the same message is a warning (on the terminal) and the request waits."""
    import ray

    total = ray.cluster_resources()
    node = largest_node()
    short = [k for k, v in bundle.items() if v > 0 and v > node.get(k, 0.0) + 1e-9]
    over = [k for k, v in bundle.items() if v > 0 and v * count > total.get(k, 0.0) + 1e-9]
    if not (short or over):
        return
    asked = ", ".join(f"{k}={v:g}" for k, v in bundle.items() if v)
    have = ", ".join(f"{k}={node.get(k, 0):g}" for k in bundle if bundle[k])
    whole = ", ".join(f"{k}={total.get(k, 0):g}" for k in bundle if bundle[k])
    message = (f"{what}: {count} x {{{asked}}} cannot be placed: the largest node has "
               f"{{{have}}} and the cluster {{{whole}}}; lower the request or add nodes")
    if not embedded(cfg):
        log.warning("%s (waiting in case an autoscaler adds nodes)", message)
        return
    raise ResourceRequestError(message)


class ResourceRequestError(ResourcesError, ValueError):
    """An actor or worker asks for more than the cluster has (see :func:`check_fits`)."""
