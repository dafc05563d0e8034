"""Fail fast on a Ray address that cannot be reached, before a job starts.

``ray.init(address=...)`` on an address nobody listens on waits for the GCS for about a
minute before it gives up; :func:`check_address` answers within ``timeout_s``. It accepts
every form paralib passes on: ``auto`` (``$RAY_ADDRESS``, else the cluster last started on
this machine), a GCS address ``host:port``, a Ray client address ``ray://host:port``, and a
dashboard / job-server URL ``http(s)://host:port``.
"""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from paralib.cluster.errors import ClusterAddressError
from paralib.cluster.source import ray_version

DEFAULT_PORTS = {"gcs": 6379, "ray": 10001, "http": 8265, "https": 443}


def check_address(address: str, timeout_s: float = 5.0) -> str:
    """Check that a Ray cluster answers at ``address`` within ``timeout_s`` seconds.

    A GCS address must accept a connection and answer as a Ray GCS of the same Ray version; a
    dashboard URL must answer ``/api/version`` with the same Ray version; a ``ray://`` address
    must accept a connection. Returns the resolved address; raises
    :class:`~paralib.cluster.errors.ClusterAddressError` naming the address and the reason.
    """
    if timeout_s <= 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s}")
    deadline = time.monotonic() + timeout_s
    resolved = resolve(address)
    parts = urlsplit(resolved if "://" in resolved else f"gcs://{resolved}")
    scheme = parts.scheme
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        raise ClusterAddressError(f"Ray address {address!r} is not host:port, ray://host:port "
                                  "or http(s)://host:port")
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        raise ClusterAddressError(f"Ray address {address!r} has an invalid port") from None
    _connect(address, parts.hostname, port, deadline)
    if scheme in ("http", "https"):
        _check_dashboard(address, resolved.rstrip("/"), deadline)
    elif scheme == "gcs":
        _check_gcs(address, f"{parts.hostname}:{port}", deadline)
    return resolved


def resolve(address: str) -> str:
    """``auto`` → ``$RAY_ADDRESS`` or the address of the cluster last started here."""
    address = (address or "").strip()
    if not address:
        raise ClusterAddressError("no Ray address given")
    if address != "auto":
        return address
    env = os.environ.get("RAY_ADDRESS", "").strip()
    if env and env != "auto":
        return env
    from ray._private.utils import read_ray_address

    found = read_ray_address()
    if not found:
        raise ClusterAddressError("Ray address 'auto': RAY_ADDRESS is not set and no cluster "
                                  "was started on this machine (`ray start --head`)")
    return found


def _remaining(deadline: float) -> float:
    return max(0.05, deadline - time.monotonic())


def _connect(address: str, host: str, port: int, deadline: float) -> None:
    try:
        socket.create_connection((host, port), timeout=_remaining(deadline)).close()
    except TimeoutError:
        raise ClusterAddressError(f"Ray address {address!r}: no answer from {host}:{port} "
                                  "(connection timed out)") from None
    except OSError as exc:
        raise ClusterAddressError(f"Ray address {address!r}: cannot connect to {host}:{port} "
                                  f"({exc.strerror or exc})") from None


def _check_dashboard(address: str, url: str, deadline: float) -> None:
    try:
        with urllib.request.urlopen(f"{url}/api/version", timeout=_remaining(deadline)) as r:
            info = json.loads(r.read().decode("utf-8"))
    except (urllib.error.URLError, TimeoutError, ValueError, OSError) as exc:
        raise ClusterAddressError(f"Ray address {address!r}: {url}/api/version did not answer "
                                  f"as a Ray dashboard ({exc})") from None
    theirs = info.get("ray_version") if isinstance(info, dict) else None
    if theirs is None:
        raise ClusterAddressError(f"Ray address {address!r}: {url} is not a Ray dashboard")
    if theirs != ray_version():
        raise ClusterAddressError(f"Ray address {address!r}: the cluster runs Ray {theirs}, "
                                  f"this environment Ray {ray_version()}")


def _check_gcs(address: str, gcs: str, deadline: float) -> None:
    """Ask the GCS for the cluster metadata over plain gRPC, bounded by the deadline.

    (Ray's own ``GcsClient`` waits about 40 s for a server that accepts connections but does
    not speak its protocol.) A GCS that requires a token answers UNAUTHENTICATED: it is Ray.
    """
    import grpc
    from ray._common.usage.usage_constants import CLUSTER_METADATA_KEY
    from ray._private.ray_constants import KV_NAMESPACE_CLUSTER
    from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc

    request = gcs_service_pb2.InternalKVGetRequest(key=CLUSTER_METADATA_KEY,
                                                   namespace=KV_NAMESPACE_CLUSTER)
    with grpc.insecure_channel(gcs) as channel:
        stub = gcs_service_pb2_grpc.InternalKVGcsServiceStub(channel)
        try:
            reply = stub.InternalKVGet(request, timeout=_remaining(deadline))
        except grpc.RpcError as exc:
            code = exc.code()
            if code == grpc.StatusCode.UNAUTHENTICATED:
                return
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                raise ClusterAddressError(f"Ray address {address!r}: {gcs} accepts connections "
                                          "but did not answer as a Ray GCS in time") from None
            raise ClusterAddressError(f"Ray address {address!r}: {gcs} did not answer as a Ray "
                                      f"GCS ({code.name}: {exc.details()})") from None
    try:
        theirs = json.loads(reply.value).get("ray_version") if reply.value else None
    except (ValueError, AttributeError):
        theirs = None
    if theirs and theirs != ray_version():
        raise ClusterAddressError(f"Ray address {address!r}: the cluster runs Ray {theirs}, "
                                  f"this environment Ray {ray_version()}")
