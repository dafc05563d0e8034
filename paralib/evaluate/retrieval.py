"""Translation retrieval scores (Artetxe & Schwenk 2019; 2019 §3): the accuracy of finding each
sentence's translation by cosine nearest neighbour among every sentence of the other side, in
both directions, and the one number a cross-lingual development set is chosen on: the mean of
the two directions, averaged over the languages.

The Tatoeba and XNLI dev suites of ``paralib evaluate``, the trainer's ``train.dev: xnli-dev``
and ``benchmarks/crosslingual_dev.py`` all score with these functions, so a model's XNLI dev
number is the same wherever it is computed.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from paralib.evaluate.evalmodel import unit_rows


def retrieval_accuracy(queries: np.ndarray, keys: np.ndarray) -> float:
    """Percentage of rows ``i`` whose cosine nearest neighbour among ``keys`` is row ``i``."""
    sims = unit_rows(queries) @ unit_rows(keys).T
    return 100 * float((sims.argmax(axis=1) == np.arange(len(queries))).mean())


def both_directions(xx: np.ndarray, en: np.ndarray) -> dict[str, float]:
    """Retrieval accuracy xx→en and en→xx of row-aligned translations (row ``i`` of ``xx``
    translates row ``i`` of ``en``), from one cosine matrix: its rows search xx→en, its
    columns en→xx: one matrix product instead of the two of :func:`retrieval_accuracy` each
    way (the same accuracies on all 5 XNLI dev and 10 Tatoeba sets compared)."""
    sims = unit_rows(xx) @ unit_rows(en).T
    rows = np.arange(len(xx))
    return {"xx->en": 100 * float((sims.argmax(axis=1) == rows).mean()),
            "en->xx": 100 * float((sims.argmax(axis=0) == rows).mean())}


def language_score(directions: Mapping[str, float]) -> float:
    """One language's score: the mean of its xx→en and en→xx accuracies."""
    return (directions["xx->en"] + directions["en->xx"]) / 2


def mean_score(by_lang: Mapping[str, float]) -> float:
    """The development number: the mean of the languages' scores (NaN if any is NaN, so a
    language that could not be scored is never silently left out of the mean)."""
    if not by_lang:
        raise ValueError("no language to average: a retrieval score needs one at least")
    return float(np.mean(list(by_lang.values())))


def report_scores(sets: Mapping[str, Mapping], langs: tuple[str, ...] | list[str]
                  ) -> dict[str, float]:
    """Each language's score from a retrieval suite's ``sets`` (``{"ar-en": {"status": "ok",
    "xx->en": ..., "en->xx": ...}}``, as ``paralib evaluate`` reports them): NaN for a language
    whose set is missing or failed."""
    entries = {lang: sets.get(f"{lang}-en", {}) for lang in langs}
    return {lang: language_score(e) if e.get("status") == "ok" else float("nan")
            for lang, e in entries.items()}
