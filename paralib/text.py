"""paralib's one word tokenisation (2017 §5.5-5.7, §5.6.1 Tables 9-10; 2018 §4).

Lowercased (``str.lower``) runs of word characters or of other non-space characters (``re``'s
``\\w+|[^\\w\\s]+``): "A dog's ball..." is ``a dog ' s ball ...``; the papers' vocabularies
and IDF are lowercased (2017 Table 10, footnote 6). A column's ASCII texts are tokenised in
Arrow's RE2, whose classes equal ``re``'s there; the others by ``re``, whose Unicode tables and
``str.lower`` (``İ`` is ``i̇``, final sigma) Arrow does not share.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

_TOKEN = re.compile(r"\w+|[^\w\s]+")
# the same rule in RE2 on ASCII: punctuation runs are spaced, then the text split on spaces
_PUNCT = r"([^\pL\pN_\s\p{Z}]+)"


def tokenize(text: str) -> list[str]:
    """Lowercased word and punctuation tokens of one sentence."""
    return _TOKEN.findall(text.lower())


def tokenize_all(texts: Iterable[str] | pd.Series) -> list[list[str]]:
    """:func:`tokenize` for every text (``None``/NaN count as empty)."""
    return token_lists(texts if isinstance(texts, pd.Series) else list(texts)).to_pylist()


def detokenized(texts: pd.Series | list[str]) -> list[str]:
    """Texts as space-joined tokens (the form the KenLM model is trained and queried on)."""
    return pc.binary_join(token_lists(texts), " ").to_pylist()


def arrow_strings(texts: pd.Series | list[str] | pa.Array) -> pa.Array:
    """``texts`` as one Arrow string array, missing texts as ""."""
    if not isinstance(texts, (pa.Array, pa.ChunkedArray)):
        texts = pa.array(pd.Series(texts, dtype=object) if isinstance(texts, list) else texts,
                         from_pandas=True)
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if not pa.types.is_string(texts.type):
        texts = texts.cast(pa.string())
    return pc.fill_null(texts, "")


def token_lists(texts: pd.Series | list[str] | pa.Array) -> pa.ListArray:
    """:func:`tokenize` of every text as an Arrow list array (missing texts have no tokens)."""
    strings = arrow_strings(texts)
    low = pc.utf8_lower(strings)
    spaced = pc.utf8_trim_whitespace(pc.replace_substring_regex(low, _PUNCT, r" \1 "))
    # trimmed first: pyarrow 26's utf8_split_whitespace sometimes kept the trailing space in
    # the last token of the last text ("fabric . " -> [..., ". "]), depending on earlier calls
    lists = pc.utf8_split_whitespace(spaced)
    fast = pc.and_(pc.string_is_ascii(strings), pc.not_equal(spaced, ""))  # "" splits to [""]
    slow = np.flatnonzero(~fast.to_numpy(zero_copy_only=False))
    if not len(slow):
        return lists
    tokens = pa.array([tokenize(t) for t in strings.take(slow).to_pylist()], type=lists.type)
    order = np.arange(len(lists))
    order[slow] = len(lists) + np.arange(len(slow))
    return pa.concat_arrays([lists, tokens]).take(order)
