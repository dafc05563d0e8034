"""``paralib train``: fit tokenisers on the pairs, run the Ray Train ``TorchTrainer``, keep the
best epoch on dev as the model folder, and write a training report (2018 §5.2, 2019 §3.1)."""

from __future__ import annotations

import copy
import json
import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import torch

from paralib.config import Config
from paralib.contracts import TrainingSummary
from paralib.io import fs
from paralib.models.folder import check_replaceable, replace_with
from paralib.models.model import ParaphraseModel, fit_tokenizers
from paralib.models.pretrained import save_model
from paralib.runtime import call_watched, check_fits, init_ray, stall_timeout
from paralib.train.batches import all_unknown, token_columns
from paralib.train.config import TrainConfig
from paralib.train.dev import load_dev
from paralib.train.epoch import improves
from paralib.train.identity import check_run
from paralib.train.loop import card, epochs, train_loop
from paralib.train.progress import ControllerHandle, TrainBar
from paralib.train.report import write_report
from paralib.train.sources import (
    SourceError,
    decontamination_counts,
    load_sources,
    shortage,
    vocabulary_sample,
)
from paralib.train.steps import MegaBatchTrainer, build_optimizer, use_sparse

log = logging.getLogger(__name__)


@dataclass
class Prepared:
    """Training pairs (``data``), rejects with reasons, fitted tokenisers, and every pair's
    token ids (:func:`paralib.train.batches.token_columns`, rows aligned with ``data``)."""

    data: pd.DataFrame
    rejects: pd.DataFrame
    tokenizers: list
    ids: dict[str, pa.Array]

    def table(self, columns: list[str]) -> pa.Table:
        """``columns`` of ``data`` with the id columns beside them."""
        table = pa.Table.from_pandas(self.data[columns], preserve_index=False)
        for name, column in self.ids.items():
            table = table.append_column(name, column)
        return table


def prepare(cfg: Config) -> Prepared:
    """Training pairs, rejects (with reasons), fitted tokenisers and the pairs' token ids,
    tokenised once. A pair with a side whose tokens are all unknown (it would train on
    ``<unk>`` alone) is a reject."""
    tcfg = cfg.train
    data, rejects = load_sources(cfg, tcfg.seed)
    if tcfg.loss == "contrastive" and "label" not in data.columns:
        raise SourceError("the contrastive loss needs labelled pairs (a 'label' column): use "
                          "a labelled selection (select.labelled: true)")
    if "label" in data.columns and data["label"].isna().any():
        raise SourceError("some sources carry labels and some do not: mix labelled sources "
                          "only with labelled sources")
    if len(data) < 2:
        raise SourceError(f"only {len(data)} usable training pair(s), expected at least 2: "
                          f"{shortage(data, rejects)}")
    sample = vocabulary_sample(data, tcfg.vocab_sample, tcfg.vocab_sample_by, tcfg.seed)
    tokenizers = fit_tokenizers(tcfg.model, sample)
    data = data.reset_index(drop=True)
    ids = token_columns(data, tcfg.model, tokenizers)
    unk = all_unknown(ids, len(data))
    if unk.any():
        bad = data[unk]
        rejects = pd.concat([rejects, pd.DataFrame({
            "source": bad["source"], "reason": "all tokens unknown", "detail": "",
            "s1": bad["s1"], "s2": bad["s2"]})], ignore_index=True)
        keep = pa.array(~unk)
        data = data[~unk].reset_index(drop=True)
        ids = {k: v.filter(keep) for k, v in ids.items()}
    return Prepared(data, rejects, tokenizers, ids)


def _languages(tcfg: TrainConfig, data: pd.DataFrame) -> tuple[bool, list[str]]:
    """Whether the pairs are bilingual (``train.bilingual`` or: any pair of two languages),
    and the languages of the pairs."""
    bilingual = (tcfg.bilingual if tcfg.bilingual is not None
                 else bool((data["lang1"] != data["lang2"]).any()))
    return bilingual, sorted(set(data["lang1"]) | set(data["lang2"]))


def _storage(path: str) -> str:
    return path if "://" in path else str(Path(path).resolve())


def _last_info(checkpoint) -> dict:
    """The model info of the run's latest checkpoint: its history has every epoch, where the
    kept (best) checkpoint's stops at its own epoch. Only that one small file is read, through
    the checkpoint's own filesystem (the weights stay where they are, local or on S3)."""
    with checkpoint.filesystem.open_input_stream(f"{checkpoint.path}/model/config.json") as f:
        return json.loads(f.read())["info"]


def train(cfg: Config, progress: bool = True, callbacks: list | None = None,
          fresh: bool = False) -> TrainingSummary:
    """Train the configured encoder; returns the summary written to ``training.json``.

    A run of the same ``train.name`` resumes from its latest checkpoint when its config is
    the same (:mod:`paralib.train.identity`); ``fresh`` starts it over.

    ``callbacks`` go to the trainer's ``RunConfig`` (e.g. Ray Tune's ``TuneReportCallback``,
    which forwards every epoch's ``ray.train.report`` metrics to the enclosing Tune trial).

    When no pair is trained for ``ray.stall_timeout_s`` (workers that never get their
    resources, a hung worker) the run is aborted and :class:`paralib.runtime.StallError`
    names it and how far it got.
    """
    import ray
    import ray.train
    from ray.train.torch import TorchTrainer

    tcfg = cfg.train
    # before any work: never replace a user's folder, never resume another config's run
    check_replaceable(Path(tcfg.output))
    storage, storage_filesystem = _storage(tcfg.storage_path), None
    check_run(tcfg, fs.join(storage, tcfg.name), cfg.s3.options(), fresh)
    resources = init_ray(cfg.ray)
    use_gpu = tcfg.use_gpu if tcfg.use_gpu is not None else resources.get("GPU", 0) > 0
    check_fits(cfg.ray, {"CPU": tcfg.cpus_per_worker, "GPU": 1.0 if use_gpu else 0.0},
               "train.workers x train.cpus_per_worker", count=tcfg.workers)
    prepared = prepare(cfg)
    data, rejects, tokenizers = prepared.data, prepared.rejects, prepared.tokenizers
    bilingual, languages = _languages(tcfg, data)
    # the workers read the token ids (paralib.train.batches.pair_batch): the texts stay here
    cols = ["group"] + (["label"] if "label" in data.columns else [])
    log.info("training on %d pairs (%d rejected), %d worker(s), gpu=%s", len(data),
             len(rejects), tcfg.workers, use_gpu)
    if fs.is_s3(storage):
        storage_filesystem, storage = fs.resolve(storage, cfg.s3.options())
    stall_s = stall_timeout()
    bar = TrainBar(len(data) * tcfg.epochs, tcfg.epochs, progress, desc=f"train {tcfg.name}",
                   watched=stall_s is not None)

    def fit():
        """The pairs to Ray Data (its metadata task waits for a CPU too), then the trainer;
        nothing starts once the stall watch has given up."""
        dataset = ray.data.from_arrow(prepared.table(cols))
        trainer = TorchTrainer(
            train_loop,
            train_loop_config={"train": tcfg.model_dump(mode="json"), "tokenizers": tokenizers,
                               "bilingual": bilingual, "languages": languages, "pairs": len(data),
                               "threads": max(1, int(tcfg.cpus_per_worker)), "tally": tally},
            scaling_config=ray.train.ScalingConfig(
                num_workers=tcfg.workers, use_gpu=use_gpu,
                resources_per_worker={"CPU": tcfg.cpus_per_worker,
                                      **({"GPU": 1} if use_gpu else {})}),
            run_config=ray.train.RunConfig(
                name=tcfg.name, storage_path=storage, storage_filesystem=storage_filesystem,
                callbacks=[*(callbacks or []), *([ControllerHandle(tally)] if tally else [])],
                checkpoint_config=ray.train.CheckpointConfig(
                    num_to_keep=tcfg.keep_checkpoints,
                    checkpoint_score_attribute="dev_pearson" if tcfg.dev != "none" else None,
                    checkpoint_score_order="max")),
            datasets={"train": dataset},
        )
        return None if bar.aborted.is_set() else trainer.fit()

    with bar as tally:  # one progress bar and the stall watch, fed by the workers
        result = call_watched(
            fit, stall_s, f"train {tcfg.name}", bar.progress, bar.state, bar.abort,
            why="its data or its workers wait for resources that no node has free (see `ray "
            "status`; on an autoscaling cluster, nodes it cannot add), or a worker hangs")
    for warning in bar.warnings:
        log.warning("%s: %s", tcfg.name, warning)
    best = result.get_best_checkpoint("dev_pearson", "max") if tcfg.dev != "none" else None
    best = best or result.checkpoint
    if best is None:
        raise RuntimeError(f"training {tcfg.name} finished without a checkpoint")
    out = Path(tcfg.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".paralib-") as tmp:
        best.to_directory(tmp)
        replace_with(Path(tmp) / "model", out)
    info = json.loads((out / "config.json").read_text())["info"]
    last = _last_info(result.checkpoint) if result.checkpoint else info
    summary = TrainingSummary(
        model=str(out), pairs=len(data), rejected=len(rejects), best_epoch=info["epoch"],
        dev=tcfg.dev, dev_pearson=info.get("dev"), workers=tcfg.workers, gpu=use_gpu,
        bilingual=bilingual, languages=languages, history=last["history"],
        resumed_from_epoch=last.get("resumed_from", 0),
        run=f"{_storage(tcfg.storage_path)}/{tcfg.name}",
        decontaminated=(decontamination_counts(rejects) if tcfg.decontaminate
                        else "off (train.decontaminate: false)"))
    if len(rejects):
        rejects.to_parquet(out / "rejects.parquet", index=False)
    write_report(out, summary)
    return summary


def train_local(cfg: Config, trained: bool = True) -> TrainingSummary:
    """Train ``cfg.train`` in this process, without Ray (the ``local`` engine of small
    experiment runs, where starting Ray Train, about 13 s, would dominate a run of a
    minute), and write the model folder ``cfg.train.output``; returns the summary written to
    ``training.json``.

    The same epoch loop as Ray Train's workers (:func:`paralib.train.loop.epochs`) with one
    worker: the pairs reshuffled every epoch, the model ending with the weights of its best
    epoch on dev (2018 §5.2; the last epoch when there is no dev set). ``trained=False``
    writes the initial model (fitted tokenisers, initial weights): what encoding speed
    needs, since speed does not depend on the weights."""
    tcfg = cfg.train
    check_replaceable(Path(tcfg.output))  # before any work: never replace a user's folder
    torch.manual_seed(tcfg.seed)
    torch.set_num_threads(max(1, int(tcfg.cpus_per_worker)))
    prepared = prepare(cfg)
    data, rejects = prepared.data, prepared.rejects
    bilingual, languages = _languages(tcfg, data)
    model = ParaphraseModel(tcfg.model, prepared.tokenizers)
    model.initialise()
    best_epoch, best_score, best_state, history = 0, None, None, []
    if trained:
        table = prepared.table([c for c in ("group", "label") if c in data.columns])
        trainer = MegaBatchTrainer(tcfg, model, build_optimizer(model, tcfg.lr, use_sparse(tcfg)),
                                   bilingual=bilingual, seed=tcfg.seed)
        dev = load_dev(tcfg.dev)

        def batches(epoch: int) -> list[pa.Table]:
            # the row order pandas would give the whole frame, without copying it
            order = data.index.to_series().sample(frac=1.0,
                                                  random_state=tcfg.seed + epoch).to_numpy()
            return [table.take(order[i:i + tcfg.batch_size])
                    for i in range(0, len(order), tcfg.batch_size)]

        for record, score, _ in epochs(tcfg, trainer, model, dev, batches):
            history.append(record)
            if dev is None or best_state is None or improves(score, best_score):
                best_epoch, best_score = record["epoch"], score
                best_state = copy.deepcopy(model.state_dict())
        if best_state is not None:
            model.load_state_dict(best_state)
    out = Path(tcfg.output)
    info = {"languages": languages, "workers": 1, "pairs": len(data), "epoch": best_epoch,
            "dev": best_score, "history": history}
    save_model(model, out, tuple(languages), info, card(tcfg, info))
    summary = TrainingSummary(
        model=str(out), pairs=len(data), rejected=len(rejects), best_epoch=best_epoch,
        dev=tcfg.dev, dev_pearson=best_score, workers=1, gpu=False, bilingual=bilingual,
        languages=languages, history=history, engine="local", trained=trained)
    if len(rejects):
        rejects.to_parquet(out / "rejects.parquet", index=False)
    if history:
        write_report(out, summary)
    return summary
