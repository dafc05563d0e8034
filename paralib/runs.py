"""One run: select → train → evaluate, with reuse by fingerprint.

:func:`run` is the one way a config becomes a trained and evaluated model: every tuning
trial (:mod:`paralib.tune.trial`, without the evaluation: the search evaluates its best epoch
once) and every experiment run (:mod:`paralib.experiments.runner`) call it, and it fills one
:class:`~paralib.contracts.RunRecord`; the quickstart calls :func:`train_model` and the
stages one after the other, printing each. The pairs are selected from the
scored candidates (2017 §5.5-5.7), the encoder trained with Ray Train or, for small
experiment runs, in this process (the ``local`` engine, the same epoch loop:
:func:`paralib.train.loop.epochs`), the best epoch on dev kept (2018 §5.2), and the model
evaluated on the suites of ``paralib evaluate``.

A run given its training fingerprint (``train_key``) and an earlier record of the same
fingerprint reuses that record's model instead of training again (an experiment resumes
where it stopped; a record kept on another machine stands for a model that is not here when
the model is not needed).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paralib.config import Config
from paralib.contracts import RowCounts, RunRecord, TrainingSummary
from paralib.io.context import StageContext

if TYPE_CHECKING:
    from paralib.evaluate.run import Evaluation

KEY_FILE = "training.key"


def train_seconds(wall: float, summary: Mapping[str, Any] | TrainingSummary) -> float:
    """Training seconds of a run: this call's wall time plus, for a run Ray Train resumed
    from a checkpoint, the recorded seconds of the epochs made before it (their setup time,
    not in an epoch's record, is not counted)."""
    summary = TrainingSummary.load(summary)
    before = summary.resumed_from_epoch or 0
    return wall + sum(h.seconds or 0.0 for h in summary.history[:before])


def train_model(cfg: Config, engine: str = "ray", trained: bool = True, progress: bool = False,
                fresh: bool = False, callbacks: list | None = None,
                train_key: str = "") -> TrainingSummary:
    """Train ``cfg.train`` with Ray Train (``engine: ray``) or in this process (``local``).

    Ray Train resumes a run of the same name from its latest checkpoint; with a
    ``train_key`` that is kept for an interrupted run of this very config (its key file in
    the model's folder), never for checkpoints of another one."""
    from paralib.train.identity import check_run
    from paralib.train.run import train

    ctx = StageContext.of(cfg, progress)
    if engine == "ray" and trained:
        if train_key:
            run_dir = Path(cfg.train.storage_path) / cfg.train.name
            key = Path(cfg.train.output).parent / KEY_FILE
            if run_dir.exists() and (not key.is_file() or key.read_text() != train_key):
                # another config's checkpoints: start over, deleting only a run folder that
                # paralib train made (a folder without its marker stops the run instead)
                check_run(cfg.train, str(run_dir), fresh=True)
            key.write_text(train_key)
        return train(cfg.train, ctx, callbacks=callbacks, fresh=fresh)
    return train(cfg.train, ctx, engine="local", trained=trained)


def make_model(cfg: Config, record: RunRecord, *, select: bool = True, engine: str = "ray",
               trained: bool = True, train_key: str = "", previous: RunRecord | None = None,
               need_model: bool = True, progress: bool = False, fresh: bool = False,
               callbacks: list | None = None) -> None:
    """Select and train ``cfg`` into ``record`` (its ``selection``, ``train`` and seconds),
    or reuse the model ``previous`` describes when its training fingerprint is
    ``train_key`` (and, when ``need_model``, its model folder is here)."""
    from paralib.select.run import run as select_pairs

    model = Path(cfg.train.output)
    if previous is not None and train_key and previous.train_key == train_key and \
            previous.train and (not need_model or (model / "config.json").is_file()):
        record.train, record.selection = previous.train, previous.selection
        record.seconds.update({k: v for k, v in previous.seconds.items()
                               if k in ("select", "train")})
        return
    record.reused = False
    model.parent.mkdir(parents=True, exist_ok=True)
    if select:
        t0 = time.perf_counter()
        ctx = StageContext.bare("select", cfg.select, cfg.s3.options())
        report = select_pairs(cfg.select, ctx)
        record.selection = RowCounts(rows_in=report.rows_in, rows_out=report.rows_out)
        record.seconds["select"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    summary = train_model(cfg, engine, trained, progress, fresh, callbacks, train_key)
    record.train = summary
    record.seconds["train"] = train_seconds(time.perf_counter() - t0, summary)


def run(cfg: Config | None, name: str = "model", *, record: RunRecord | None = None,
        evaluation: Evaluation | None = None, baseline: str | None = None,
        model: str | Path | None = None, **making: Any) -> RunRecord:
    """Select → train → evaluate one run; returns its record (``record`` when given: it is
    filled as the run goes, so that a failure leaves what was made in it).

    ``cfg`` makes the model (:func:`make_model` with ``making``: ``select``, ``engine``,
    ``trained``, ``train_key``, ``previous``, ``need_model``, ``progress``, ``fresh``,
    ``callbacks``) unless the run evaluates a ``baseline`` (by name) or a ``model`` folder
    made already. With an ``evaluation``, the record's ``results`` are the model's result of
    every suite and the seconds it took are ``seconds["evaluate"]``."""
    record = record if record is not None else RunRecord(name=name, status="ok", seconds={})
    if baseline:
        record.train = None
    elif model is None and cfg is not None:
        make_model(cfg, record, **making)
    if evaluation is not None:
        from paralib.evaluate import Baseline, evaluate

        t0 = time.perf_counter()
        folder = model if model is not None else cfg.train.output if cfg is not None else None
        entry = Baseline(baseline) if baseline else str(Path(str(folder)))
        report = evaluate(replace(evaluation, models={name: entry, **evaluation.models}),
                          StageContext(progress=False))
        record.results = report.results(name)
        record.seconds["evaluate"] = time.perf_counter() - t0
    return record
