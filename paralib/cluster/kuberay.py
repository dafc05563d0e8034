"""Schema-level validation of KubeRay manifests (``RayCluster``, ``RayJob``, API ``ray.io/v1``).

The models mirror the fields of KubeRay's Go types (``raycluster_types.go``,
``rayjob_types.go``): KubeRay's own objects forbid unknown keys (a misspelt
``workerGroupSpec`` is an error, as under ``kubectl apply --validate=strict``), while the
Kubernetes pod templates inside them only need what KubeRay reads (a first container with an
image and resource requests or limits). On top of the schema:

- worker groups: unique ``groupName``, ``minReplicas <= replicas <= maxReplicas``;
- ``rayStartParams`` are strings, and ``resources`` there decodes to a mapping of numbers;
- ``rayVersion`` is the pinned Ray, and every image tag names that version;
- paralib's shape: in-tree autoscaling, a GPU group starting at 0 and a CPU group;
- a ``RayJob`` entrypoint runs ``jobs/run.py STAGE`` with an existing ``--config``.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from paralib.cluster.errors import ClusterConfigError
from paralib.cluster.source import dotted, load_documents, ray_version
from paralib.paths import PROJECT_ROOT

API_VERSION = "ray.io/v1"
GPU_KEY = "nvidia.com/gpu"
NAME = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"


class Open(BaseModel):
    """A Kubernetes object: fields beyond those KubeRay reads are allowed."""

    model_config = ConfigDict(extra="allow")


class Closed(BaseModel):
    """A KubeRay object: unknown fields are errors."""

    model_config = ConfigDict(extra="forbid")


class Metadata(Open):
    name: str = Field(pattern=NAME, max_length=63)


class Resources(Open):
    limits: dict[str, str | int | float] = Field(default_factory=dict)
    requests: dict[str, str | int | float] = Field(default_factory=dict)


class Container(Open):
    name: str = Field(min_length=1)
    image: str = Field(min_length=1)
    resources: Resources


class PodSpec(Open):
    containers: list[Container] = Field(min_length=1)


class PodTemplate(Open):
    spec: PodSpec


class HeadGroupSpec(Closed):
    rayStartParams: dict[str, str]
    template: PodTemplate
    serviceType: Literal["ClusterIP", "NodePort", "LoadBalancer"] | None = None
    headService: dict[str, Any] | None = None
    enableIngress: bool | None = None


class WorkerGroupSpec(Closed):
    groupName: str = Field(pattern=NAME)
    replicas: int | None = Field(default=None, ge=0)
    minReplicas: int = Field(ge=0)
    maxReplicas: int = Field(ge=0)
    rayStartParams: dict[str, str]
    template: PodTemplate
    idleTimeoutSeconds: int | None = Field(default=None, ge=0)
    scaleStrategy: dict[str, Any] | None = None
    numOfHosts: int | None = Field(default=None, ge=1)
    suspend: bool | None = None


class RayClusterSpec(Closed):
    rayVersion: str
    headGroupSpec: HeadGroupSpec
    workerGroupSpecs: list[WorkerGroupSpec] = Field(default_factory=list)
    enableInTreeAutoscaling: bool | None = None
    autoscalerOptions: dict[str, Any] | None = None
    headServiceAnnotations: dict[str, str] | None = None
    gcsFaultToleranceOptions: dict[str, Any] | None = None
    suspend: bool | None = None
    managedBy: str | None = None


class RayJobSpec(Closed):
    entrypoint: str = Field(min_length=1)
    rayClusterSpec: RayClusterSpec | None = None
    clusterSelector: dict[str, str] | None = None
    runtimeEnvYAML: str | None = None
    jobId: str | None = None
    metadata: dict[str, str] | None = None
    submissionMode: Literal["K8sJobMode", "HTTPMode", "InteractiveMode"] | None = None
    submitterPodTemplate: dict[str, Any] | None = None
    submitterConfig: dict[str, Any] | None = None
    entrypointResources: str | None = None
    entrypointNumCpus: float | None = Field(default=None, ge=0)
    entrypointNumGpus: float | None = Field(default=None, ge=0)
    shutdownAfterJobFinishes: bool | None = None
    ttlSecondsAfterFinished: int | None = Field(default=None, ge=0)
    activeDeadlineSeconds: int | None = Field(default=None, gt=0)
    backoffLimit: int | None = Field(default=None, ge=0)
    deletionPolicy: Literal["DeleteCluster", "DeleteWorkers", "DeleteSelf",
                            "DeleteNone"] | None = None
    suspend: bool | None = None
    managedBy: str | None = None


class RayClusterManifest(Open):
    apiVersion: Literal["ray.io/v1"]
    kind: Literal["RayCluster"]
    metadata: Metadata
    spec: RayClusterSpec


class RayJobManifest(Open):
    apiVersion: Literal["ray.io/v1"]
    kind: Literal["RayJob"]
    metadata: Metadata
    spec: RayJobSpec


MODELS: dict[str, type[BaseModel]] = {"RayCluster": RayClusterManifest, "RayJob": RayJobManifest}


def validate_kuberay_manifest(path: str | Path, shape: bool = True) -> list[BaseModel]:
    """Validate every document of a KubeRay manifest file; returns the parsed objects.

    ``shape=True`` also requires paralib's cluster shape (see the module docstring). Errors are
    :class:`ClusterConfigError` naming the file and the dotted field.
    """
    docs = load_documents(path)
    return [validate_manifest(doc, str(path), f"document {i + 1}: " if len(docs) > 1 else "",
                              shape) for i, doc in enumerate(docs)]


def validate_manifest(doc: dict[str, Any], source: str, prefix: str = "",
                      shape: bool = True) -> BaseModel:
    """Validate one manifest document (a ``RayCluster`` or a ``RayJob``)."""
    if doc.get("apiVersion") != API_VERSION:
        raise ClusterConfigError(source, prefix + "apiVersion",
                                 f"must be {API_VERSION}, found {doc.get('apiVersion')!r}")
    model = MODELS.get(doc.get("kind", ""))
    if model is None:
        raise ClusterConfigError(source, prefix + "kind", f"must be one of {sorted(MODELS)}, "
                                 f"found {doc.get('kind')!r}")
    try:
        obj = model.model_validate(doc)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ClusterConfigError(source, prefix + dotted(err["loc"]), err["msg"]) from None
    if isinstance(obj, RayJobManifest):
        _check_job(obj.spec, source, prefix)
        if obj.spec.rayClusterSpec is not None:
            _check_cluster(obj.spec.rayClusterSpec, source, prefix + "spec.rayClusterSpec", shape)
    else:
        _check_cluster(obj.spec, source, prefix + "spec", shape)
    return obj


def _check_cluster(spec: RayClusterSpec, source: str, at: str, shape: bool) -> None:
    version = ray_version()
    if spec.rayVersion != version:
        raise ClusterConfigError(source, f"{at}.rayVersion",
                                 f"{spec.rayVersion} is not the pinned Ray {version}")
    groups = [("headGroupSpec", spec.headGroupSpec)] + [
        (f"workerGroupSpecs[{i}]", g) for i, g in enumerate(spec.workerGroupSpecs)]
    for field, group in groups:
        _check_start_params(group.rayStartParams, source, f"{at}.{field}.rayStartParams")
        for j, container in enumerate(group.template.spec.containers):
            where = f"{at}.{field}.template.spec.containers[{j}]"
            if version not in container.image:
                raise ClusterConfigError(source, f"{where}.image", f"image {container.image} "
                                         f"does not name Ray {version} in its tag")
        res = group.template.spec.containers[0].resources
        if not (res.limits or res.requests):
            raise ClusterConfigError(source, f"{at}.{field}.template.spec.containers[0]"
                                     ".resources", "set limits or requests (cpu, memory)")
    names = [g.groupName for g in spec.workerGroupSpecs]
    for i, g in enumerate(spec.workerGroupSpecs):
        where = f"{at}.workerGroupSpecs[{i}]"
        if names.count(g.groupName) > 1:
            raise ClusterConfigError(source, f"{where}.groupName",
                                     f"'{g.groupName}' names two worker groups")
        if g.minReplicas > g.maxReplicas:
            raise ClusterConfigError(source, f"{where}.minReplicas",
                                     f"{g.minReplicas} > maxReplicas {g.maxReplicas}")
        if g.replicas is not None and not g.minReplicas <= g.replicas <= g.maxReplicas:
            raise ClusterConfigError(source, f"{where}.replicas", f"{g.replicas} is outside "
                                     f"[minReplicas {g.minReplicas}, maxReplicas "
                                     f"{g.maxReplicas}]")
    if shape:
        _check_shape(spec, source, at)


def _gpus(group: WorkerGroupSpec) -> float:
    res = group.template.spec.containers[0].resources
    return float(res.limits.get(GPU_KEY, res.requests.get(GPU_KEY, 0)))


def _check_shape(spec: RayClusterSpec, source: str, at: str) -> None:
    if spec.enableInTreeAutoscaling is not True:
        raise ClusterConfigError(source, f"{at}.enableInTreeAutoscaling",
                                 "must be true (GPU workers autoscale from 0)")
    gpu = [(i, g) for i, g in enumerate(spec.workerGroupSpecs) if _gpus(g) > 0]
    if not gpu:
        raise ClusterConfigError(source, f"{at}.workerGroupSpecs",
                                 f"needs a GPU worker group ({GPU_KEY} in its limits)")
    if not any(_gpus(g) == 0 for g in spec.workerGroupSpecs):
        raise ClusterConfigError(source, f"{at}.workerGroupSpecs", "needs a CPU worker group")
    for i, g in gpu:
        if g.minReplicas != 0:
            raise ClusterConfigError(source, f"{at}.workerGroupSpecs[{i}].minReplicas",
                                     "GPU workers must autoscale from 0")


def _check_start_params(params: dict[str, str], source: str, at: str) -> None:
    """``resources`` uses KubeRay's quoting: ``'"{\\"translate\\": 1}"'``."""
    raw = params.get("resources")
    if raw is None:
        return
    try:
        value = json.loads(raw)
        if isinstance(value, str):
            value = json.loads(value)
    except json.JSONDecodeError as exc:
        raise ClusterConfigError(source, f"{at}.resources", f"not JSON ({exc}); write it as "
                                 "'\"{\\\"translate\\\": 1}\"'") from None
    if not isinstance(value, dict) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value.values()):
        raise ClusterConfigError(source, f"{at}.resources",
                                 f"must decode to a mapping of numbers, found {value!r}")


def _check_job(spec: RayJobSpec, source: str, prefix: str) -> None:
    at = prefix + "spec"
    if spec.rayClusterSpec is None and not spec.clusterSelector:
        raise ClusterConfigError(source, f"{at}.rayClusterSpec",
                                 "a RayJob needs rayClusterSpec or clusterSelector")
    if spec.runtimeEnvYAML is not None:
        try:
            env = yaml.safe_load(spec.runtimeEnvYAML)
        except yaml.YAMLError as exc:
            raise ClusterConfigError(source, f"{at}.runtimeEnvYAML",
                                     f"not valid YAML: {exc}") from None
        if not isinstance(env, dict):
            raise ClusterConfigError(source, f"{at}.runtimeEnvYAML", "must be a YAML mapping")
    _check_entrypoint(spec.entrypoint, source, f"{at}.entrypoint")


def _check_entrypoint(entrypoint: str, source: str, at: str) -> None:
    """The entrypoint runs ``jobs/run.py STAGE`` of this repository with a config it holds."""
    try:
        tokens = shlex.split(entrypoint)
    except ValueError as exc:
        raise ClusterConfigError(source, at, f"cannot be parsed as a command: {exc}") from None
    scripts = [i for i, t in enumerate(tokens) if re.search(r"(^|/)jobs/[A-Za-z0-9_]+\.py$", t)]
    if not scripts:
        raise ClusterConfigError(source, at, "must run paralib's jobs/run.py STAGE")
    for i in scripts:
        name = tokens[i].rsplit("jobs/", 1)[1]
        if not (PROJECT_ROOT / "jobs" / name).is_file():
            raise ClusterConfigError(source, at, f"jobs/{name} does not exist; stages run as "
                                     "jobs/run.py STAGE")
        if i + 1 >= len(tokens) or tokens[i + 1].startswith("-"):
            raise ClusterConfigError(source, at, f"jobs/{name} needs a stage: jobs/run.py "
                                     "STAGE --config FILE")
    for flag in ("--config", "-c"):
        if flag in tokens:
            i = tokens.index(flag)
            if i + 1 >= len(tokens):
                raise ClusterConfigError(source, at, f"{flag} needs a file")
            config = tokens[i + 1]
            if not config.startswith("/") and not (PROJECT_ROOT / config).is_file():
                raise ClusterConfigError(source, at,
                                         f"config {config} is not in the repository")
