"""Mega-batch sizes: fixed, and annealed +1 every N mini-batches up to M (2019 §3.1)."""

from __future__ import annotations

import pandas as pd

from paralib.train.config import MegaBatchConfig
from paralib.train.schedule import megabatch_size, megabatches


def test_annealing_schedule_of_the_2019_paper():
    cfg = MegaBatchConfig(size=60, start=1, anneal_every=150)
    assert [megabatch_size(s, cfg) for s in (0, 149, 150, 299, 300)] == [1, 1, 2, 2, 3]
    assert megabatch_size(59 * 150, cfg) == 60 and megabatch_size(10**6, cfg) == 60
    assert megabatch_size(10**6, MegaBatchConfig(size=40)) == 40


def test_groups_follow_the_schedule():
    batches = [pd.DataFrame({"s1": [str(i)]}) for i in range(10)]
    sizes = [len(g) for g in megabatches(batches, MegaBatchConfig(size=3, start=1,
                                                                 anneal_every=2))]
    # steps 0-1: M=1, 2-3: M=2, then 3 (capped)
    assert sizes == [1, 1, 2, 3, 3]
    assert sum(sizes) == 10
    fixed = [len(g) for g in megabatches(batches, MegaBatchConfig(size=4))]
    assert fixed == [4, 4, 2]
