"""Checks to run before anything starts on a cluster: its files and its address.

- :func:`validate_launcher_config`: a ``ray up`` config, through Ray's own validation
  (``prepare_config`` + ``validate_config``, offline) and paralib's shape checks;
- :func:`validate_kuberay_manifest`: ``RayCluster`` / ``RayJob`` manifests at schema level;
- :func:`validate_cluster_file`: either, chosen by the file's content;
- :func:`check_address`: a Ray address answers within a timeout.

Errors: :class:`ClusterConfigError` (names the file and the field) and
:class:`ClusterAddressError`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paralib.cluster.address import check_address
from paralib.cluster.errors import ClusterAddressError, ClusterConfigError
from paralib.cluster.kuberay import validate_kuberay_manifest
from paralib.cluster.launcher import validate_launcher_config
from paralib.cluster.source import load_documents

__all__ = ["ClusterAddressError", "ClusterConfigError", "check_address",
           "validate_cluster_file", "validate_kuberay_manifest", "validate_launcher_config"]


def validate_cluster_file(path: str | Path, shape: bool = True) -> Any:
    """Validate a KubeRay manifest (documents with ``apiVersion``) or a launcher config."""
    docs = load_documents(path)
    if any("apiVersion" in d or "kind" in d for d in docs):
        return validate_kuberay_manifest(path, shape=shape)
    return validate_launcher_config(path, shape=shape)
