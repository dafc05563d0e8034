"""Canonicalising paraphrases for the analysis report (ParaNMT 2018 §6, Table 12).

§6 reports that an encoder-decoder trained on the English-English pairs "canonicalizes
text": its paraphrases standardise the input (Table 12: "oh, that's a handsome women, that
is." → "that's a beautiful woman."). This paraphrases references of the analysed corpus with
a paraphrase model (``paralib mt train`` with English on both sides), measures every output
against its input (length in words, mean IDF of the words as in 2017 Table 10, with IDF from
the corpus's own references, word overlap) and picks the examples that canonicalise: output
different from the input yet sharing most words with it both ways (a small edit, not a new
sentence that happens to use common words), repeating no more words than the input (an
undertrained decoder's loops also lower the mean IDF), with more frequent words (lower mean
IDF) or fewer words. The summary counts all outputs, not only those.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from paralib.analysis.ngrams import average_idf, idf_table, repetitions
from paralib.text import tokenize_all

MIN_OVERLAP = 0.8
MIN_WORDS = 3


def words(texts: list[str]) -> list[list[str]]:
    """Lowercased word tokens (punctuation left out) of each text."""
    return [[t for t in toks if t[0].isalnum() or t[0] == "_"] for toks in tokenize_all(texts)]


def word_overlap(a: list[list[str]], b: list[list[str]]) -> np.ndarray:
    """Shared distinct words over the distinct words of the larger side (0 when empty):
    high only when neither side adds or drops many words."""
    sets = [(set(x), set(y)) for x, y in zip(a, b, strict=True)]
    return np.array([len(x & y) / max(len(x), len(y)) if x and y else 0.0 for x, y in sets],
                    dtype=float)


def measure(inputs: list[str], outputs: list[str], references: list[str]) -> pd.DataFrame:
    """One row per input: words, repeated words (of 3+ characters, 2017 Table 9), mean IDF
    (from ``references``) and overlap of both sides."""
    wi, wo = words(inputs), words(outputs)
    idf, unseen = idf_table(words(list(dict.fromkeys(references))))
    return pd.DataFrame({
        "input": inputs, "paraphrase": outputs,
        "words_in": [len(w) for w in wi], "words_out": [len(w) for w in wo],
        "repeats_in": repetitions(wi, 1)[0], "repeats_out": repetitions(wo, 1)[0],
        "idf_in": average_idf(wi, idf, unseen), "idf_out": average_idf(wo, idf, unseen),
        "overlap": word_overlap(wi, wo),
        "changed": [x != y for x, y in zip(wi, wo, strict=True)],
    })


def canonical_mask(m: pd.DataFrame) -> pd.Series:
    """Outputs that canonicalise: changed, overlapping their input by at least
    :data:`MIN_OVERLAP`, at least :data:`MIN_WORDS` words, no more repeated words than the
    input, and a lower mean IDF or fewer words than the input."""
    return (m["changed"] & (m["overlap"] >= MIN_OVERLAP) & (m["words_out"] >= MIN_WORDS)
            & (m["repeats_out"] <= m["repeats_in"])
            & ((m["idf_out"] < m["idf_in"]) | (m["words_out"] < m["words_in"])))


def canonicalising(m: pd.DataFrame, k: int) -> pd.DataFrame:
    """The ``k`` outputs of :func:`canonical_mask` ordered by the drop in mean IDF, then in
    words."""
    c = m[canonical_mask(m)].assign(idf_drop=m["idf_in"] - m["idf_out"],
                       word_drop=m["words_in"] - m["words_out"])
    c = c.sort_values(["idf_drop", "word_drop"], ascending=False, kind="stable")
    return c.head(k).drop(columns=["changed"]).reset_index(drop=True)


def summary(m: pd.DataFrame, model: str, n_canonical: int) -> dict:
    """Counts over every paraphrased input: how often the model copies, shortens or uses
    more frequent words."""
    return {
        "model": model, "inputs": len(m),
        "copy_rate": float((~m["changed"]).mean()),
        "mean_words_in": float(m["words_in"].mean()),
        "mean_words_out": float(m["words_out"].mean()),
        "mean_idf_in": float(m["idf_in"].mean()), "mean_idf_out": float(m["idf_out"].mean()),
        "lower_idf": float((m["idf_out"] < m["idf_in"]).mean()),
        "shorter": float((m["words_out"] < m["words_in"]).mean()),
        "canonicalising": n_canonical,
    }


def paraphrase_examples(references: list[str], model: str | Path, n_inputs: int = 300,
                        k: int = 5, seed: int = 0, beam_size: int = 4,
                        threads: int = 1) -> tuple[dict, pd.DataFrame]:
    """Paraphrase ``n_inputs`` distinct references (a seeded sample) with ``model``; return
    the summary and the ``k`` most canonicalising examples."""
    from paralib.translate.translator import Translator

    refs = list(dict.fromkeys(r for r in references if r and r.strip()))
    if not refs:
        raise ValueError("paraphrase examples need at least one non-empty reference")
    pick = np.random.default_rng(seed).permutation(len(refs))[:n_inputs]
    inputs = [refs[i] for i in sorted(pick)]
    tr = Translator(model, device="cpu", intra_threads=threads)
    outputs = [h[0].text for h in tr.translate(inputs, beam_size=beam_size)]
    m = measure(inputs, outputs, refs)
    return summary(m, str(model), int(canonical_mask(m).sum())), canonicalising(m, k)
