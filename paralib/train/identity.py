"""A training run's identity: the config that made its checkpoints.

``paralib train`` resumes a run of the same ``train.name`` from its latest checkpoint. The run
folder (``storage_path/name``) keeps ``paralib-run.json`` with every key that shapes the model
or its data: the fields of ``train``, and of the other sections training reads
(``decontaminate``), that the schema says change results (:data:`paralib.fingerprint.Scope.WORK`:
not those a resumed run may change, such as ``epochs``, workers or the GPU, nor output and
storage paths). Resuming with a config that differs (or into a run folder without that file)
is refused, naming the keys that differ and how to start fresh (``paralib train --fresh`` or
another ``train.name``).

A record made before the other sections were in the identity holds ``train``'s keys only: it
is compared on those and written again with the whole identity, not refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pyarrow.fs import FileType
from pydantic import BaseModel

from paralib.errors import ConfigurationError
from paralib.fingerprint import flatten, section_print, stage_print
from paralib.io import fs
from paralib.train.config import TrainConfig

IDENTITY = "paralib-run.json"
OWN = "train"  # the section a record covers without saying which it covers


class RunIdentityError(ConfigurationError, ValueError):
    """A run folder made with another config (or not by paralib train)."""


def identity(cfg: TrainConfig, reads: Mapping[str, BaseModel] | None = None
             ) -> dict[str, Any]:
    """The keys that make a run's model, flattened: ``cfg``'s (``model.parts.0.dim``) and
    those of each section in ``reads`` under its name (``decontaminate.ngram``)."""
    flat = flatten(section_print(cfg), every_list=True)
    for name, section in (reads or {}).items():
        flatten(section_print(section), name, flat, every_list=True)
    return flat


def _compared(saved: dict[str, Any], want: dict[str, Any], reads: Mapping[str, BaseModel]
              ) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """The recorded identity and ``want``, each on the sections both cover (a record that
    names none covers ``train`` alone), and the keys where they differ."""
    recorded = saved.get("sections", [OWN])
    names = [name for name in {*recorded, *reads} if name != OWN]
    both = set(recorded) & {OWN, *reads}

    def on_both(flat: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in flat.items()
                if next((n for n in names if k.startswith(f"{n}.")), OWN) in both}

    was, now = on_both(saved["identity"]), on_both(want)
    return was, now, sorted(k for k in set(was) | set(now) if was.get(k) != now.get(k))


def check_run(cfg: TrainConfig, run_folder: str, s3=None, fresh: bool = False,
              reads: Mapping[str, BaseModel] | None = None) -> None:
    """Before training: refuse to resume ``run_folder`` with a different config (``cfg`` and
    the other sections training ``reads``, by name); with ``fresh`` delete it (only if
    ``paralib train`` made it); then record this config."""
    reads = dict(reads or {})
    marker = fs.join(run_folder, IDENTITY)
    want = identity(cfg, reads)
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
            saved = json.loads(fs.read_bytes(marker, s3))
            was, now, differ = _compared(saved, want, reads)
            if differ:
                shown = ", ".join(f"{k}: {was.get(k)!r} -> {now.get(k)!r}"
                                  for k in differ[:6])
                raise RunIdentityError(
                    f"train.name {cfg.name!r} is a run made with another config ({len(differ)} "
                    f"key(s) differ: {shown}{', ...' if len(differ) > 6 else ''}); resuming "
                    "would continue that model. Use paralib train --fresh to start it over, "
                    "or another train.name")
            if saved.get("sections", [OWN]) == [OWN, *reads]:
                return
    _record(marker, want, reads, s3)


def _record(marker: str, want: dict[str, Any], reads: Mapping[str, BaseModel], s3) -> None:
    """Write ``paralib-run.json``: the identity, its fingerprint and the sections it covers
    (``train`` alone, the record's form before other sections were covered, names none)."""
    record: dict[str, Any] = {"made_by": "paralib train", "fingerprint": stage_print(want),
                              "identity": want}
    if reads:
        record["sections"] = [OWN, *reads]
    fs.write_bytes(marker, json.dumps(record, indent=1).encode(), s3)
