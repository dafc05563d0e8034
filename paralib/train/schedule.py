"""Mega-batch size over training: fixed M (2018 §4) or annealed upward (2019 §2-3.1)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pandas as pd

from paralib.train.config import MegaBatchConfig


def megabatch_size(step: int, cfg: MegaBatchConfig) -> int:
    """M after ``step`` mini-batches: ``min(size, start + step // anneal_every)``, or ``size``
    when not annealed."""
    if cfg.anneal_every is None:
        return cfg.size
    return min(cfg.size, cfg.start + step // cfg.anneal_every)


def megabatches(batches: Iterable[pd.DataFrame], cfg: MegaBatchConfig, step: int = 0
                ) -> Iterator[list[pd.DataFrame]]:
    """Group mini-batches into mega-batches of the scheduled size (the last may be smaller).

    ``step`` is the number of mini-batches trained before the first one here; the size of
    each mega-batch is fixed when it starts."""
    group: list[pd.DataFrame] = []
    want = megabatch_size(step, cfg)
    for batch in batches:
        group.append(batch)
        if len(group) == want:
            yield group
            step += len(group)
            group = []
            want = megabatch_size(step, cfg)
    if group:
        yield group
