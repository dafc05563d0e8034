"""Reading cluster files and naming their fields in error messages."""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from paralib.cluster.errors import ClusterConfigError


def load_documents(path: str | Path) -> list[dict[str, Any]]:
    """The YAML documents of ``path`` (a manifest may hold several), each a mapping.

    Raises :class:`ClusterConfigError` naming the file when it is missing, not YAML, empty,
    or holds a document that is not a mapping.
    """
    source = str(path)
    p = Path(path)
    if not p.is_file():
        raise ClusterConfigError(source, "", "file not found")
    try:
        docs = [d for d in yaml.safe_load_all(p.read_text(encoding="utf-8")) if d is not None]
    except yaml.YAMLError as exc:
        raise ClusterConfigError(source, "", f"not valid YAML: {exc}") from None
    if not docs:
        raise ClusterConfigError(source, "", "the file holds no YAML document")
    for i, doc in enumerate(docs):
        if not isinstance(doc, dict):
            where = f"document {i + 1}" if len(docs) > 1 else ""
            raise ClusterConfigError(source, where, "must be a mapping")
    return docs


def dotted(parts: Iterable[Any]) -> str:
    """``("spec", "workerGroupSpecs", 0, "groupName")`` → ``spec.workerGroupSpecs[0].groupName``."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def pinned_version(dist: str) -> str | None:
    """The exact version paralib pins for ``dist`` (``torch==2.13.0`` → ``2.13.0``), if any."""
    try:
        requires = importlib.metadata.requires("paralib") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for req in requires:
        m = re.match(rf"^{re.escape(dist)}(\[[^\]]*\])?\s*==\s*([^\s;,]+)", req)
        if m:
            return m.group(2)
    return None


def ray_version() -> str:
    """The Ray version of this environment (the one paralib pins)."""
    import ray

    return ray.__version__
