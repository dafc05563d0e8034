"""``paralib train``: fit tokenisers on the pairs, run the one training loop on Ray Train's
workers (or, ``engine: local``, in this process without Ray), keep the best epoch on dev as the
model folder, and write one training report (2018 §5.2, 2019 §3.1)."""

from __future__ import annotations

import json
import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd
import pyarrow as pa
import torch

from paralib.contracts import TrainingSummary
from paralib.io import fs
from paralib.io.context import StageContext
from paralib.models.folder import check_replaceable, replace_with
from paralib.models.model import ParaphraseModel, fit_tokenizers
from paralib.models.pretrained import save_model
from paralib.runtime import call_watched, check_fits, stall_timeout
from paralib.train.batches import all_unknown, token_columns
from paralib.train.config import TrainConfig
from paralib.train.dev import summary_fields
from paralib.train.identity import check_run
from paralib.train.loop import LoopConfig, card, worker
from paralib.train.progress import TrainBar
from paralib.train.report import write_report
from paralib.train.session import LocalSession, train_loop
from paralib.train.sources import (
    SourceError,
    decontamination_counts,
    load_sources,
    mix_counts,
    shortage,
    vocabulary_sample,
)
from paralib.train.timing import Clock, background

log = logging.getLogger(__name__)


@dataclass
class Prepared:
    """Training pairs (``data``), rejects with reasons, fitted tokenisers, and every pair's
    token ids (:func:`paralib.train.batches.token_columns`, rows aligned with ``data``)."""

    data: pd.DataFrame
    rejects: pd.DataFrame
    tokenizers: list
    ids: dict[str, pa.Array]

    def table(self) -> pa.Table:
        """What the workers read: the groups, the labels if any, and the token ids."""
        columns = ["group"] + (["label"] if "label" in self.data.columns else [])
        table = pa.Table.from_pandas(self.data[columns], preserve_index=False)
        for name, column in self.ids.items():
            table = table.append_column(name, column)
        return table


def prepare(tcfg: TrainConfig, ctx: StageContext) -> Prepared:
    """Training pairs, rejects (with reasons), fitted tokenisers and the pairs' token ids,
    tokenised once. A pair with a side whose tokens are all unknown (it would train on
    ``<unk>`` alone) is a reject."""
    data, rejects = load_sources(tcfg, ctx, tcfg.seed)
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


@dataclass
class Outcome:
    """What a run of either mode leaves: the model folder written, the kept epoch and its
    dev score, every epoch's record, where it resumed, and how it ran."""

    best_epoch: int
    dev_pearson: float | None
    history: list[dict]
    workers: int
    gpu: bool
    resumed_from: int = 0
    run: str | None = None


def train(tcfg: TrainConfig, ctx: StageContext, callbacks: list | None = None,
          fresh: bool = False, engine: Literal["ray", "local"] = "ray",
          trained: bool = True) -> TrainingSummary:
    """Train ``tcfg``'s encoder into ``train.output``; returns ``training.json``'s summary.

    ``engine: ray`` runs the training loop (:func:`paralib.train.loop.worker`) on Ray Train's
    workers: a run of the same ``train.name`` resumes from its latest checkpoint when its
    config is the same (:mod:`paralib.train.identity`), ``fresh`` starts it over, and
    ``callbacks`` go to the trainer's ``RunConfig`` (e.g. Ray Tune's ``TuneReportCallback``).
    When no pair is trained for ``ray.stall_timeout_s`` the run is aborted and
    :class:`paralib.runtime.StallError` names it and how far it got.

    ``engine: local`` runs the same loop in this process with one worker, without Ray (small
    experiment runs): no checkpoints, the best epoch's weights kept in memory.
    ``trained=False`` (local only) writes the initial model, which encoding speed needs.
    """
    clock = Clock()
    check_replaceable(Path(tcfg.output))  # before any work: never replace a user's folder
    if engine == "local":
        prepared = prepare(tcfg, ctx)
        clock.lap("prepare")
        outcome = _fit_local(tcfg, prepared, trained)
    else:
        if not trained:
            raise ValueError("trained=False writes an initial model in process: use "
                             "engine='local'")
        prepared, outcome = _fit_ray(tcfg, ctx, callbacks, fresh, clock)
    clock.lap("train")
    summary = _summary(tcfg, prepared, outcome, engine, trained, clock.laps)
    out = Path(tcfg.output)
    if len(prepared.rejects):
        prepared.rejects.to_parquet(out / "rejects.parquet", index=False)
    if outcome.history:
        write_report(out, summary)
    return summary


def _summary(tcfg: TrainConfig, prepared: Prepared, outcome: Outcome, engine: str,
             trained: bool, timings: dict[str, float]) -> TrainingSummary:
    """The one summary of both modes (``training.json``)."""
    bilingual, languages = _languages(tcfg, prepared.data)
    return TrainingSummary(
        model=str(Path(tcfg.output)), pairs=len(prepared.data),
        rejected=len(prepared.rejects), best_epoch=outcome.best_epoch, dev=tcfg.dev,
        **summary_fields(tcfg.dev, outcome.dev_pearson), workers=outcome.workers,
        gpu=outcome.gpu, bilingual=bilingual, languages=languages, history=outcome.history,
        resumed_from_epoch=outcome.resumed_from, run=outcome.run,
        decontaminated=(decontamination_counts(prepared.rejects) if tcfg.decontaminate
                        else "off (train.decontaminate: false)"),
        mix=mix_counts(prepared.data), engine=engine, trained=trained, timings=timings)


def loop_config(tcfg: TrainConfig, prepared: Prepared, use_gpu: bool, data: Any,
                tally: Any = None) -> LoopConfig:
    """The typed config every worker of the run gets."""
    bilingual, languages = _languages(tcfg, prepared.data)
    return LoopConfig(train=tcfg, tokenizers=prepared.tokenizers, bilingual=bilingual,
                      languages=languages, pairs=len(prepared.data),
                      threads=max(1, int(tcfg.cpus_per_worker)), use_gpu=use_gpu, data=data,
                      tally=tally)


def _fit_local(tcfg: TrainConfig, prepared: Prepared, trained: bool) -> Outcome:
    """The training loop in this process (one worker, no Ray); writes the model folder."""
    use_gpu = bool(tcfg.use_gpu)
    config = loop_config(tcfg, prepared, use_gpu, prepared.table())
    session = LocalSession(config)
    if trained:
        worker(config, session)
    model = session.model
    if model is None:  # untrained: fitted tokenisers, initial weights seeded as the loop's
        torch.manual_seed(tcfg.seed)
        model = ParaphraseModel(tcfg.model, config.tokenizers)
        model.initialise()
    if session.best_state is not None:
        model.load_state_dict(session.best_state)
    model.cpu()
    info = {"languages": config.languages, "workers": 1, "pairs": config.pairs,
            "epoch": session.best_epoch, "dev": session.best_score,
            "history": session.history}
    save_model(model, Path(tcfg.output), tuple(config.languages), info, card(tcfg, info))
    return Outcome(session.best_epoch, session.best_score, session.history, 1, use_gpu)


def scaling_config(tcfg: TrainConfig, use_gpu: bool):
    """Ray Train's ``ScalingConfig``: ``train.workers`` workers of ``train.cpus_per_worker``
    CPUs, and one GPU each when ``use_gpu`` (DDP over every GPU of a node: workers = GPUs)."""
    import ray.train

    return ray.train.ScalingConfig(
        num_workers=tcfg.workers, use_gpu=use_gpu,
        resources_per_worker={"CPU": tcfg.cpus_per_worker, **({"GPU": 1} if use_gpu else {})})


def _fit_ray(tcfg: TrainConfig, ctx: StageContext, callbacks: list | None, fresh: bool,
             clock: Clock) -> tuple[Prepared, Outcome]:
    """The training loop on Ray Train's workers; Ray starts while the pairs are prepared,
    and the pairs' table goes to the object store once (the workers map it)."""
    import ray

    storage, storage_filesystem = _storage(tcfg.storage_path), None
    # before any work: never resume another config's run
    check_run(tcfg, fs.join(storage, tcfg.name), ctx.storage, fresh,
              reads={"decontaminate": ctx.decontaminate})
    # Ray starts here (in this thread: the processes it starts end with the thread that
    # started them) while another thread prepares the pairs
    preparing = background(prepare, tcfg, ctx)
    resources = ctx.init_ray()
    clock.lap("ray_init")
    use_gpu = tcfg.use_gpu if tcfg.use_gpu is not None else resources.get("GPU", 0) > 0
    # a run that cannot fit says so first, whatever preparing the pairs would say
    check_fits(ctx.ray, {"CPU": tcfg.cpus_per_worker, "GPU": 1.0 if use_gpu else 0.0},
               "train.workers x train.cpus_per_worker", count=tcfg.workers)
    prepared = preparing.result()
    clock.lap("prepare")
    log.info("training on %d pairs (%d rejected), %d worker(s), gpu=%s", len(prepared.data),
             len(prepared.rejects), tcfg.workers, use_gpu)
    if fs.is_s3(storage):
        storage_filesystem, storage = fs.resolve(storage, ctx.storage)
    data = ray.put(prepared.table())
    clock.lap("ship")
    stall_s = stall_timeout()
    bar = TrainBar(len(prepared.data) * tcfg.epochs, tcfg.epochs, ctx.progress,
                   desc=f"train {tcfg.name}", watched=stall_s is not None)

    def fit():
        """The trainer; nothing starts once the stall watch has given up."""
        from ray.train.torch import TorchTrainer

        from paralib.train.controller import ControllerHandle

        trainer = TorchTrainer(
            train_loop, train_loop_config=loop_config(tcfg, prepared, use_gpu, data, tally),
            scaling_config=scaling_config(tcfg, use_gpu),
            run_config=_run_config(tcfg, storage, storage_filesystem,
                                   [*(callbacks or []),
                                    *([ControllerHandle(tally)] if tally else [])]))
        return None if bar.aborted.is_set() else trainer.fit()

    with bar as tally:  # one progress bar and the stall watch, fed by the workers
        result = call_watched(
            fit, stall_s, f"train {tcfg.name}", bar.progress, bar.state, bar.abort,
            why="its data or its workers wait for resources that no node has free (see `ray "
            "status`; on an autoscaling cluster, nodes it cannot add), or a worker hangs")
    for warning in bar.warnings:
        log.warning("%s: %s", tcfg.name, warning)
    return prepared, _keep_best(tcfg, result, use_gpu)


def _run_config(tcfg: TrainConfig, storage: str, storage_filesystem, callbacks: list):
    """Ray Train's ``RunConfig``: the run's folder and the checkpoints it keeps."""
    import ray.train

    return ray.train.RunConfig(
        name=tcfg.name, storage_path=storage, storage_filesystem=storage_filesystem,
        callbacks=callbacks, checkpoint_config=ray.train.CheckpointConfig(
            num_to_keep=tcfg.keep_checkpoints,
            checkpoint_score_attribute="dev_score" if tcfg.dev != "none" else None,
            checkpoint_score_order="max"))


def _keep_best(tcfg: TrainConfig, result, use_gpu: bool) -> Outcome:
    """The run's best checkpoint on dev (its latest without a dev set) as the model folder."""
    best = result.get_best_checkpoint("dev_score", "max") if tcfg.dev != "none" else None
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
    return Outcome(info["epoch"], info.get("dev"), last["history"], tcfg.workers, use_gpu,
                   last.get("resumed_from", 0), f"{_storage(tcfg.storage_path)}/{tcfg.name}")
