"""One epoch's record (loss, dev score, spread of the dev cosines, speed) and the check for a
collapsed encoder, shared by the Ray Train worker loop and the in-process trainer.

A *collapsed* encoder gives every sentence nearly the same vector: all cosines are close to 1,
and the margin loss (2017 §4.2, 2018 §4) sits at its collapsed value, δ per term (2δ for the
symmetric form), since ``cos(s1, s2)`` and ``cos(s1, t1)`` are then equal. That value is the
loss's minimum when the mined negatives are, on average, more similar than the partners: the
hardest negatives (``negatives: max``) among loose paraphrases such as captions of one image,
or among raw bitext from random embeddings (``benchmarks/collapse.py``). The recurrent
encoders start next to a constant encoder (word embeddings in ±0.1 move the LSTM's gates less
than its biases do, so every sentence drives it alike: ``benchmarks/recurrent_start.py``) and
reach it within tens of steps. The spread
(standard deviation) of the dev-set cosines measures it directly: 0.1-0.3 for an encoder
that separates sentences, below :data:`COLLAPSED_SD` for a collapsed one.
"""

from __future__ import annotations

import math

import numpy as np

from paralib.train.config import TrainConfig
from paralib.train.steps import StepState

COLLAPSED_SD = 0.01


def epoch_record(epoch: int, losses: list[float], pairs: int, seconds: float,
                 state: StepState, scores: dict[str, float], world: int = 1) -> dict:
    """The history entry of a finished epoch (``pairs`` trained by each of ``world``
    workers)."""
    total = pairs * world
    return {"epoch": epoch, "loss": float(np.mean(losses)) if losses else math.nan,
            **scores, "collapsed": collapsed(scores), "pairs": total, "seconds": seconds,
            "pairs_per_s": total / max(seconds, 1e-9), "step": state.step,
            "skipped_pairs": state.skipped_pairs}


def improves(score: float | None, best: float | None) -> bool:
    """Whether a dev score beats the best so far (a NaN score, the Pearson of a fully collapsed
    encoder's constant cosines, never does; anything beats no best yet)."""
    if score is None or math.isnan(score):
        return False
    return best is None or math.isnan(best) or score > best


def collapsed(scores: dict[str, float]) -> bool:
    """Whether the dev cosines have (nearly) no spread: the encoder has collapsed."""
    sd = scores.get("dev_cos_sd", math.nan)
    return not math.isnan(sd) and sd < COLLAPSED_SD


def collapse_warning(record: dict, cfg: TrainConfig) -> str | None:
    """A message for an epoch whose encoder has collapsed, naming what drives it and what to
    try; ``None`` for a healthy epoch."""
    if not record.get("collapsed"):
        return None
    floor = cfg.margin * (2 if cfg.symmetric else 1)
    return (f"epoch {record['epoch']}: the encoder has collapsed: the {cfg.dev} cosines are "
            f"{record['dev_cos_mean']:.4f} ± {record['dev_cos_sd']:.4f}, so every sentence "
            f"gets nearly the same vector (training loss {record['loss']:.4f}; the collapsed "
            f"value is {floor:g}). The loss reaches that floor when the mined negatives are "
            f"more similar than the pairs themselves (negatives: {cfg.negatives}, mega-batch "
            f"{cfg.megabatch.size}); try negatives: mix or rand, a smaller mega-batch, or "
            f"pretrained word vectors (train.model.parts[].pretrained)")
