"""cluster/aws.yaml through Ray's own launcher validation, offline; bad configs are refused
with the file and the field named."""

from __future__ import annotations

import copy
import socket
from pathlib import Path

import pytest
import yaml

from paralib.cluster.errors import ClusterConfigError
from paralib.cluster.launcher import validate_launcher_config
from paralib.paths import PROJECT_ROOT

AWS = PROJECT_ROOT / "cluster" / "aws.yaml"


@pytest.fixture(scope="module")
def aws() -> dict:
    return yaml.safe_load(AWS.read_text())


def write(tmp_path: Path, config: dict) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def test_aws_config_passes_rays_validation_offline(monkeypatch):
    # No network: any connection attempt (boto3 to EC2/IAM, a metadata server) fails loudly.
    def no_network(*args, **kwargs):
        raise AssertionError("validation tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"):
        monkeypatch.delenv(key, raising=False)
    config = validate_launcher_config(AWS)

    types = config["available_node_types"]
    assert config["provider"]["type"] == "aws" and config["head_node_type"] == "head"
    assert types["head"]["resources"] == {"CPU": 8} and types["head"]["max_workers"] == 0
    gpu, cpu = types["gpu"], types["cpu"]
    assert gpu["resources"]["GPU"] == 1 and gpu["resources"]["translate"] >= 1
    assert gpu["min_workers"] == 0 and cpu["min_workers"] == 0
    assert gpu["node_config"]["InstanceMarketOptions"]["MarketType"] == "spot"
    # prepare_config merged setup_commands into the head's, torch first
    head_cmds = config["head_setup_commands"]
    torch_line = next(i for i, c in enumerate(head_cmds) if "torch==2.13.0" in c)
    paralib_line = next(i for i, c in enumerate(head_cmds) if '-e ".[mt]"' in c)
    assert torch_line < paralib_line
    assert any("build_kenlm.sh" in c for c in head_cmds)
    # the GPU type installs the CUDA build (no CPU index), the others the CPU build
    assert not any("whl/cpu" in c for c in gpu["worker_setup_commands"])
    assert any("whl/cpu" in c for c in config["worker_setup_commands"])
    assert config["file_mounts"] == {"~/paralib": "."}
    assert all("IamInstanceProfile" in types[t]["node_config"] for t in ("gpu", "cpu"))


@pytest.mark.parametrize(("mutate", "field", "words"), [
    # Ray's JSON schema: unknown top-level key (a typo of max_workers)
    (lambda c: c.update(max_worker=3), "", "Additional properties"),
    # Ray's schema: resources must be integers
    (lambda c: c["available_node_types"]["gpu"]["resources"].update(translate=0.5),
     "available_node_types.gpu.resources.translate", "not of type 'integer'"),
    # Ray's schema: a node type without node_config
    (lambda c: c["available_node_types"]["cpu"].pop("node_config"),
     "available_node_types.cpu", "'node_config' is a required property"),
    # Ray's cross-field check
    (lambda c: c.update(head_node_type="ray.head.missing"), "head_node_type",
     "must be one of `available_node_types`"),
    (lambda c: c["available_node_types"]["cpu"].update(min_workers=20), "max_workers",
     "smaller than the sum of `min_workers`"),
    (lambda c: c.pop("provider"), "provider.type", "required"),
], ids=["unknown-key", "float-resource", "no-node-config", "head-type", "min-workers",
        "no-provider"])
def test_configs_ray_rejects(tmp_path, aws, mutate, field, words):
    config = copy.deepcopy(aws)
    mutate(config)
    path = write(tmp_path, config)
    with pytest.raises(ClusterConfigError) as err:
        validate_launcher_config(path)
    assert str(err.value).startswith(f"{path}: {field}" if field else f"{path}: ")
    assert err.value.field == field and words in str(err.value)


def gpu_cmds(c: dict) -> list[str]:
    return c["available_node_types"]["gpu"]["worker_setup_commands"]


@pytest.mark.parametrize(("mutate", "field", "words"), [
    (lambda c: c["available_node_types"]["gpu"]["node_config"].pop("InstanceMarketOptions"),
     "available_node_types.gpu.node_config.InstanceMarketOptions", "spot"),
    (lambda c: c["available_node_types"]["gpu"].update(min_workers=1),
     "available_node_types.gpu.min_workers", "autoscale from 0"),
    (lambda c: c["available_node_types"]["cpu"]["resources"].pop("CPU"),
     "available_node_types.cpu.resources.CPU", "state the CPU count"),
    (lambda c: c["available_node_types"].pop("cpu"), "available_node_types", "CPU-only"),
    (lambda c: gpu_cmds(c).insert(0, gpu_cmds(c).pop(2)),
     "available_node_types.gpu.worker_setup_commands", "before paralib"),
    (lambda c: c.update(setup_commands=[x.replace("torch==2.13.0", "torch==2.3.0")
                                        for x in c["setup_commands"]]),
     "head_setup_commands[1]", "torch==2.13.0"),
    (lambda c: c.update(setup_commands=c["setup_commands"][:2]), "head_setup_commands",
     "never installs paralib"),
    (lambda c: c["available_node_types"]["gpu"]["docker"].update(
        worker_image="rayproject/ray:2.9.0-py311-gpu"),
     "available_node_types.gpu.docker.worker_image", "is not Ray 2.60.0"),
], ids=["on-demand-gpu", "gpu-min-1", "no-cpu-count", "no-cpu-type", "torch-after",
        "torch-pin", "no-paralib", "old-image"])
def test_configs_paralib_cannot_run_on(tmp_path, aws, mutate, field, words):
    config = copy.deepcopy(aws)
    mutate(config)
    path = write(tmp_path, config)
    validate_launcher_config(path, shape=False)  # Ray itself accepts these
    with pytest.raises(ClusterConfigError) as err:
        validate_launcher_config(path)
    assert err.value.field == field and words in str(err.value)
    assert str(err.value).startswith(f"{path}: {field}: ")


def test_unreadable_files(tmp_path):
    with pytest.raises(ClusterConfigError, match="file not found"):
        validate_launcher_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("cluster_name: [unclosed\n")
    with pytest.raises(ClusterConfigError, match=r"bad\.yaml: not valid YAML"):
        validate_launcher_config(bad)
    listed = tmp_path / "list.yaml"
    listed.write_text("- a\n- b\n")
    with pytest.raises(ClusterConfigError, match=r"list\.yaml: must be a mapping"):
        validate_launcher_config(listed)
