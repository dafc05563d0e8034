"""Training in this process, without Ray: the ``local`` engine of small experiment runs.

The same steps as ``paralib train``'s Ray Train worker loop (:mod:`paralib.train.loop`) with
one worker: pairs and tokenisers from :func:`paralib.train.run.prepare`, mega-batches of
mini-batches (2018 §4) through :class:`paralib.train.steps.MegaBatchTrainer`, the data
reshuffled every epoch, the dev Pearson after every epoch and the best epoch kept (2018 §5.2;
the last epoch when there is no dev set). It writes the same model folder and training
report; starting Ray Train (about 13 s per run here) would dominate runs of a minute.
"""

from __future__ import annotations

import copy
import logging
import time
from pathlib import Path

import pandas as pd
import torch

from paralib.config import Config
from paralib.contracts import TrainingSummary
from paralib.models import ParaphraseModel, save_model
from paralib.models.folder import check_replaceable
from paralib.train.dev import load_dev
from paralib.train.epoch import collapse_warning, dev_scores, epoch_record, improves
from paralib.train.loop import card
from paralib.train.report import write_report
from paralib.train.run import Prepared, prepare
from paralib.train.steps import MegaBatchTrainer, build_optimizer, use_sparse

log = logging.getLogger(__name__)


def _languages(data: pd.DataFrame) -> list[str]:
    return sorted(set(data["lang1"]) | set(data["lang2"]))


def _bilingual(cfg: Config, data: pd.DataFrame) -> bool:
    if cfg.train.bilingual is not None:
        return cfg.train.bilingual
    return bool((data["lang1"] != data["lang2"]).any())


def train_local(cfg: Config, trained: bool = True) -> TrainingSummary:
    """Train ``cfg.train`` in this process and write the model folder ``cfg.train.output``;
    returns the summary written to ``training.json`` (the keys of ``paralib train``'s).

    ``trained=False`` writes the initial model (fitted tokenisers, initial weights): what
    encoding speed needs, since speed does not depend on the weights."""
    tcfg = cfg.train
    check_replaceable(Path(tcfg.output))  # before any work: never replace a user's folder
    torch.manual_seed(tcfg.seed)
    torch.set_num_threads(max(1, int(tcfg.cpus_per_worker)))
    prepared = prepare(cfg)
    data, rejects, tokenizers = prepared.data, prepared.rejects, prepared.tokenizers
    bilingual, languages = _bilingual(cfg, data), _languages(data)
    model = ParaphraseModel(tcfg.model, tokenizers)
    model.initialise()
    history: list[dict] = []
    best_epoch, best_score = 0, None
    if trained:
        best_epoch, best_score, history = _fit(cfg, model, prepared, bilingual)
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


def _fit(cfg: Config, model: ParaphraseModel, prepared: Prepared, bilingual: bool
         ) -> tuple[int, float | None, list[dict]]:
    """Train every epoch on the pre-tokenised pairs; the model ends with the weights of the
    best epoch on dev."""
    tcfg = cfg.train
    data = prepared.data
    table = prepared.table([c for c in ("group", "label") if c in data.columns])
    optimizer = build_optimizer(model, tcfg.lr, use_sparse(tcfg))
    trainer = MegaBatchTrainer(tcfg, model, optimizer, bilingual=bilingual, seed=tcfg.seed)
    dev = load_dev(tcfg.dev)
    best_epoch, best_score, best_state = 0, None, None
    history: list[dict] = []
    for epoch in range(tcfg.epochs):
        t0 = time.perf_counter()
        # the row order pandas would give the whole frame, without copying it
        order = data.index.to_series().sample(frac=1.0,
                                              random_state=tcfg.seed + epoch).to_numpy()
        chunks = [table.take(order[i:i + tcfg.batch_size])
                  for i in range(0, len(order), tcfg.batch_size)]
        pairs, losses = trainer.train_epoch(chunks)
        seconds = time.perf_counter() - t0
        record = epoch_record(epoch + 1, losses, pairs, seconds, trainer.state,
                              dev_scores(model, dev))
        warning = collapse_warning(record, tcfg)
        if warning:
            log.warning("%s: %s", tcfg.name, warning)
        history.append(record)
        score = None if dev is None else record["dev_pearson"]
        if dev is None or best_state is None or improves(score, best_score):
            best_epoch, best_score = epoch + 1, score
            best_state = copy.deepcopy(model.state_dict())
    if best_state is not None:
        model.load_state_dict(best_state)
    return best_epoch, best_score, history
