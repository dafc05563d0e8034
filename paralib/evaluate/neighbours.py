"""Nearest neighbours of query sentences in a corpus with their cosines (Opusparcus §4.2.1,
Tables 4-5: "the ten most similar sentences to 'okay, you don't get it, man.'" and to
"Kann gut sein.").

The Opusparcus development sets are not available; the corpora are the Tatoeba sentences
(short conversational sentences, like subtitles): for English the English side of the de, fr
and es test sets, for German the German side of the de set (duplicates removed; the query
itself is left out of its neighbours). Queries are ``Settings.neighbour_queries``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paralib.evaluate.base import Task, load_sets, register
from paralib.evaluate.encode import encode_texts
from paralib.evaluate.evalmodel import EvalModel, unit_rows
from paralib.evaluate.loaders import Sentences, read_tatoeba

# language -> Tatoeba sets whose side in that language forms the corpus
CORPORA = {"en": ("de", "fr", "es"), "de": ("de",)}


def nearest(query: np.ndarray, corpus: np.ndarray, k: int,
            exclude: np.ndarray | None = None) -> list[tuple[int, float]]:
    """Indices and cosines of the ``k`` corpus rows closest to ``query``, best first."""
    sims = unit_rows(corpus) @ unit_rows(query[None, :])[0]
    if exclude is not None:
        sims[exclude] = -np.inf
    top = np.argsort(-sims, kind="stable")[:k]
    return [(int(i), float(sims[i])) for i in top if np.isfinite(sims[i])]


@register
class Neighbours(Task):
    """Closest corpus sentences to each query, per language the model covers."""

    name = "neighbours"
    title = "Nearest neighbours"
    paper = "Opusparcus 2018 §4.2.1, Tables 4-5"

    @property
    def notes(self) -> tuple[str, ...]:  # type: ignore[override]
        return (f"The {self.settings.neighbours_k} corpus sentences with the highest cosine "
                "similarity to each query. Corpora: Tatoeba English (de, fr, es test sets) "
                "and German (de test set), duplicates and the query itself removed.",)

    def load(self) -> dict[str, Any]:
        def corpus(lang: str) -> Sentences:
            read = [read_tatoeba(self.settings.data, other) for other in CORPORA[lang]]
            sents = dict.fromkeys(s.strip() for xs, es, _ in read
                                  for s in (es if lang == "en" else xs))
            return Sentences(list(sents), [f for *_, files in read for f in files])

        return load_sets([lang for lang in CORPORA if lang in self.settings.neighbour_queries],
                         corpus)

    def languages(self, set_name: str, data: Any) -> tuple[str, ...]:
        return (set_name,)

    def run_set(self, model: EvalModel, set_name: str, data: Sentences) -> dict:
        corpus, files = data
        queries = self.settings.neighbour_queries[set_name]
        emb = encode_texts(model, corpus, set_name, self.settings)
        qemb = encode_texts(model, queries, set_name, self.settings)
        index = {s: i for i, s in enumerate(corpus)}
        out = []
        for q, qv in zip(queries, qemb, strict=True):
            same = np.asarray([index[q.strip()]]) if q.strip() in index else None
            hits = nearest(qv, emb, self.settings.neighbours_k, same)
            out.append({"query": q, "neighbours": [[corpus[i], c] for i, c in hits]})
        return {"corpus_size": len(corpus), "files": files, "queries": out}
