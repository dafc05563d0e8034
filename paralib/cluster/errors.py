"""The two errors of :mod:`paralib.cluster`: a bad cluster file and an unreachable address."""

from __future__ import annotations

from paralib.errors import ConfigurationError, ResourcesError


class ClusterConfigError(ConfigurationError, ValueError):
    """A cluster-launcher config or KubeRay manifest is invalid.

    The message always starts with the file and the dotted path of the field at fault, e.g.
    ``cluster/aws.yaml: available_node_types.gpu.resources.GPU: ...``.
    """

    def __init__(self, source: str, field: str, message: str) -> None:
        self.source = source
        self.field = field
        where = f"{source}: {field}" if field else source
        super().__init__(f"{where}: {message}")


class ClusterAddressError(ResourcesError, ConnectionError):
    """A Ray address cannot be reached (or is not a Ray address at all)."""
