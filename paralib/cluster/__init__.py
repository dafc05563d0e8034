"""Running paralib on Ray clusters: config validation, address checks, local multi-node runs.

See :mod:`paralib.cluster.validate` (launcher configs, KubeRay manifests, addresses) and
:mod:`paralib.cluster.local` (a multi-node cluster on one machine); ``cluster/README.md`` has
the commands.
"""
