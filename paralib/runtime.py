"""Connecting to Ray: an embedded local instance by default, or a cluster by address."""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from paralib.config import RayConfig
from paralib.errors import ResourcesError

log = logging.getLogger(__name__)
T = TypeVar("T")


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

    global _stall_timeout_s
    _stall_timeout_s = cfg.stall_timeout_s
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


_stall_timeout_s: float | None = RayConfig().stall_timeout_s


def stall_timeout() -> float | None:
    """Seconds a stage may go without progress before it fails (``ray.stall_timeout_s`` of
    the config of the last :func:`init_ray`); ``None``: no limit."""
    return _stall_timeout_s


RAY_STUCK = ("tasks waiting for resources that no node has free (see `ray status`), or an "
             "actor that hangs")


def stall_error(what: str, timeout_s: float, where: str = "", why: str = RAY_STUCK
                ) -> StallError:
    """The :class:`StallError` of ``what`` after ``timeout_s`` seconds without progress;
    ``where`` says how far it got, ``why`` what usually causes it."""
    return StallError(
        f"{what}: no progress for {timeout_s:g} s{f' ({where})' if where else ''}; the stage "
        f"is stuck: {why}. If one step really takes longer, raise ray.stall_timeout_s (null: "
        "wait forever)")


def _close(items: Iterable) -> None:
    """Close ``items`` if it is a generator (a Ray Data iterator shuts its executor down)."""
    getattr(items, "close", lambda: None)()


def watch(items: Iterable[T], timeout_s: float | None, what: str,
          state: Callable[[], str] = lambda: "", why: str = RAY_STUCK) -> Iterator[T]:
    """Yield the items of ``items`` as they come; when none comes for ``timeout_s`` seconds,
    raise :class:`StallError` (:func:`stall_error`) naming ``what`` and ``state()`` (e.g.
    "2 of 5 shards complete") instead of waiting forever.

    ``items`` is consumed in a daemon thread (one item ahead), so that a consumer blocked in
    Ray (a read task that never gets a CPU, a hung actor) cannot block the caller; on a stall
    that thread is left behind, to end with the process. ``timeout_s`` ``None`` passes
    ``items`` through unchanged. When this generator is closed (its consumer stopped, or
    raised), ``items`` is closed too, by the thread that iterates it: a Ray Data iterator
    then shuts its executor down, so that the stage's actors free their CPUs."""
    if timeout_s is None:
        try:
            yield from items
        finally:
            _close(items)
        return
    done = object()
    box: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def hand(entry: tuple) -> bool:
        """Give ``entry`` to the caller; False once the caller has stopped listening (a
        blocking put would keep this thread, and ``items``' actors, alive for good)."""
        while not stop.is_set():
            with contextlib.suppress(queue.Full):
                box.put(entry, timeout=0.5)
                return True
        return False

    def pump() -> None:
        try:
            for item in items:
                if not hand((item, None)):
                    return
            hand((done, None))
        except BaseException as exc:  # handed to the caller's thread
            hand((done, exc))
        finally:
            if stop.is_set():
                _close(items)

    threading.Thread(target=pump, daemon=True, name=f"paralib-watch-{what}").start()
    try:
        while True:
            try:
                item, exc = box.get(timeout=timeout_s)
            except queue.Empty:
                raise stall_error(what, timeout_s, state(), why) from None
            if exc is not None:
                raise exc
            if item is done:
                return
            yield item
    finally:
        stop.set()


def ray_results(refs: list, timeout_s: float | None, what: str) -> list:
    """The results of the Ray object refs ``refs``, in the order they finish; when none
    finishes for ``timeout_s`` seconds, :class:`StallError` (:func:`watch`) names ``what``
    and how many have finished, instead of a ``ray.get`` that waits forever."""
    import ray

    got: list = []

    def finished() -> Iterator:
        waiting = list(refs)
        while waiting:
            ready, waiting = ray.wait(waiting, num_returns=1)
            yield ray.get(ready[0])

    got.extend(watch(finished(), timeout_s, what, lambda: f"{len(got)} of {len(refs)} done"))
    return got


def call_watched(fn: Callable[[], T], timeout_s: float | None, what: str,
                 progress: Callable[[], object], state: Callable[[], str] = lambda: "",
                 on_stall: Callable[[], None] = lambda: None, why: str = RAY_STUCK,
                 poll_s: float = 1.0) -> T:
    """``fn()``, watched: it runs in a daemon thread while this one reads ``progress()``
    (e.g. pairs trained so far) every ``poll_s`` seconds. A value that changes is progress;
    when it has not changed for ``timeout_s`` seconds, ``on_stall()`` is called (to abort
    the work, e.g. a Ray Train controller) and :class:`StallError` (:func:`stall_error`)
    is raised naming ``what`` and ``state()``. ``fn``'s own exception is raised as is;
    ``timeout_s`` ``None`` calls ``fn()`` here, unwatched. A failing ``progress()`` counts
    as no progress. On Ctrl-C ``on_stall()`` is called too."""
    if timeout_s is None:
        return fn()
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True, name=f"paralib-watched-{what}")
    worker.start()
    seen, since = object(), time.monotonic()
    try:
        while worker.is_alive():
            worker.join(poll_s)
            try:
                now = progress()
            except Exception:  # e.g. a progress actor not started yet
                now = seen
            if now != seen:
                seen, since = now, time.monotonic()
            elif worker.is_alive() and time.monotonic() - since >= timeout_s:
                where = state()
                on_stall()
                raise stall_error(what, timeout_s, where, why)
    except KeyboardInterrupt:
        on_stall()
        raise
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["result"]  # type: ignore[return-value]


class StallError(ResourcesError, TimeoutError):
    """A stage made no progress for ``ray.stall_timeout_s`` (see :func:`watch`,
    :func:`call_watched`)."""


def ray_address(cfg: RayConfig) -> str | None:
    """The cluster to join: ``ray.address``, else ``$RAY_ADDRESS``; ``None``: embedded."""
    return cfg.address or os.environ.get("RAY_ADDRESS")


def check_fits(cfg: RayConfig, bundle: dict[str, float], what: str, count: int = 1) -> None:
    """Fail at once, instead of waiting forever, when one ``bundle`` (e.g. ``{"CPU": 3}`` for
    an actor or a training worker) fits no node of the cluster, or ``count`` of them exceed
    the whole cluster (training workers must all run at once).

    On an embedded Ray nothing can be added, so this raises :class:`ResourceRequestError`
    naming what was asked and what exists; on a joined cluster, which an autoscaler may
    grow, the same message is a warning (on the terminal) and the request waits."""
    import ray

    total = ray.cluster_resources()
    # the largest alive node, by CPUs
    node = max((n.get("Resources", {}) for n in ray.nodes() if n.get("Alive")),
               key=lambda r: r.get("CPU", 0.0), default={})
    short = [k for k, v in bundle.items() if v > 0 and v > node.get(k, 0.0) + 1e-9]
    over = [k for k, v in bundle.items() if v > 0 and v * count > total.get(k, 0.0) + 1e-9]
    if not (short or over):
        return
    asked = ", ".join(f"{k}={v:g}" for k, v in bundle.items() if v)
    have = ", ".join(f"{k}={node.get(k, 0):g}" for k in bundle if bundle[k])
    whole = ", ".join(f"{k}={total.get(k, 0):g}" for k in bundle if bundle[k])
    message = (f"{what}: {count} x {{{asked}}} cannot be placed: the largest node has "
               f"{{{have}}} and the cluster {{{whole}}}; lower the request or add nodes")
    if not ray_address(cfg):  # an embedded Ray: nothing can be added
        raise ResourceRequestError(message)
    if not cfg.node_types:
        log.warning("%s (waiting in case an autoscaler adds nodes)", message)
        return
    types = node_types(cfg.node_types)
    fits = [n for n, (res, _) in types.items()
            if all(v <= res.get(k, 0.0) + 1e-9 for k, v in bundle.items() if v > 0)]
    most = {k: total.get(k, 0.0) + sum(r.get(k, 0.0) * m for r, m in types.values())
            for k in bundle}
    if not fits or any(v * count > most[k] + 1e-9 for k, v in bundle.items() if v > 0):
        shown = "; ".join(f"{n} {{{', '.join(f'{k}={v:g}' for k, v in r.items())}}} "
                          f"x{m}" for n, (r, m) in types.items())
        raise ResourceRequestError(
            f"{message}; nor can the autoscaler add one: the node types of "
            f"{cfg.node_types} are {shown}")
    log.warning("%s (waiting for the autoscaler to add a node of type %s)", message,
                " or ".join(fits))


def node_types(path: str) -> dict[str, tuple[dict[str, float], int]]:
    """``{node type: (resources, max_workers)}`` of a Ray cluster launcher YAML's
    ``available_node_types`` (the head type counts once when it has no workers)."""
    import yaml

    from paralib.io import fs as pfs
    from paralib.schema import load_yaml

    try:
        spec = load_yaml(pfs.read_bytes(path)) or {}
        types = spec["available_node_types"]
        return {name: ({k: float(v) for k, v in (t.get("resources") or {}).items()},
                       max(int(t.get("max_workers", 0)), 1 if name == spec.get(
                           "head_node_type") else int(t.get("max_workers", 0))))
                for name, t in types.items()}
    except (OSError, KeyError, TypeError, AttributeError, yaml.YAMLError) as exc:
        raise ResourceRequestError(
            f"ray.node_types: {path} is not a Ray cluster launcher YAML with "
            f"available_node_types ({exc})") from None


class ResourceRequestError(ResourcesError, ValueError):
    """An actor or worker asks for more than the cluster has (see :func:`check_fits`)."""
