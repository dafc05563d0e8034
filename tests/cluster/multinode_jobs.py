"""Helpers of the multi-node tests (not a test module): a back-translation job submitted to a
:class:`~paralib.cluster.local.LocalCluster` as ``ray job submit --working-dir .`` would, and
where its translation actors went."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from paralib.cluster.local import LocalCluster
from paralib.io.shards import read_output
from paralib.paths import PROJECT_ROOT

TRANSLATE = "translate"  # the custom resource of the translation node
ACTOR = "MapWorker"  # the class of Ray Data's actor-pool workers (TranslateActor inside)


def job_config(tmp_path: Path, m30k: dict[str, str], actor_resources: dict, rows: int = 200,
               shard_rows: int = 100, actors: int = 2) -> Path:
    """A back-translation config: ``rows`` Multi30k sentences in shards of ``shard_rows``,
    two hypotheses each, translation actors needing ``actor_resources``."""
    config = {
        "bitext": {"shard_rows": shard_rows, "inputs": [
            {"corpus": "m30k", "src_lang": "de", "src": m30k["train_de"],
             "en": m30k["train_en"], "limit": rows}]},
        "backtranslate": {
            "model": str(PROJECT_ROOT / "models" / "de-en"), "output": str(tmp_path / "out"),
            "beam_size": 4, "num_hypotheses": 2, "actors": actors, "min_actors": 1,
            "num_cpus_per_actor": 0.5, "intra_threads": 1,
            "actor_resources": actor_resources},
    }
    path = tmp_path / "backtranslate.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def submit_backtranslate(cluster: LocalCluster, config: Path):
    return cluster.submit(
        f"{sys.executable} -m paralib backtranslate --config {config} --no-progress",
        runtime_env={"working_dir": str(PROJECT_ROOT),
                     "env_vars": {"OMP_NUM_THREADS": "1", "RAY_DEDUP_LOGS": "0"}},
        timeout_s=400)


def placed_actors(cluster: LocalCluster) -> list[dict]:
    """The translation actors that were placed on a node (an actor the pool asked for but
    never needed before the job ended has no node)."""
    return [a for a in cluster.actors(ACTOR) if a["node_id"]]


def check_output(out: Path, rows: int = 200) -> None:
    data = read_output(str(out)).to_pandas()
    assert data["id"].nunique() == rows and len(data) == 2 * rows
    assert sorted(data["rank"].unique()) == [0, 1]
    assert data["trans"].str.len().gt(0).mean() > 0.95
