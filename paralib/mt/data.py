"""Training and evaluation text for ``paralib mt train``.

Translation models (2017 §3, 2018 §3) train on bitext with English on one side; the
paraphrase generator of ParaNMT 2018 §6 trains "with the same machinery" on English-English
pairs, e.g. a selection written by ``paralib select`` (``pairs.parquet``, columns ``ref``
and ``trans``). For an X→X model every input must be in language X, and the model reads the
input's ``src_field`` column and writes its ``en_field`` column.

Validation and test sides are line files (``.gz`` ok) or a column of Parquet rows:
``FILE_OR_FOLDER#column`` reads ``column`` from a Parquet file, a glob of them or a stage
output folder (``data/*/part-*.parquet``), in ``id`` order when the rows have ids, so that
two sides read from the same rows stay aligned.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from paralib.decontaminate.normalise import bulk_forms, hash_strings
from paralib.io.bitext import plan_shards, read_shard
from paralib.io.config import InputConfig
from paralib.io.lines import iter_lines

if TYPE_CHECKING:
    from paralib.decontaminate import EvalIndex


def iter_pairs(inputs: list[InputConfig], src_lang: str, tgt_lang: str, skipped: Counter,
               shard_rows: int = 20_000, index: EvalIndex | None = None,
               heldout: np.ndarray | None = None) -> Iterator[list[tuple[str, str]]]:
    """Stream the training bitext, one shard at a time, as chunks of unique
    ``(source, target)`` text pairs in the model's direction; ``skipped`` counts what was left
    out and why (every read line is either yielded or counted).

    X→English or English→X: every row whose ``src_lang`` is X is used, turned round for
    English→X. X→X (a paraphrase model): every input must have ``src_lang`` X; the source is
    the input's ``src_field``, the target its ``en_field``; identical pairs teach nothing but
    copying and are left out. ``index`` removes pairs with a side in an evaluation set
    (reason ``contaminated: <set> ...``); ``heldout`` (:func:`form_hashes` of the model's own
    validation and test sides) removes pairs with a side in them. Only an 8-byte hash of each
    kept pair stays in memory (for the duplicate check), never the texts.
    """
    if src_lang == tgt_lang:
        wrong = [f"{i.corpus} ({i.src_lang})" for i in inputs if i.src_lang != src_lang]
        if wrong:
            raise ValueError(f"mt: a {src_lang}→{tgt_lang} model needs inputs with src_lang "
                             f"{src_lang}; got {', '.join(wrong)}")
    elif (src_lang == "en") == (tgt_lang == "en"):
        raise ValueError(f"mt: one side must be English (src_lang={src_lang}, "
                         f"tgt_lang={tgt_lang})")
    foreign = tgt_lang if src_lang == "en" else src_lang
    reverse = src_lang == "en" and tgt_lang != "en"
    seen: set[int] = set()
    for spec in plan_shards(inputs, shard_rows=shard_rows):
        rows, rejects = read_shard(spec, max_chars=2000)
        skipped.update(r["reason"] for r in rejects)
        pairs = []
        for r in rows:
            if r["src_lang"] != foreign:
                skipped["wrong language"] += 1
            elif src_lang == tgt_lang and r["src"] == r["ref"]:
                skipped["identical pair"] += 1
            else:
                pairs.append((r["ref"], r["src"]) if reverse else (r["src"], r["ref"]))
        if index is not None and pairs:
            found = index.match_pairs([p[0] for p in pairs], [p[1] for p in pairs])
            skipped.update(f for f in found if f)
            pairs = [p for p, f in zip(pairs, found, strict=True) if not f]
        if heldout is not None and len(heldout) and pairs:
            a = form_hashes([p[0] for p in pairs])
            b = form_hashes([p[1] for p in pairs])
            out = np.isin(a, heldout) | np.isin(b, heldout)
            skipped["in the validation or test set"] += int(out.sum())
            pairs = [p for p, o in zip(pairs, out.tolist(), strict=True) if not o]
        keys = hash_strings([f"{s}\t{t}" for s, t in pairs]).tolist()
        unique = []
        for p, k in zip(pairs, keys, strict=True):
            if k in seen:
                skipped["duplicate pair"] += 1
            else:
                seen.add(k)
                unique.append(p)
        if unique:
            yield unique


def form_hashes(texts: list[str]) -> np.ndarray:
    """Hashes of the normal forms (NFKC, case-folded, no punctuation or spaces) of ``texts``:
    what :func:`iter_pairs` compares with a model's held-out sides."""
    return hash_strings(bulk_forms(texts)[0])


def load_pairs(inputs: list[InputConfig], src_lang: str, tgt_lang: str) -> tuple[list, dict]:
    """Every training pair of :func:`iter_pairs` in one list (small corpora and tests), and
    the counts of what was left out and why."""
    skipped: Counter = Counter()
    pairs = [p for chunk in iter_pairs(inputs, src_lang, tgt_lang, skipped) for p in chunk]
    skipped.setdefault("duplicate pair", 0)
    return pairs, dict(skipped)


def read_text(path: str) -> list[str]:
    """Lines of a (possibly gzip) UTF-8 text file."""
    return [line.decode("utf-8").strip() for line in iter_lines(path)]


def read_side(spec: str) -> list[str]:
    """One side of a validation or test set: ``PATH`` (lines) or ``PARQUET#column``."""
    if "#" not in spec:
        return read_text(spec)
    from paralib.select.files import read_pairs

    path, column = spec.rsplit("#", 1)
    df = read_pairs(path)
    if column not in df.columns:
        raise ValueError(f"{spec}: no column '{column}' (columns: {', '.join(df.columns)})")
    if "id" in df.columns:
        df = df.sort_values("id", kind="stable")
    return [str(v).strip() for v in df[column].tolist()]
