"""Tatoeba similarity search (the LASER test sets, Artetxe & Schwenk 2019): for every language
a model covers besides English, the accuracy of finding each sentence's translation by cosine
nearest neighbour among the 1,000 sentences on the other side, in both directions. The same
search on the XNLI dev translations (suite ``xnli``) is the cross-lingual development set:
models are compared and chosen on it, never on a test set (2019 §3)."""

from __future__ import annotations

from typing import Any

from paralib.evaluate.base import Task, load_sets, register
from paralib.evaluate.common import not_applicable, skipped
from paralib.evaluate.encode import encode_texts
from paralib.evaluate.evalmodel import EvalModel
from paralib.evaluate.loaders import XNLI_LANGS, Aligned, read_tatoeba, read_xnli_dev
from paralib.evaluate.retrieval import both_directions, retrieval_accuracy

__all__ = ["Tatoeba", "XnliDev", "retrieval_accuracy"]


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

    def read(self, lang: str) -> tuple[list[str], list[str], list[str]]:
        """(other language, English, files) of one language's aligned sentences."""
        return read_tatoeba(self.settings.data, lang)

    def targets(self, model: EvalModel) -> list[str]:
        """The languages besides English to search in."""
        return [lang for lang in model.languages or () if lang != "en"]

    def run(self, model: EvalModel, loaded: dict[str, Any]) -> dict:
        if not model.is_encoder:
            return not_applicable(model, self.title)
        others = self.targets(model)
        if not model.covers("en") or not others:
            return {**skipped(model, ["en", "another language"]), "sets": {}}
        loaded.update(load_sets([lang for lang in others if lang not in loaded], self.read))
        return super().run(model, {f"{lang}-en": loaded[lang] for lang in others})

    def run_set(self, model: EvalModel, set_name: str, data: Aligned) -> dict:
        xs, es, files = data
        ex = encode_texts(model, xs, set_name.removesuffix("-en"), self.settings)
        ee = encode_texts(model, es, "en", self.settings)
        return {"n": len(xs), "files": files, **both_directions(ex, ee)}


@register
class XnliDev(Tatoeba):
    """Retrieval accuracy xx→en and en→xx on the XNLI dev translations (ar, de, es, fr, tr):
    the cross-lingual development set. ``all`` leaves it out (it is for choosing models)."""

    name = "xnli"
    title = "XNLI dev retrieval"
    paper = "2019 §3 (cross-lingual evaluation); XNLI dev (Conneau et al. 2018) as dev set"
    notes = ("Accuracy (%) of retrieving the aligned translation by cosine nearest neighbour "
             "among the 3,320 distinct XNLI dev sentences (premises and hypotheses) of the other "
             "side, in both directions, for each XNLI language the model covers. A development "
             "set: compare and choose models on it, report test scores elsewhere.",)

    def read(self, lang: str) -> tuple[list[str], list[str], list[str]]:
        return read_xnli_dev(self.settings.data, lang)

    def targets(self, model: EvalModel) -> list[str]:
        return [lang for lang in XNLI_LANGS if model.covers(lang)]
