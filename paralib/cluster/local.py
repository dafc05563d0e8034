"""A real multi-node Ray cluster on one machine, for tests and rehearsals of cluster runs.

:class:`LocalCluster` starts a head and worker nodes with ``ray.cluster_utils.Cluster`` (each
node its own raylet, object store and resources), with the dashboard and its job server, so
jobs go through ``JobSubmissionClient`` exactly as under ``ray job submit``. With
``autoscaling=`` the head runs Ray's autoscaler on the fake multi-node provider
(``ray.autoscaler._private.fake_multi_node``), which starts worker nodes on this machine when
tasks or actors ask for resources no running node has.

It shares the machine politely: every port is chosen free, the cluster lives in its own
temporary directory (``RAY_TMPDIR``, so ``ray.init()`` elsewhere on the machine never finds
it), and shutdown ends only processes whose command line names that directory, with their
children, never ``ray stop``. (Ray's own ``AutoscalingCluster`` runs ``ray stop --force``,
which would end every Ray on the machine, and its base config file is missing from the
2.60.0 wheel.)
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OBJECT_STORE_BYTES = 150 * 1024 * 1024
FAKE_HEAD_TYPE = "ray.head.default"


@dataclass(frozen=True)
class NodeSpec:
    """The resources one node advertises (``num_cpus`` is logical, not physical)."""

    num_cpus: int = 1
    resources: dict[str, float] = field(default_factory=dict)
    num_gpus: int = 0


@dataclass(frozen=True)
class JobResult:
    """What a submitted job came to."""

    job_id: str
    status: str
    logs: str
    seconds: float

    @property
    def succeeded(self) -> bool:
        return self.status == "SUCCEEDED"


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fake_autoscaling_config(head: NodeSpec, worker_types: dict[str, dict[str, Any]],
                            gcs_address: str, idle_timeout_minutes: float = 5) -> dict:
    """A cluster config for the fake multi-node provider (Ray's ``example.yaml`` shape).

    ``worker_types`` maps a type name to ``{"resources": {...}, "min_workers": n,
    "max_workers": m}``; ``gcs_address`` is where launched nodes join.
    """
    types: dict[str, Any] = {
        FAKE_HEAD_TYPE: {"resources": {"CPU": head.num_cpus, **head.resources},
                         "node_config": {}, "max_workers": 0},
        **{name: {"node_config": {}, "min_workers": 0, **spec}
           for name, spec in worker_types.items()}}
    return {
        "cluster_name": "paralib-local",
        "max_workers": sum(t.get("max_workers", 1) for t in worker_types.values()),
        "provider": {"type": "fake_multinode", "use_node_id_as_ip": True,
                     "disable_node_updaters": True, "disable_launch_config_check": True,
                     "gcs_address": gcs_address},
        "available_node_types": types, "head_node_type": FAKE_HEAD_TYPE,
        "auth": {}, "upscaling_speed": 1.0, "idle_timeout_minutes": idle_timeout_minutes,
        "docker": {}, "initialization_commands": [], "setup_commands": [],
        "head_setup_commands": [], "worker_setup_commands": [], "head_start_ray_commands": [],
        "worker_start_ray_commands": [], "file_mounts": {}, "cluster_synced_files": [],
        "file_mounts_sync_continuously": False, "rsync_exclude": [], "rsync_filter": [],
    }


class LocalCluster:
    """Head plus worker nodes on this machine, with a job server; a context manager.

    ``workers`` start with the cluster; ``autoscaling`` (worker types as in
    :func:`fake_autoscaling_config`) lets the autoscaler add more on demand. ``env`` is set
    in this process while the cluster runs (nodes and jobs inherit it; ``OMP_NUM_THREADS=1``
    by default). One at a time per process: the cluster's ``RAY_TMPDIR`` is process-wide.
    An embedded ``ray.init()`` in the same process is unaffected.
    """

    def __init__(self, head: NodeSpec | None = None, workers: list[NodeSpec] | None = None,
                 autoscaling: dict[str, dict[str, Any]] | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.head_spec = head or NodeSpec()
        self.worker_specs = list(workers or [])
        self.autoscaling = autoscaling
        self.env = {"OMP_NUM_THREADS": "1", **(env or {})}
        self.tmpdir = ""
        self.cluster: Any = None
        self.dashboard_url = ""
        self.workers: list[Any] = []
        self._saved_env: dict[str, str | None] = {}

    # -- life cycle ------------------------------------------------------------------------

    def start(self, timeout_s: float = 120) -> LocalCluster:
        """Start the head (with the dashboard) and the workers; wait until all are up."""
        import ray
        from ray.cluster_utils import Cluster

        # A short private directory: Ray's socket paths must stay under 108 characters.
        self.tmpdir = tempfile.mkdtemp(prefix="plc-", dir="/tmp")
        env = {"RAY_TMPDIR": self.tmpdir, **self.env}
        if self.autoscaling is not None:
            env |= {"RAY_FAKE_CLUSTER": "1", "AUTOSCALER_UPDATE_INTERVAL_S": "1"}
        self._set_env(env)
        ip = ray._private.services.get_node_ip_address()
        gcs_port, dash_port = free_port(), free_port()
        head_args: dict[str, Any] = {
            "num_cpus": self.head_spec.num_cpus, "num_gpus": self.head_spec.num_gpus,
            "resources": dict(self.head_spec.resources), "gcs_server_port": gcs_port,
            "include_dashboard": True, "dashboard_host": "127.0.0.1",
            "dashboard_port": dash_port, "dashboard_agent_listen_port": free_port(),
            "object_store_memory": OBJECT_STORE_BYTES,
        }
        if self.autoscaling is not None:
            config = fake_autoscaling_config(self.head_spec, self.autoscaling, f"{ip}:{gcs_port}")
            path = Path(self.tmpdir) / "autoscaling.json"
            path.write_text(json.dumps(config))
            head_args["autoscaling_config"] = str(path)
        try:
            self.cluster = Cluster(initialize_head=True, head_node_args=head_args)
            self.dashboard_url = f"http://{self.cluster.webui_url}"
            for spec in self.worker_specs:
                self.workers.append(self.cluster.add_node(
                    num_cpus=spec.num_cpus, num_gpus=spec.num_gpus,
                    resources=dict(spec.resources), object_store_memory=OBJECT_STORE_BYTES))
            self.cluster.wait_for_nodes(timeout=timeout_s)
        except BaseException:
            self.shutdown()
            raise
        return self

    def shutdown(self) -> None:
        """Stop every process of this cluster (and only those) and remove its directory."""
        import psutil

        ours: list[psutil.Process] = []
        if self.tmpdir:
            for proc in psutil.process_iter(["cmdline"]):
                if self.tmpdir in " ".join(proc.info["cmdline"] or []):
                    ours.append(proc)
                    with contextlib.suppress(psutil.Error):
                        ours.extend(proc.children(recursive=True))
        if self.cluster is not None:
            self.cluster.shutdown()
            self.cluster = None
        alive = [p for p in ours if p.is_running()]
        for proc in alive:
            with contextlib.suppress(psutil.Error):
                proc.terminate()
        _, alive = psutil.wait_procs(alive, timeout=5)
        for proc in alive:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        self._restore_env()
        if self.tmpdir:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = ""

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def _set_env(self, env: dict[str, str]) -> None:
        for key, value in env.items():
            self._saved_env.setdefault(key, os.environ.get(key))
            os.environ[key] = value

    def _restore_env(self) -> None:
        for key, value in self._saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        self._saved_env = {}

    # -- use ---------------------------------------------------------------------------------

    @property
    def address(self) -> str:
        """The GCS address (what ``ray.init(address=...)`` takes)."""
        return self.cluster.address

    @property
    def head_node_id(self) -> str:
        return self.cluster.head_node.node_id

    def submit(self, entrypoint: str, runtime_env: dict[str, Any] | None = None,
               timeout_s: float = 300) -> JobResult:
        """Submit ``entrypoint`` through the job server and wait for it to end."""
        from ray.job_submission import JobSubmissionClient

        t0 = time.monotonic()
        deadline = t0 + timeout_s
        client = JobSubmissionClient(self.dashboard_url)
        while True:  # the job agent may not be registered yet right after start
            try:
                job_id = client.submit_job(entrypoint=entrypoint, runtime_env=runtime_env)
                break
            except RuntimeError as exc:
                if "No available agent" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        while not client.get_job_status(job_id).is_terminal():
            if time.monotonic() > deadline:
                client.stop_job(job_id)
                break
            time.sleep(0.5)
        status = client.get_job_status(job_id)
        return JobResult(job_id, str(status.value), client.get_job_logs(job_id),
                         time.monotonic() - t0)

    def nodes(self) -> list[dict[str, Any]]:
        """Live nodes as ``{"node_id", "resources"}`` (from the GCS, as the autoscaler sees)."""
        from ray.util.state import list_nodes

        return [{"node_id": n.node_id, "resources": dict(n.resources_total)}
                for n in list_nodes(address=self.dashboard_url, detail=True)
                if n.state == "ALIVE"]

    def actors(self, class_name: str) -> list[dict[str, Any]]:
        """Actors (alive or dead) whose class name contains ``class_name``, with their node."""
        from ray.util.state import list_actors

        return [{"actor_id": a.actor_id, "class_name": a.class_name, "node_id": a.node_id,
                 "state": a.state}
                for a in list_actors(address=self.dashboard_url, detail=True, limit=10_000)
                if class_name in (a.class_name or "")]
