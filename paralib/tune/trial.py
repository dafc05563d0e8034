"""One tuning trial: apply the trial's parameters to the base configuration, select its
training set from the scored shards, train with Ray Train and report the dev metric to Tune
after every epoch (2017 §5.2-5.7: each filter setting trains a model on its own selection and
is compared on development data; the stopping epoch is tuned on dev, §5.3).

A search that tunes no selection, on a base configuration that does not train on
``select.output`` (:func:`paralib.tune.params.uses_selection`), skips the selection: each
trial trains on ``train.sources`` directly, e.g. a decontaminated corpus and the captions
(the 2019 recipe at scale, 2019 §2-3.1).

Ray Train V2 runs inside the Tune function trainable: the ``TorchTrainer``'s
``RunConfig(callbacks=[TuneReportCallback()])`` forwards every ``ray.train.report`` of the
workers (``epoch``, ``loss``, ``dev_score``, ``dev_pearson``, ``checkpoint_path``...) to this
trial.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paralib.config import Config
from paralib.io import fs
from paralib.tune.params import apply_parameters
from paralib.tune.space import decode

SELECT_DIR, MODEL_DIR, TRAIN_NAME = "select", "model", "train"
DONE_FILE = "trial.json"


def trial_dirname(trial: Any) -> str:
    """Tune's trial folder name: ``trial_<id>`` (ids are unique within an experiment)."""
    return f"trial_{trial.trial_id}"


@dataclass
class TrialSetup:
    """What every trial needs from the driver (picklable): the base configuration as a tree
    (absolute paths), the parameter names, and where the experiment lives."""

    base: dict[str, Any]
    params: list[str]
    experiment: str  # <storage_path>/<name>, local (absolute) or s3://
    select: bool = True  # run paralib select (False: train on train.sources as they are)


def place(cfg: Config, root: str, model_dir: str, select: bool = True) -> Config:
    """Point the trial's selection, training sources, model and Ray Train run into its own
    folder ``root``: ``select/``, ``train/`` (checkpoints), ``model/`` (the best epoch).

    ``pairs`` sources that read the base selection (``select.output``) read the trial's
    selection instead; without such a source the selection is added as the first one.
    Without ``select`` the sources stay as they are (nothing reads a selection).
    """
    tree = cfg.model_dump()
    if select:
        selection = fs.join(root, SELECT_DIR)
        base_out = tree["select"]["output"]
        tree["select"]["output"] = selection
        sources = tree["train"]["sources"]
        mine = [s for s in sources if s["kind"] == "pairs" and s["path"] == base_out]
        for s in mine:
            s["path"] = selection
        if not mine:
            sources.insert(0, {"kind": "pairs", "path": selection})
    tree["train"].update(output=model_dir, storage_path=root, name=TRAIN_NAME)
    return Config.model_validate(tree)


def run_trial(config: dict[str, Any], setup: TrialSetup) -> None:
    """The Tune function trainable (wrapped with ``tune.with_parameters(run_trial,
    setup=...)``): select (when ``setup.select``), train, report each epoch through
    ``TuneReportCallback``."""
    import ray.tune
    from ray.tune.integration.ray_train import TuneReportCallback

    from paralib.runs import run

    trial_id = ray.tune.get_context().get_trial_id()
    params = {name: decode(config[name]) for name in setup.params}
    cfg = apply_parameters(Config.model_validate(setup.base), params)
    root = fs.join(setup.experiment, f"trial_{trial_id}")
    s3 = cfg.s3.options()
    with tempfile.TemporaryDirectory(prefix="paralib-trial-") as tmp:
        model_dir = str(Path(tmp) / MODEL_DIR) if fs.is_s3(root) else fs.join(root, MODEL_DIR)
        cfg = place(cfg, root, model_dir, setup.select)
        fs.write_bytes(fs.join(root, "parameters.json"),
                       json.dumps(params, indent=2, default=str).encode(), s3)
        summary = run(cfg, f"trial_{trial_id}", select=setup.select, engine="ray",
                      callbacks=[TuneReportCallback()]).train
        if fs.is_s3(root):
            fs.upload_dir(model_dir, fs.join(root, MODEL_DIR), s3)
    # written last: a trial without it was stopped (by ASHA) or failed
    summary.model = fs.join(root, MODEL_DIR)
    fs.write_bytes(fs.join(root, DONE_FILE), json.dumps(
        {k: v for k, v in summary.dump().items() if k != "history"}, indent=2,
        default=str).encode(), s3)
