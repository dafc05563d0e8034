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

from paralib.config import InputConfig
from paralib.io.bitext import read_all
from paralib.io.lines import iter_lines


def load_pairs(inputs: list[InputConfig], src_lang: str, tgt_lang: str) -> tuple[list, dict]:
    """Read the training bitext as unique ``(source, target)`` text pairs in the model's
    direction, and the counts of what was left out and why.

    X→English or English→X: every row whose ``src_lang`` is X is used, turned round for
    English→X. X→X (a paraphrase model): every input must have ``src_lang`` X; the source is
    the input's ``src_field``, the target its ``en_field``; identical pairs teach nothing but
    copying and are left out.
    """
    if src_lang == tgt_lang:
        wrong = [f"{i.corpus} ({i.src_lang})" for i in inputs if i.src_lang != src_lang]
        if wrong:
            raise ValueError(f"mt: a {src_lang}→{tgt_lang} model needs inputs with src_lang "
                             f"{src_lang}; got {', '.join(wrong)}")
    elif (src_lang == "en") == (tgt_lang == "en"):
        raise ValueError(f"mt: one side must be English (src_lang={src_lang}, "
                         f"tgt_lang={tgt_lang})")
    rows, rejects = read_all(inputs, max_chars=2000)
    skipped: dict[str, int] = {}
    for r in rejects:
        skipped[r["reason"]] = skipped.get(r["reason"], 0) + 1
    foreign = tgt_lang if src_lang == "en" else src_lang
    pairs = []
    for r in rows:
        if r["src_lang"] != foreign:
            skipped["wrong language"] = skipped.get("wrong language", 0) + 1
            continue
        if src_lang == tgt_lang and r["src"] == r["ref"]:
            skipped["identical pair"] = skipped.get("identical pair", 0) + 1
            continue
        reverse = src_lang == "en" and tgt_lang != "en"
        pairs.append((r["ref"], r["src"]) if reverse else (r["src"], r["ref"]))
    unique = list(dict.fromkeys(pairs))
    skipped["duplicate pair"] = len(pairs) - len(unique)
    return unique, skipped


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
