"""STS 2017 monolingual and cross-lingual tracks (2019 §3.3, Table 2) and the extended
de/fr/it/nl-en sets.

A track is evaluated when the model covers both of its languages; otherwise its entry says
which languages the model covers. Tracks 4a and 4b are both Spanish-English (4a from SNLI like
the others, 4b from WMT news); Table 2's es-en column is track 4a.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from paralib.evaluate.base import load_sets, register
from paralib.evaluate.loaders import STS17_EXTENDED, STS17_TRACKS, read_sts17
from paralib.evaluate.sts import PairCorrelationTask


@register
class STS17(PairCorrelationTask):
    """All seven STS 2017 tracks and the four extended sets."""

    name = "sts17"
    title = "STS 2017"
    paper = "2019 §3.3, Table 2"
    notes = (
        "Pearson's r and Spearman's ρ × 100; a track is evaluated only when the model covers "
        "both of its languages.",
        "es-en is track 4a (SNLI), es-en (b) track 4b (WMT news); tr-en has 500 input lines of "
        "which the first 250 are scored (the rest are dropped).",
        "de-en, fr-en, it-en and nl-en are the extended sets: the en-en pairs with one side "
        "translated.",
    )

    def load(self) -> dict[str, Any]:
        return load_sets([*STS17_TRACKS, *STS17_EXTENDED], partial(read_sts17, self.settings.data))
