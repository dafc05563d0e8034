"""Fixtures of the decontamination tests: the index of the real evaluation sets (built once per
session, through the cache in a temporary folder) and a plain-Python reference of which sets
hold a normal form or a 10-token window, to pick planted sentences and check the index by."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import pytest

from paralib.decontaminate import EvalIndex, bulk_forms, eval_sentences

NGRAM = 10


@dataclass
class Reference:
    """Every evaluation sentence by set, which sets hold each normal form, and each set's
    token sequences as one string (``" tok tok ... \\n"`` a sentence) for substring search."""

    sentences: dict[str, list[str]]
    form_sets: dict[str, set[str]]
    token_text: dict[str, str]

    def sets_with_form(self, form: str) -> set[str]:
        """Sets holding a sentence whose normal form is ``form``."""
        return self.form_sets.get(form, set())

    def sets_with_window(self, toks: list[str], n: int = NGRAM) -> set[str]:
        """Sets holding a sentence that contains any n-token window of ``toks``."""
        found: set[str] = set()
        for i in range(len(toks) - n + 1):
            needle = " " + " ".join(toks[i:i + n]) + " "
            found |= {name for name, text in self.token_text.items() if needle in text}
        return found


@pytest.fixture(scope="session")
def eval_cache(tmp_path_factory):
    """The cache folder of the session's index."""
    return tmp_path_factory.mktemp("decontaminate-cache")


@pytest.fixture(scope="session")
def eval_index(data_dir, eval_cache) -> EvalIndex:
    """The index of every evaluation set of the real data (n = 10, at least 10 tokens)."""
    return EvalIndex.cached(data_dir, ngram=NGRAM, min_tokens=NGRAM, cache_dir=eval_cache)


@pytest.fixture(scope="session")
def reference(data_dir) -> Reference:
    """:class:`Reference` of the real evaluation sets (no hashing involved)."""
    sentences: dict[str, list[str]] = defaultdict(list)
    for name, sentence in eval_sentences(data_dir):
        sentences[name].append(sentence)
    form_sets: dict[str, set[str]] = defaultdict(set)
    token_text: dict[str, str] = {}
    for name, texts in sentences.items():
        normal, flat, lengths = bulk_forms(texts)
        for form in normal:
            form_sets[form].add(name)
        ends = np.cumsum(lengths).tolist()
        starts = [0, *ends[:-1]]
        token_text[name] = "".join(" " + " ".join(flat[a:b]) + " \n"
                                   for a, b in zip(starts, ends, strict=True) if b - a >= NGRAM)
    return Reference(dict(sentences), dict(form_sets), token_text)
