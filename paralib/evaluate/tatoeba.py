"""Tatoeba similarity search (the LASER test sets, Artetxe & Schwenk 2019): for every language
a model covers besides English, the accuracy of finding each sentence's translation by cosine
nearest neighbour among the 1,000 sentences on the other side, in both directions."""

from __future__ import annotations

from typing import Any

import numpy as np

from paralib.evaluate.base import Task, overall_status, register
from paralib.evaluate.common import error, missing, not_applicable, skipped
from paralib.evaluate.encode import encode_texts
from paralib.evaluate.evalmodel import EvalModel, unit_rows
from paralib.evaluate.loaders import MissingDataError, read_tatoeba


def retrieval_accuracy(queries: np.ndarray, keys: np.ndarray) -> float:
    """Percentage of rows ``i`` whose cosine nearest neighbour among ``keys`` is row ``i``."""
    sims = unit_rows(queries) @ unit_rows(keys).T
    return 100 * float((sims.argmax(axis=1) == np.arange(len(queries))).mean())


@register
class Tatoeba(Task):
    """Retrieval accuracy xx→en and en→xx for each covered language xx."""

    name = "tatoeba"
    title = "Tatoeba retrieval"
    paper = "2019 §3 (cross-lingual evaluation); LASER Tatoeba test sets"
    notes = ("Accuracy (%) of retrieving the aligned sentence by cosine nearest neighbour among "
             "all sentences of the other side (up to 1,000), in both directions, for every "
             "language the model covers besides English.",)

    def load(self) -> dict[str, Any]:
        return {}  # read per language on demand: a model decides which languages

    def _read(self, lang: str, loaded: dict[str, Any]) -> Any:
        if lang not in loaded:
            try:
                loaded[lang] = read_tatoeba(self.settings.data, lang)
            except MissingDataError as exc:
                loaded[lang] = exc
        return loaded[lang]

    def run(self, model: EvalModel, loaded: dict[str, Any]) -> dict:
        if not model.is_encoder:
            return not_applicable(model, self.title)
        others = [lang for lang in model.languages or () if lang != "en"]
        if not model.covers("en") or not others:
            return {**skipped(model, ["en", "another language"]), "sets": {}}
        sets: dict[str, dict] = {}
        for lang in others:
            data = self._read(lang, loaded)
            name = f"{lang}-en"
            if isinstance(data, MissingDataError):
                sets[name] = missing(data)
                continue
            try:
                xs, es, files = data
                ex = encode_texts(model, xs, lang, self.settings)
                ee = encode_texts(model, es, "en", self.settings)
                sets[name] = {"status": "ok", "n": len(xs), "files": files,
                              "xx->en": retrieval_accuracy(ex, ee),
                              "en->xx": retrieval_accuracy(ee, ex)}
            except Exception as exc:
                sets[name] = error(exc)
        return {"status": overall_status(sets), "sets": sets}
