"""Bitext readers: plan shards of any input, then read one shard into rows or rejects.

Every input line gets a stable id ``corpus:shard:line`` (``corpus.lang.set:shard:line`` for
inputs that name a set; line numbers count from 1 in the source file) and ends up either as a
row or as a reject with a reason: undecodable bytes, an empty side, a line over ``max_chars``,
a malformed TSV/JSON line, an untranslated or wrong-script side (:mod:`paralib.io.quality`).
Line-aligned file pairs of different lengths are an error before any work starts, giving both
counts. Rows carry ``set`` and ``group``: pairs whose English sides have the same normal form
share a group, as do the versions of one Bible verse and, in multi-parallel inputs with a
``line_group``, line i of every language.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from paralib.corpora.langs import strip_arabic_marks
from paralib.decontaminate.normalise import hash_strings, normal_form
from paralib.io.config import BitextChecks, InputConfig
from paralib.io.formats import (
    UTF16_BOMS,
    BitextError,
    Reject,
    ShardSpec,
    raw_pairs,
    refuse_utf16,
    shard_texts,
    verse_pairs,
)
from paralib.io.fs import S3Options, content_print, expand_glob, resolve
from paralib.io.lines import count_lines, iter_lines
from paralib.io.quality import pair_problem

__all__ = ["UTF16_BOMS", "BitextError", "ShardSpec", "group_ids", "plan_shards", "read_all",
           "read_shard", "read_shards", "shard_inputs", "shard_texts", "verse_pairs"]

def _count(path: str, s3: S3Options | None, fmt: str, every: int) -> tuple[int, list[int]]:
    if fmt == "parquet":
        fs, inner = resolve(path, s3)
        with fs.open_input_file(inner) as f:
            return pq.ParquetFile(f).metadata.num_rows, []
    refuse_utf16(path, next(iter(iter_lines(path, s3)), b""))
    return count_lines(path, s3, every=every)


def plan_shards(inputs: list[InputConfig], shard_rows: int,
                s3: S3Options | None = None) -> list[ShardSpec]:
    """Expand globs, count rows and split every input into shards of ``shard_rows`` rows.

    Raises :class:`BitextError` for a missing input (naming the config key and the path) and
    for line-aligned files with different line counts (giving both counts).
    """
    shards: list[ShardSpec] = []
    for i, inp in enumerate(inputs):
        shard_no = 0
        try:
            if inp.format in ("text", "xnli", "bible"):
                srcs, ens = expand_glob(inp.src, s3), expand_glob(inp.en, s3)
                if len(srcs) != len(ens):
                    raise BitextError(
                        f"bitext.inputs[{i}] ({inp.corpus}): {len(srcs)} source files match "
                        f"'{inp.src}' but {len(ens)} English files match '{inp.en}'")
                groups = list(zip(srcs, ens, strict=True))
            else:
                groups = [(p,) for p in expand_glob(inp.path, s3)]
        except FileNotFoundError as exc:
            raise BitextError(f"bitext.inputs[{i}] ({inp.corpus}): {exc}") from None
        for files in groups:
            if inp.format == "bible":
                n, offsets = len(verse_pairs(files, s3)[2]), []
            else:
                n, offsets = _count(files[0], s3, inp.format, shard_rows)
            if len(files) == 2 and inp.format != "bible":
                n2, offsets2 = _count(files[1], s3, inp.format, shard_rows)
                if n != n2:
                    raise BitextError(
                        f"bitext.inputs[{i}] ({inp.corpus}): files have different line counts: "
                        f"{files[0]} has {n} lines, {files[1]} has {n2}")
                both = offsets and offsets2  # a gzip side has none: both sides then skip
                offsets = list(zip(offsets, offsets2, strict=True)) if both else []
            else:
                offsets = [(o,) for o in offsets]
            content = "+".join(content_print(f, s3) for f in files)
            if inp.fraction is not None:
                n = math.ceil(n * inp.fraction)
            if inp.limit is not None:
                n = min(n, inp.limit)
            for k, start in enumerate(range(0, n, shard_rows)):
                shards.append(ShardSpec(
                    corpus=inp.corpus, src_lang=inp.src_lang, format=inp.format,
                    files=tuple(files), shard=shard_no, start=start,
                    stop=min(start + shard_rows, n), offsets=offsets[k] if offsets else (),
                    src_field=inp.src_field, en_field=inp.en_field,
                    html_unescape=inp.html_unescape, set=inp.set, content=content,
                    line_group=inp.line_group, strip_arabic_marks=inp.strip_arabic_marks))
                shard_no += 1
    return shards


def _check(src: str, ref: str, max_chars: int) -> tuple[str, str] | None:
    """``(reason, detail)`` of a pair that is empty or too long, else ``None``."""
    if not src.strip():
        return "empty source sentence", ""
    if not ref.strip():
        return "empty English sentence", ""
    if len(src) > max_chars:
        return f"source longer than {max_chars} characters", f"{len(src)} characters"
    if len(ref) > max_chars:
        return f"English longer than {max_chars} characters", f"{len(ref)} characters"
    return None


def shard_inputs(shards: list[ShardSpec]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """``{shard key: (content fingerprint, files)}`` of planned shards, for a stage's
    :func:`paralib.io.stage.pending` and :func:`~paralib.io.stage.collect`."""
    return {s.key: (s.content, s.files) for s in shards}


def group_ids(keys: list[str]) -> np.ndarray:
    """Group ids (int64) of group keys: equal keys, equal ids, in every process."""
    return hash_strings(keys).view(np.int64) if keys else np.zeros(0, dtype=np.int64)


def read_shard(spec: ShardSpec, max_chars: int, s3: S3Options | None = None,
               checks: BitextChecks | None = None) -> tuple[list[dict], list[dict]]:
    """Read one shard: returns ``(rows, rejects)``; every input line lands in exactly one.

    XNLI lines hold two pairs (premise, hypothesis); a premise repeated on the lines after
    its first is not emitted again, so each distinct sentence pair appears once. Rows carry
    ``set`` and ``group`` (:func:`group_ids` of the English side's normal form, or of the
    verse key for Bible versions).
    """
    checks = checks or BitextChecks()
    rows: list[dict] = []
    rejects: list[dict] = []
    group_keys: list[str] = []
    seen_premise: str | None = None

    def base(lineno: int, sub: str = "") -> dict:
        return {"id": f"{spec.name}:{spec.shard:05d}:{lineno}{sub}", "corpus": spec.corpus,
                "set": spec.set or "", "shard": spec.shard, "line": lineno,
                "src_lang": spec.src_lang}

    def clean(text: str) -> str:
        text = text.strip()
        return html.unescape(text) if spec.html_unescape else text

    for lineno, payload in raw_pairs(spec, s3):
        if isinstance(payload, Reject):
            rejects.append({**base(lineno), "reason": payload.reason,
                            "detail": payload.detail, "raw": payload.raw})
            continue
        if spec.format == "xnli":
            (pa, ha), (pb, hb) = payload
            pairs = [] if pa == seen_premise else [("p", pa, pb)]
            seen_premise = pa
            pairs.append(("h", ha, hb))
        else:
            pairs = [("", payload[0], payload[1])]
        for sub, s, e in pairs:
            s, e = clean(s), clean(e)
            if spec.strip_arabic_marks:
                s = strip_arabic_marks(s)
            e_form = normal_form(e)
            reason, detail = _check(s, e, max_chars) or ("", "")
            if not reason and spec.format != "lines":  # a lines file is English on both sides
                reason = pair_problem(
                    s, e, spec.src_lang, untranslated=checks.untranslated,
                    min_script_share=checks.min_script_share, min_letters=checks.min_letters,
                    en_form=e_form)
            tag = f":{sub}" if sub else ""
            if reason:
                rejects.append({**base(lineno, tag), "reason": reason, "detail": detail,
                                "raw": f"{s[:200]}\t{e[:200]}"})
            else:
                rows.append({**base(lineno, tag), "src": s, "ref": e})
                group_keys.append(payload[2] if len(payload) == 3 else
                                  f"{spec.line_group}:{lineno}" if spec.line_group else e_form)
    for row, g in zip(rows, group_ids(group_keys).tolist(), strict=True):
        row["group"] = g
    return rows, rejects


def read_all(inputs: list[InputConfig], max_chars: int, s3: S3Options | None = None,
             checks: BitextChecks | None = None) -> tuple[list[dict], list[dict]]:
    """Read every input whole (for small corpora, e.g. MT training); returns rows and rejects."""
    read = [read_shard(spec, max_chars, s3, checks)
            for spec in plan_shards(inputs, shard_rows=1 << 30, s3=s3)]
    return [r for rows, _ in read for r in rows], [j for _, rejects in read for j in rejects]


def read_shards(batch: pd.DataFrame, max_chars: int, s3: S3Options | None,
                checks: dict | None = None) -> pd.DataFrame:
    """Ray Data stage: read the shards named in ``batch`` into rows; rejects are rows with a
    ``reason``. ``checks`` is a :class:`BitextChecks` as a dict (default: its defaults)."""
    bc = BitextChecks(**checks) if checks else None
    frames = []
    for item in batch.to_dict("records"):
        spec = ShardSpec.from_dict(item)
        rows, rejects = read_shard(spec, max_chars, s3, bc)
        df = pd.DataFrame(rows + rejects, columns=[
            "id", "corpus", "set", "shard", "line", "src_lang", "src", "ref", "group",
            "reason", "detail", "raw"])
        df["group"] = df["group"].fillna(0).astype(np.int64)
        texts = ["src", "ref", "reason", "raw", "detail"]
        df[texts] = df[texts].fillna("")
        df["shard_key"] = spec.key
        df["shard_total"] = len(df)
        frames.append(df.drop(columns=["shard"]))
    return pd.concat(frames, ignore_index=True)
