"""cluster/kuberay manifests at schema level; each broken field is named with its file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from paralib.cluster.errors import ClusterConfigError
from paralib.cluster.kuberay import RayClusterManifest, RayJobManifest, validate_kuberay_manifest
from paralib.cluster.validate import validate_cluster_file
from paralib.paths import PROJECT_ROOT

KUBERAY = PROJECT_ROOT / "cluster" / "kuberay"


def load(name: str) -> dict:
    return yaml.safe_load((KUBERAY / name).read_text())


def write(tmp_path: Path, doc: dict) -> Path:
    path = tmp_path / "manifest.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def test_shipped_manifests_validate():
    (cluster,) = validate_kuberay_manifest(KUBERAY / "raycluster.yaml")
    (job,) = validate_kuberay_manifest(KUBERAY / "rayjob.yaml")
    assert isinstance(cluster, RayClusterManifest) and isinstance(job, RayJobManifest)
    for spec in (cluster.spec, job.spec.rayClusterSpec):
        assert spec.rayVersion == "2.60.0" and spec.enableInTreeAutoscaling
        groups = {g.groupName: g for g in spec.workerGroupSpecs}
        assert set(groups) == {"gpu", "cpu"}
        gpu = groups["gpu"]
        assert gpu.minReplicas == 0 and gpu.replicas == 0 and gpu.maxReplicas >= 1
        assert gpu.template.spec.containers[0].resources.limits["nvidia.com/gpu"] == 1
        assert "translate" in gpu.rayStartParams["resources"]
        assert "nvidia.com/gpu" not in groups["cpu"].template.spec.containers[0].resources.limits
    assert job.spec.entrypoint.startswith("python jobs/run.py backtranslate --config ")
    assert job.spec.shutdownAfterJobFinishes is True
    assert yaml.safe_load(job.spec.runtimeEnvYAML)["working_dir"] == "/home/ray/paralib"
    # validate_cluster_file tells manifests from launcher configs by their content
    assert isinstance(validate_cluster_file(KUBERAY / "rayjob.yaml")[0], RayJobManifest)
    assert isinstance(validate_cluster_file(PROJECT_ROOT / "cluster" / "aws.yaml"), dict)


def gpu_group(doc: dict) -> dict:
    return doc["spec"]["workerGroupSpecs"][0]


CLUSTER_CASES = [
    (lambda d: d.update(apiVersion="ray.io/v1alpha1"), "apiVersion", "must be ray.io/v1"),
    (lambda d: d.update(kind="RayService"), "kind", "must be one of"),
    (lambda d: d["metadata"].update(name="Paralib_Cluster"), "metadata.name",
     "should match pattern"),
    (lambda d: d["spec"]["headGroupSpec"].pop("rayStartParams"),
     "spec.headGroupSpec.rayStartParams", "Field required"),
    (lambda d: d["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0].pop("image"),
     "spec.headGroupSpec.template.spec.containers[0].image", "Field required"),
    (lambda d: d["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0].pop(
        "resources"), "spec.headGroupSpec.template.spec.containers[0].resources",
     "Field required"),
    (lambda d: d["spec"]["headGroupSpec"]["template"]["spec"].update(containers=[]),
     "spec.headGroupSpec.template.spec.containers", "at least 1 item"),
    (lambda d: d["spec"]["headGroupSpec"]["rayStartParams"].update({"num-cpus": 0}),
     "spec.headGroupSpec.rayStartParams.num-cpus", "valid string"),
    (lambda d: d["spec"].update(workerGroupSpec=d["spec"].pop("workerGroupSpecs")),
     "spec.workerGroupSpec", "Extra inputs are not permitted"),
    (lambda d: gpu_group(d).pop("groupName"), "spec.workerGroupSpecs[0].groupName",
     "Field required"),
    (lambda d: gpu_group(d).pop("maxReplicas"), "spec.workerGroupSpecs[0].maxReplicas",
     "Field required"),
    (lambda d: gpu_group(d).update(minReplicas=5, replicas=5),
     "spec.workerGroupSpecs[0].minReplicas", "5 > maxReplicas 4"),
    (lambda d: gpu_group(d).update(replicas=9), "spec.workerGroupSpecs[0].replicas",
     "outside [minReplicas 0, maxReplicas 4]"),
    (lambda d: gpu_group(d).update(minReplicas=-1), "spec.workerGroupSpecs[0].minReplicas",
     "greater than or equal to 0"),
    (lambda d: d["spec"]["workerGroupSpecs"][1].update(groupName="gpu"),
     "spec.workerGroupSpecs[0].groupName", "names two worker groups"),
    (lambda d: d["spec"].update(rayVersion="2.9.0"), "spec.rayVersion",
     "not the pinned Ray 2.60.0"),
    (lambda d: gpu_group(d)["template"]["spec"]["containers"][0].update(
        image="rayproject/ray:2.9.0-gpu"),
     "spec.workerGroupSpecs[0].template.spec.containers[0].image", "does not name Ray 2.60.0"),
    (lambda d: gpu_group(d)["rayStartParams"].update(resources="{translate: 1}"),
     "spec.workerGroupSpecs[0].rayStartParams.resources", "not JSON"),
    (lambda d: gpu_group(d)["rayStartParams"].update(resources='"[1, 2]"'),
     "spec.workerGroupSpecs[0].rayStartParams.resources", "mapping of numbers"),
    (lambda d: gpu_group(d)["template"]["spec"]["containers"][0].update(
        resources={"limits": {}, "requests": {}}),
     "spec.workerGroupSpecs[0].template.spec.containers[0].resources", "limits or requests"),
]
CLUSTER_IDS = ["api-version", "kind", "name", "no-start-params", "no-image", "no-resources",
               "no-containers", "int-start-param", "misspelt-field", "no-group-name",
               "no-max", "min-over-max", "replicas-outside", "negative-min", "duplicate-group",
               "ray-version", "image-version", "resources-not-json", "resources-not-mapping",
               "empty-resources"]


@pytest.mark.parametrize(("mutate", "field", "words"), CLUSTER_CASES, ids=CLUSTER_IDS)
def test_broken_raycluster(tmp_path, mutate, field, words):
    doc = load("raycluster.yaml")
    mutate(doc)
    path = write(tmp_path, doc)
    with pytest.raises(ClusterConfigError) as err:
        validate_kuberay_manifest(path)
    assert err.value.field == field, str(err.value)
    assert str(err.value).startswith(f"{path}: {field}: ") and words in str(err.value)


@pytest.mark.parametrize(("mutate", "field", "words"), [
    (lambda d: d["spec"].update(enableInTreeAutoscaling=False), "spec.enableInTreeAutoscaling",
     "must be true"),
    (lambda d: gpu_group(d).update(minReplicas=1, replicas=1),
     "spec.workerGroupSpecs[0].minReplicas", "autoscale from 0"),
    (lambda d: d["spec"]["workerGroupSpecs"].pop(0), "spec.workerGroupSpecs", "GPU worker"),
    (lambda d: d["spec"]["workerGroupSpecs"].pop(1), "spec.workerGroupSpecs", "CPU worker"),
], ids=["no-autoscaling", "gpu-min-1", "no-gpu-group", "no-cpu-group"])
def test_clusters_of_another_shape(tmp_path, mutate, field, words):
    doc = load("raycluster.yaml")
    mutate(doc)
    path = write(tmp_path, doc)
    validate_kuberay_manifest(path, shape=False)  # valid KubeRay, just not paralib's shape
    with pytest.raises(ClusterConfigError) as err:
        validate_kuberay_manifest(path)
    assert err.value.field == field and words in str(err.value)


@pytest.mark.parametrize(("mutate", "field", "words"), [
    (lambda d: d["spec"].pop("entrypoint"), "spec.entrypoint", "Field required"),
    (lambda d: d["spec"].update(entrypoint="python train.py"), "spec.entrypoint",
     "jobs/run.py STAGE"),
    (lambda d: d["spec"].update(entrypoint="python jobs/nope.py --config x.yaml"),
     "spec.entrypoint", "jobs/nope.py does not exist"),
    (lambda d: d["spec"].update(entrypoint="python jobs/run.py --config x.yaml"),
     "spec.entrypoint", "jobs/run.py needs a stage"),
    (lambda d: d["spec"].update(entrypoint="python jobs/run.py backtranslate --config nope.yaml"),
     "spec.entrypoint", "config nope.yaml is not in the repository"),
    (lambda d: d["spec"].update(runtimeEnvYAML="- a list"), "spec.runtimeEnvYAML",
     "must be a YAML mapping"),
    (lambda d: d["spec"].update(submissionMode="Batch"), "spec.submissionMode", "Input should"),
    (lambda d: d["spec"].pop("rayClusterSpec"), "spec.rayClusterSpec",
     "rayClusterSpec or clusterSelector"),
    (lambda d: d["spec"]["rayClusterSpec"]["workerGroupSpecs"][0].update(replicas=7),
     "spec.rayClusterSpec.workerGroupSpecs[0].replicas", "outside"),
    (lambda d: d["spec"]["rayClusterSpec"].update(rayVersion="2.59.0"),
     "spec.rayClusterSpec.rayVersion", "not the pinned Ray"),
], ids=["no-entrypoint", "not-a-job", "missing-job", "no-stage", "missing-config",
        "env-not-mapping", "submission-mode", "no-cluster", "nested-replicas", "nested-version"])
def test_broken_rayjob(tmp_path, mutate, field, words):
    doc = load("rayjob.yaml")
    mutate(doc)
    path = write(tmp_path, doc)
    with pytest.raises(ClusterConfigError) as err:
        validate_kuberay_manifest(path)
    assert err.value.field == field, str(err.value)
    assert words in str(err.value)


def test_every_document_of_a_file_is_checked(tmp_path):
    good, bad = load("raycluster.yaml"), load("rayjob.yaml")
    bad["spec"]["rayClusterSpec"]["workerGroupSpecs"][1].pop("minReplicas")
    path = tmp_path / "both.yaml"
    path.write_text(yaml.safe_dump_all([good, bad], sort_keys=False))
    with pytest.raises(ClusterConfigError) as err:
        validate_kuberay_manifest(path)
    assert err.value.field == "document 2: spec.rayClusterSpec.workerGroupSpecs[1].minReplicas"
