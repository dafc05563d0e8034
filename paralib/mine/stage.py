"""``paralib mine SRC TGT``: translation pairs between two monolingual corpora.

Both sides become sentence vectors (read from a ``paralib encode`` output, or text encoded
first by the encode stage into ``output/embeddings/``), the margin core
(:func:`paralib.mine.margin.mine_pairs`: ratio margin, max-score, 2019 §3.4 after Artetxe &
Schwenk 2019) pairs them, and the pairs are written as a stage output (``data/``,
``rejects/`` for candidates under ``threshold``, ``_markers/``, ``_summary.json``) with
``mine.json`` (sizes, indexes, seconds, the fingerprint of inputs and options). A finished
output whose fingerprint matches is reused; an unfinished one is mined again.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from paralib.decontaminate.normalise import normal_form
from paralib.encode.config import EncodeConfig, TextInput
from paralib.encode.pipeline import run as encode
from paralib.encode.vectors import Vectors, encode_model, is_encode_output, read_vectors
from paralib.errors import ConfigurationError
from paralib.io import fs as pfs
from paralib.io.bitext import group_ids
from paralib.io.context import StageContext
from paralib.io.fs import S3Options
from paralib.io.ownership import claim
from paralib.io.shards import SUMMARY, write_marker
from paralib.io.stage import StageError, StageReport, clear_output, fingerprint, finish, write_parts
from paralib.mine.config import MineConfig
from paralib.mine.index import IndexSpec
from paralib.mine.margin import mine_pairs

INFO_FILE = "mine.json"
EMBEDDINGS = "embeddings"
PAIRS_SCHEMA = pa.schema(
    [("id", pa.string()), ("corpus", pa.string()), ("src_lang", pa.string()),
     ("src", pa.string()), ("ref", pa.string()), ("ref_lang", pa.string()),
     ("src_id", pa.string()), ("ref_id", pa.string()), ("margin", pa.float64()),
     ("cosine", pa.float32()), ("group", pa.int64())])


class MineError(ConfigurationError, ValueError):
    """``paralib mine`` is asked for something it cannot do (no input, unequal vectors)."""


@dataclass
class MineResult:
    """The counts of a mining run (``rows_in`` = candidates, ``rows_out`` = pairs kept) and
    what ``mine.json`` holds."""

    report: StageReport
    info: dict

    def text(self) -> str:
        """The summary line, then the stage's counts."""
        i = self.info
        thr = "" if i["threshold"] is None else f" with margin >= {i['threshold']}"
        idx = ", ".join(f"{d} {_index_text(i['indexes'][d])}" for d in ("forward", "backward"))
        head = (f"mined {self.report.rows_out} pairs{thr} of {self.report.rows_in} candidates "
                f"(each sentence at most once) between {i['n_src']} {i['src_lang']} and "
                f"{i['n_tgt']} {i['tgt_lang']} sentences; k={i['k']}; index {idx}; "
                f"{i['seconds']['total']:.1f}s" + (" (already done)" if i.get("reused") else ""))
        return head + "\n" + self.report.text()


def _index_text(info: dict) -> str:
    extra = ", ".join(f"{k}={v}" for k, v in info.items() if k not in ("kind", "keys"))
    return f"{info['kind']}({extra})" if extra else info["kind"]


def side_vectors(m: MineConfig, ctx: StageContext, side: str) -> tuple[Vectors, dict]:
    """The vectors of ``mine.src`` or ``mine.tgt`` and how they were made (text is encoded
    with the context's ``encode`` section)."""
    s3 = ctx.storage
    path, lang = getattr(m, side), getattr(m, f"{side}_lang")
    if path.endswith(".parquet") or is_encode_output(path, s3):
        vec = read_vectors(path, s3)
        info = {"input": path, "kind": "vectors"}
        made = encode_model(path, s3)
        if made is not None:
            info["model"], info["model_stamp"] = made
    else:
        enc = EncodeConfig.model_validate(ctx.config.get("encode", {})).model_copy(update={
            "inputs": [TextInput(path=path, lang=lang or "und")], "normalize": False,
            "dtype": "float32", "overwrite": False,
            "output": pfs.join(m.output, EMBEDDINGS, side)})
        report = encode(enc, ctx)
        vec = read_vectors(enc.output, s3)
        info = {"input": path, "kind": "text", "model": enc.model, "encode": asdict(report)}
        made = encode_model(enc.output, s3)
        if made is not None:
            info["model_stamp"] = made[1]
    if not len(vec.ids):
        raise MineError(f"mine.{side} ({path}): no sentences to mine")
    info["lang"] = lang or vec.lang()
    info["sentences"] = len(vec.ids)
    return vec, info


def check_models(src: dict, tgt: dict) -> None:
    """Refuse vectors of two different models (their stamps differ): their cosines mean
    nothing, even when the dimensions agree."""
    a, b = src.get("model_stamp"), tgt.get("model_stamp")
    if a and b and a != b:
        def name(side: str, info: dict) -> str:
            model = info.get("model", "?")
            what = (f"model {model}" if model != "?" else
                    f"a model with config hash {info['model_stamp'].get('config')}")
            return f"mine.{side} ({info['input']}) was encoded by {what}"

        raise MineError(f"{name('src', src)} and {name('tgt', tgt)}: vectors of two "
                        "models are not comparable; encode both sides with one model")


def _line(row_id: str) -> int:
    tail = row_id.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def pairs_frame(x: Vectors, y: Vectors, src_lang: str, tgt_lang: str, corpus: str,
                threshold: float | None, k: int, spec: IndexSpec) -> tuple[pd.DataFrame, dict]:
    """Mine ``x`` against ``y``: every candidate as a row (``reason`` set below
    ``threshold``), best first, and the indexes used."""
    mined = mine_pairs(x.matrix, y.matrix, k, spec)
    src = [x.texts[i] for i in mined.src]
    ref = [y.texts[i] for i in mined.trg]
    ids = [x.ids[i] for i in mined.src]
    low = (np.zeros(len(ids), dtype=bool) if threshold is None
           else mined.margin < threshold)
    df = pd.DataFrame({
        "id": ids, "corpus": corpus, "src_lang": src_lang, "src": src, "ref": ref,
        "ref_lang": tgt_lang, "src_id": ids, "ref_id": [y.ids[i] for i in mined.trg],
        "margin": mined.margin, "cosine": mined.cosine.astype(np.float32),
        "group": group_ids([normal_form(t) for t in ref]),
        "line": np.array([_line(i) for i in ids], dtype=np.int64),
        "reason": np.where(low, f"margin below {threshold}", ""),
        "raw": [f"{s[:200]}\t{t[:200]}" for s, t in zip(src, ref, strict=True)],
        "_first": True})
    return df, mined.indexes


def _ids_hash(vec: Vectors) -> str:
    return hashlib.sha1("\n".join(vec.ids).encode()).hexdigest()[:16]


def write_pairs(df: pd.DataFrame, out: str, corpus: str, part_rows: int, print_: str,
                report: StageReport, s3) -> None:
    """Write the candidates in parts of ``part_rows`` rows (key ``<corpus>-<n>``), each with
    its completion marker."""
    for n, start in enumerate(range(0, len(df), part_rows)):
        part = df.iloc[start:start + part_rows].copy()
        part["shard_key"] = f"{corpus}-{n:05d}"
        part["shard_total"] = len(part)
        for row in write_parts(part, out, s3, schema=PAIRS_SCHEMA).to_dict("records"):
            counts = {"rows_in": row["total"], "rows_out": row["rows_out"],
                      "rows_rejected": row["rows_rejected"], "hypotheses": row["hypotheses"],
                      "reasons": json.loads(row["reasons"]), "fingerprint": print_}
            write_marker(out, row["shard_key"], counts, s3)
            report.add(counts)
            report.shards += 1


def run(m: MineConfig, ctx: StageContext) -> MineResult:
    """Mine ``m.src`` against ``m.tgt`` into ``m.output``; every ``s3://`` bucket of the
    config is checked first (:func:`paralib.io.fs.check_s3_paths`)."""
    s3 = ctx.storage
    ctx.check_buckets()  # before any work
    for side in ("src", "tgt"):
        if getattr(m, side) is None:
            raise MineError(f"mine.{side} is not set: give SRC and TGT (paralib mine SRC TGT) "
                            "or set mine.src and mine.tgt")
    extra = (EMBEDDINGS, INFO_FILE)
    options = m.model_dump(exclude={"output", "overwrite", "part_rows"})
    with claim(m.output, "mine", {"mine.src": m.src, "mine.tgt": m.tgt}, options, s3,
               m.overwrite, extra, (INFO_FILE,), key="mine.output"):
        return _run(ctx, m, s3)


def _run(ctx: StageContext, m: MineConfig, s3: S3Options | None) -> MineResult:
    """The stage on an output folder that :func:`run` holds."""
    info_path = pfs.join(m.output, INFO_FILE)
    previous = json.loads(pfs.read_bytes(info_path, s3)) if pfs.exists(info_path, s3) else None
    if previous is None:  # marks the folder as this stage's before the vectors go in
        pfs.write_bytes(info_path, b'{"fingerprint": null}', s3)
    t0 = time.perf_counter()
    (x, src_info), (y, tgt_info) = side_vectors(m, ctx, "src"), side_vectors(m, ctx, "tgt")
    if x.matrix.shape[1] != y.matrix.shape[1]:
        raise MineError(f"mine.src has {x.matrix.shape[1]}-dimensional vectors and mine.tgt "
                        f"{y.matrix.shape[1]}-dimensional ones: encode both with one model")
    check_models(src_info, tgt_info)
    t_vectors = time.perf_counter() - t0
    options = m.model_dump(exclude={"output", "overwrite", "part_rows", "src_lang",
                                    "tgt_lang"})
    print_ = fingerprint(options, src_info["lang"], tgt_info["lang"], _ids_hash(x),
                         _ids_hash(y), x.matrix.shape, y.matrix.shape)
    done = previous is not None and pfs.exists(pfs.join(m.output, SUMMARY), s3)
    if done and previous["fingerprint"] != print_:
        raise StageError(f"{m.output} holds pairs mined from other inputs or with other "
                         "options; use another mine.output or set mine.overwrite: true")
    if done:
        report = StageReport(**json.loads(pfs.read_bytes(pfs.join(m.output, SUMMARY), s3)))
        return MineResult(report, {**previous, "reused": True})
    # what an unfinished attempt wrote; the vectors are kept
    clear_output(m.output, s3, marks=(INFO_FILE,))
    report = StageReport(output=m.output, unit="mined pairs")
    t1 = time.perf_counter()
    df, indexes = pairs_frame(x, y, src_info["lang"], tgt_info["lang"], m.corpus,
                              m.threshold, m.k, IndexSpec.of(m))
    t_mine = time.perf_counter() - t1
    write_pairs(df, m.output, m.corpus, m.part_rows, print_, report, s3)
    info = {"fingerprint": print_, "src": src_info, "tgt": tgt_info,
            "src_lang": src_info["lang"], "tgt_lang": tgt_info["lang"],
            "n_src": len(x.ids), "n_tgt": len(y.ids), "k": m.k, "threshold": m.threshold,
            "indexes": indexes,
            "seconds": {"vectors": round(t_vectors, 2), "mine": round(t_mine, 2),
                        "total": round(time.perf_counter() - t0, 2)}}
    pfs.write_bytes(info_path, json.dumps(info, indent=2).encode(), s3)
    return MineResult(finish(report, s3, t0), info)
