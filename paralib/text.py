"""Word tokenisation shared by the classifier and the analysis (2017 §5.6.1, Tables 9-10).

Tokens are lowercased runs of word characters or of other non-space characters: the paper's
IDF is computed on lowercased tokens (Table 10, footnote 6) and its classifier embeddings are
lowercased word vectors.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_TOKEN = re.compile(r"\w+|[^\w\s]+")


def tokenize(text: str) -> list[str]:
    """Lowercased word and punctuation tokens of one sentence."""
    return _TOKEN.findall(text.lower())


def tokenize_all(texts: Iterable[str]) -> list[list[str]]:
    """:func:`tokenize` for every text (``None`` counts as empty)."""
    return [_TOKEN.findall((t or "").lower()) for t in texts]
