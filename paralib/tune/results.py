"""From Ray Tune's ``ResultGrid`` to records: one :class:`~paralib.contracts.TrialRecord` per
trial with its parameters, status (completed, stopped by ASHA, error), per-epoch history and
selection size; and the best (trial, epoch) on the dev metric (the stopping epoch is tuned on
dev, 2017 §5.3)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from paralib.config import Config
from paralib.contracts import EpochRecord, TrialRecord, TuneSummary
from paralib.io import fs
from paralib.tune.params import apply_parameters
from paralib.tune.space import Space
from paralib.tune.trial import DONE_FILE, SELECT_DIR

HISTORY_KEYS = ("epoch", "dev_score", "dev_metric", "dev_pearson", "loss", "pairs", "seconds",
                "checkpoint_path")


def _clean(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _history(result: Any) -> list[dict[str, Any]]:
    df = result.metrics_dataframe
    if df is None or not len(df):
        return []
    keys = [k for k in HISTORY_KEYS if k in df.columns]
    rows = df[keys].to_dict("records")
    return [{k: _clean(v) for k, v in row.items()} for row in rows]


def _read_json(path: str, cfg: Config) -> dict | None:
    try:
        return json.loads(fs.read_bytes(path, cfg.s3.options()))
    except (FileNotFoundError, OSError, ValueError):
        return None


def _selected(root: str, cfg: Config) -> int | None:
    report = _read_json(fs.join(root, SELECT_DIR, "selection.json"), cfg)
    return int(report["rows_out"]) if report and "rows_out" in report else None


def _trained(history: list[dict[str, Any]]) -> int | None:
    """The pairs a trial trained on per epoch (its first epoch's count)."""
    pairs = history[0].get("pairs") if history else None
    return None if pairs is None else int(pairs)


def _error_text(error: BaseException) -> str:
    text = str(error).strip()
    # Ray wraps the trial's exception: keep its last line (the original message)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else type(error).__name__


def collect_trials(grid: Any, space: Space, base: Config) -> list[TrialRecord]:
    """One record per trial of a ``ResultGrid``, in trial-id order."""
    records = []
    for result in grid:
        params = space.decode(result.config)
        trial_id = Path(str(result.path)).name.removeprefix("trial_")
        try:
            planned = apply_parameters(base, params).train.epochs
        except ValueError:
            planned = base.train.epochs
        history = _history(result)
        root = _root(result)
        done = _read_json(fs.join(root, DONE_FILE), base)
        # stopped: Tune ended it (ASHA) before train() returned
        status = "error" if result.error is not None else "stopped" if done is None else \
            "completed"
        records.append(TrialRecord(
            trial_id=trial_id, params=params, status=status,
            error=_error_text(result.error) if result.error is not None else None,
            epochs_planned=planned, epochs_run=len(history), history=history,
            selected_pairs=(selected := _selected(root, base)),
            # training pairs: the selection's, or (a trial without one) the first epoch's
            pairs=selected if selected is not None else _trained(history),
            path=str(result.path), model=done["model"] if done else None))
    return sorted(records, key=lambda r: r.trial_id)


def _root(result: Any) -> str:
    """The trial folder as a path paralib's ``fs`` reads (``s3://`` added for S3)."""
    path = str(result.path)
    fs_obj = getattr(result, "filesystem", None)
    if fs_obj is not None and getattr(fs_obj, "type_name", "local") == "s3":
        return "s3://" + path
    return path


def best_of(history: list[EpochRecord], metric: str, mode: str) -> EpochRecord | None:
    """The best epoch of one trial's history (``None`` when no epoch has the metric)."""
    scored = [h for h in history if getattr(h, metric, None) is not None]
    if not scored:
        return None
    pick = max if mode == "max" else min
    return pick(scored, key=lambda h: h[metric])


def best_epoch(trials: list[TrialRecord], metric: str, mode: str) -> dict[str, Any] | None:
    """The best (trial, epoch) over every trial and epoch, with its checkpoint."""
    candidates = [(b, t) for t in trials if (b := best_of(t.history, metric, mode)) is not None]
    if not candidates:
        return None
    pick = max if mode == "max" else min
    b, t = pick(candidates, key=lambda c: c[0][metric])
    return {"trial_id": t.trial_id, "params": t.params, "epoch": b.epoch, metric: b[metric],
            "checkpoint_path": getattr(b, "checkpoint_path", None), "status": t.status}


def read_best(experiment: str, s3: Any = None) -> dict[str, Any] | None:
    """The best (trial, epoch) of a finished search, read back from its report
    (``<experiment>/report/report.json``, local or ``s3://``); ``None`` when no trial
    reported the metric."""
    path = fs.join(experiment, "report", "report.json")
    try:
        data = fs.read_bytes(path, s3)
    except (FileNotFoundError, OSError) as exc:
        raise FileNotFoundError(f"no tuning report at {path}: {exc}") from exc
    return TuneSummary.load(json.loads(data)).best
