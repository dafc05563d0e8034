"""cluster/paralib-aws.yaml: a valid paralib config whose data is on S3 and whose translation
actors fit the GPU nodes of both cluster definitions."""

from __future__ import annotations

import json

import yaml

from paralib.cluster.launcher import validate_launcher_config
from paralib.config import load_config
from paralib.paths import PROJECT_ROOT, expand
from paralib.translate.pipeline import actor_plan

CLUSTER = PROJECT_ROOT / "cluster"


def test_stage_paths_are_on_the_bucket(monkeypatch):
    monkeypatch.setenv("PARALIB_BUCKET", "paralib-test")
    cfg = load_config(CLUSTER / "paralib-aws.yaml")
    paths = [cfg.backtranslate.output, cfg.score.input, cfg.score.output, cfg.select.input,
             cfg.select.output, cfg.analyze.input, cfg.analyze.output, cfg.lm.input,
             cfg.lm.output, cfg.classifier.input, cfg.classifier.output]
    paths += [expand(s.params["model"]) for s in cfg.score.scorers if "model" in s.params]
    paths += [p for i in cfg.bitext.inputs for p in i.files()]
    assert all(p.startswith("s3://paralib-test/") for p in paths), paths
    assert cfg.ray.address == "auto"


def test_translation_actors_fit_the_gpu_nodes(monkeypatch):
    monkeypatch.setenv("PARALIB_BUCKET", "paralib-test")
    bt = load_config(CLUSTER / "paralib-aws.yaml").backtranslate
    # On a cluster scaled to zero no GPU is visible yet: the actors must still ask for one.
    plan = actor_plan(bt, {"CPU": 8}, shard_rows=1000)
    per = bt.actors_per_gpu
    assert plan["device"] == "cuda" and plan["num_gpus"] == 1 / per
    # what the actors sharing one GPU node ask for together
    need = {k: v * per for k, v in {"CPU": plan["num_cpus"], "GPU": plan["num_gpus"],
                                     **bt.actor_resources}.items()}
    assert need["GPU"] == 1 and need["translate"] == 1

    gpu_type = validate_launcher_config(CLUSTER / "aws.yaml")["available_node_types"]["gpu"]
    assert all(gpu_type["resources"].get(k, 0) >= v for k, v in need.items()), need
    assert plan["max"] <= gpu_type["max_workers"] * per  # `per` actors per GPU node

    for name in ("raycluster.yaml", "rayjob.yaml"):
        doc = yaml.safe_load((CLUSTER / "kuberay" / name).read_text())
        spec = doc["spec"].get("rayClusterSpec", doc["spec"])
        group = next(g for g in spec["workerGroupSpecs"] if g["groupName"] == "gpu")
        limits = group["template"]["spec"]["containers"][0]["resources"]["limits"]
        offered = {"CPU": float(limits["cpu"]), "GPU": limits["nvidia.com/gpu"],
                   **json.loads(json.loads(group["rayStartParams"]["resources"]))}
        assert all(offered.get(k, 0) >= v for k, v in need.items()), (name, offered, need)
        assert plan["max"] <= group["maxReplicas"] * per
