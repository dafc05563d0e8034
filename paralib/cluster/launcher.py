"""Validation of Ray cluster-launcher configs (``ray up FILE``) without touching the cloud.

:func:`validate_launcher_config` runs the same steps as ``ray up`` before it talks to the
provider: Ray's ``prepare_config`` (merging the provider's ``defaults.yaml``, the setup
commands and per-type worker counts) and ``validate_config`` (Ray's JSON schema
``ray-schema.json`` plus its cross-field checks). It needs neither credentials nor network: the
provider's own bootstrap (AMI, key pair, IAM, subnets) and the autodetection of node resources
from the instance type are what ``ray up`` adds on top, which is why paralib's configs state
every node type's ``resources`` explicitly.

:func:`check_paralib_shape` then checks what paralib's stages rely on: a GPU worker type that
starts at zero on spot instances, a CPU worker type, custom resources the translation actors
can request, torch pinned and installed before paralib on every node, and Ray images of the
pinned Ray version.
"""

from __future__ import annotations

import copy
import logging
from pathlib import Path
from typing import Any

from paralib.cluster.errors import ClusterConfigError
from paralib.cluster.source import dotted, load_documents, pinned_version, ray_version


def validate_launcher_config(path: str | Path, shape: bool = True) -> dict[str, Any]:
    """Validate a cluster-launcher YAML with Ray's own checks; returns the prepared config.

    ``shape=True`` also applies :func:`check_paralib_shape`. Every error is a
    :class:`ClusterConfigError` naming the file and the field.
    """
    source = str(path)
    docs = load_documents(path)
    if len(docs) != 1:
        raise ClusterConfigError(source, "", f"expected one YAML document, found {len(docs)}")
    prepared = ray_validate(docs[0], source)
    if shape:
        check_paralib_shape(prepared, source)
    return prepared


def ray_validate(raw: dict[str, Any], source: str) -> dict[str, Any]:
    """Ray's ``prepare_config`` then ``validate_config`` on ``raw``, errors rewritten."""
    import jsonschema
    from ray.autoscaler._private.util import prepare_config, validate_config

    provider = raw.get("provider")
    if not isinstance(provider, dict) or "type" not in provider:
        raise ClusterConfigError(source, "provider.type", "required (e.g. aws, gcp, local)")
    # Ray's helpers log progress (max_workers filled in per type); keep a test run quiet.
    quiet = logging.getLogger("ray.autoscaler._private.util")
    level = quiet.level
    quiet.setLevel(logging.WARNING)
    try:
        prepared = prepare_config(copy.deepcopy(raw))
        validate_config(prepared)
    except jsonschema.ValidationError as exc:
        raise ClusterConfigError(source, dotted(exc.absolute_path), exc.message) from None
    except NotImplementedError as exc:
        raise ClusterConfigError(source, "provider.type", str(exc)) from None
    except (ValueError, RuntimeError, AssertionError, KeyError, TypeError) as exc:
        raise ClusterConfigError(source, _field_of(str(exc)), f"rejected by Ray: {exc}") from None
    finally:
        quiet.setLevel(level)
    return prepared


def _field_of(message: str) -> str:
    """Best guess of the field a Ray error message is about (its back-quoted name)."""
    for key in ("head_node_type", "max_workers", "cluster_synced_files", "available_node_types"):
        if key in message:
            return key
    return ""


def check_paralib_shape(config: dict[str, Any], source: str) -> None:
    """Check a prepared config against what paralib's jobs need (see the module docstring)."""
    types = config["available_node_types"]
    head = config["head_node_type"]
    workers = {name: t for name, t in types.items() if name != head}
    for name, node_type in types.items():
        resources = node_type.get("resources") or {}
        if "CPU" not in resources:
            raise ClusterConfigError(
                source, f"available_node_types.{name}.resources.CPU",
                "state the CPU count (Ray can only autodetect it with cloud credentials)")
    gpu = {n: t for n, t in workers.items() if t["resources"].get("GPU", 0) > 0}
    cpu = {n: t for n, t in workers.items() if not t["resources"].get("GPU", 0)}
    if not gpu:
        raise ClusterConfigError(source, "available_node_types",
                                 "needs a worker type with resources.GPU > 0")
    if not cpu:
        raise ClusterConfigError(source, "available_node_types",
                                 "needs a CPU-only worker type (no GPU resource)")
    for name, node_type in gpu.items():
        field = f"available_node_types.{name}"
        if node_type.get("min_workers", 0) != 0:
            raise ClusterConfigError(source, f"{field}.min_workers",
                                     "GPU workers must autoscale from 0")
        market = node_type["node_config"].get("InstanceMarketOptions", {}).get("MarketType")
        if config["provider"]["type"] == "aws" and market != "spot":
            raise ClusterConfigError(source, f"{field}.node_config.InstanceMarketOptions",
                                     "GPU workers run on spot instances (MarketType: spot)")
    for name, node_type in types.items():
        _check_setup(config, name, node_type, name == head, source)
    _check_images(config, source)


def _check_setup(config: dict[str, Any], name: str, node_type: dict[str, Any], is_head: bool,
                 source: str) -> None:
    """torch (at paralib's pin) is installed before paralib in this node type's setup."""
    if is_head:
        field, commands = "head_setup_commands", config["head_setup_commands"]
    elif "worker_setup_commands" in node_type:
        field = f"available_node_types.{name}.worker_setup_commands"
        commands = node_type["worker_setup_commands"]
    else:
        field, commands = "worker_setup_commands", config["worker_setup_commands"]
    pin = pinned_version("torch")
    torch_at = [i for i, c in enumerate(commands) if "torch==" in c]
    paralib_at = [i for i, c in enumerate(commands) if "pip install" in c and "-e" in c
                  and (".[" in c or "paralib" in c)]
    if not paralib_at:
        raise ClusterConfigError(source, field, f"node type '{name}' never installs paralib "
                                 "(pip install -e \".[mt]\")")
    if not torch_at or torch_at[0] > paralib_at[0]:
        raise ClusterConfigError(source, field, f"node type '{name}': install torch=={pin} "
                                 "before paralib (an unpinned torch pulls another build)")
    if pin and f"torch=={pin}" not in commands[torch_at[0]]:
        raise ClusterConfigError(source, f"{field}[{torch_at[0]}]",
                                 f"torch must be pinned to paralib's torch=={pin}")


def _check_images(config: dict[str, Any], source: str) -> None:
    """Every Ray image named in the config carries the pinned Ray version."""
    version = ray_version()
    docker = config.get("docker") or {}
    images = [(f"docker.{key}", docker[key]) for key in ("image", "head_image", "worker_image")
              if docker.get(key)]
    images += [(f"available_node_types.{name}.docker.worker_image", image)
               for name, node_type in config["available_node_types"].items()
               if (image := (node_type.get("docker") or {}).get("worker_image"))]
    for field, image in images:
        if image.startswith("rayproject/") and f":{version}" not in image:
            raise ClusterConfigError(source, field,
                                     f"image {image} is not Ray {version} (the pinned Ray)")
