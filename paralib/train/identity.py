"""A training run's identity: the config that made its checkpoints (issue "Reliability",
item 2).

``paralib train`` resumes a run of the same ``train.name`` from its latest checkpoint. The run
folder (``storage_path/name``) keeps ``paralib-run.json`` with the fingerprint of every
``train`` key that shapes the model or its data; resuming with a config that differs (or
into a run folder without that file) is refused, naming the keys that differ and how to start
fresh (``paralib train --fresh`` or another ``train.name``). Keys that only say how long or
where to train (``epochs``, workers, CPUs, GPU, output and storage paths, checkpoints kept)
may change between resumes.
"""

from __future__ import annotations

import json
from typing import Any

from pyarrow.fs import FileType

from paralib.errors import ConfigurationError
from paralib.io import fs
from paralib.io.stage import fingerprint
from paralib.train.config import TrainConfig

IDENTITY = "paralib-run.json"
# may change when a run resumes: how long, on what, and where the results go
RESUMABLE = ("epochs", "workers", "cpus_per_worker", "use_gpu", "output", "storage_path",
             "keep_checkpoints", "name")


class RunIdentityError(ConfigurationError, ValueError):
    """A run folder made with another config (or not by paralib train)."""


def identity(cfg: TrainConfig) -> dict[str, Any]:
    """The keys that make a run's model, flattened (``model.parts.0.dim``)."""
    tree = {k: v for k, v in cfg.model_dump(mode="json").items() if k not in RESUMABLE}
    flat: dict[str, Any] = {}

    def walk(value: Any, prefix: str) -> None:
        if isinstance(value, dict) and value:
            for k, v in value.items():
                walk(v, f"{prefix}.{k}" if prefix else k)
        elif isinstance(value, list) and value:
            for i, v in enumerate(value):
                walk(v, f"{prefix}.{i}")
        else:
            flat[prefix] = value

    walk(tree, "")
    return flat


def check_run(cfg: TrainConfig, run_folder: str, s3=None, fresh: bool = False) -> None:
    """Before training: refuse to resume ``run_folder`` with a different config; with
    ``fresh`` delete it (only if ``paralib train`` made it); then record this config."""
    marker = fs.join(run_folder, IDENTITY)
    want = identity(cfg)
    filesystem, inner = fs.resolve(run_folder, s3)
    if filesystem.get_file_info(inner).type != FileType.NotFound:
        has = fs.exists(marker, s3)
        if fresh and not has:
            raise RunIdentityError(
                f"{run_folder} was not made by paralib train (no {IDENTITY}): --fresh deletes "
                "only run folders that paralib train made; use another train.name")
        if fresh:
            fs.delete_dir(run_folder, s3)
        elif not has:
            raise RunIdentityError(
                f"{run_folder} holds checkpoints without a record of the config that made "
                f"them ({IDENTITY}); resuming could continue another model. Start fresh with "
                "another train.name (or remove that folder yourself)")
        else:
            saved = json.loads(fs.read_bytes(marker, s3))["identity"]
            differ = sorted(k for k in set(saved) | set(want) if saved.get(k) != want.get(k))
            if differ:
                shown = ", ".join(f"{k}: {saved.get(k)!r} -> {want.get(k)!r}"
                                  for k in differ[:6])
                raise RunIdentityError(
                    f"train.name {cfg.name!r} is a run made with another config ({len(differ)} "
                    f"key(s) differ: {shown}{', ...' if len(differ) > 6 else ''}); resuming "
                    "would continue that model. Use paralib train --fresh to start it over, "
                    "or another train.name")
            return
    fs.write_bytes(marker, json.dumps({"made_by": "paralib train", "fingerprint":
                                       fingerprint(want), "identity": want},
                                      indent=1).encode(), s3)
