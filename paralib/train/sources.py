"""Training pairs from every source the papers used, as one table (2017 §5.2-5.3, 2019 §2,
DCU §3).

Every source yields rows ``s1, s2, lang1, lang2, source`` (and ``label`` for labelled pairs).
Rows that cannot train (an empty side, a malformed line) are returned as rejects with a
reason, never dropped.
"""

from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from paralib.config import Config
from paralib.io.bitext import BitextError, read_all
from paralib.paths import data_root
from paralib.select.files import read_pairs
from paralib.train.config import SourceConfig

COLUMNS = ["s1", "s2", "lang1", "lang2", "source"]
PPDB = "lexical/mwa_ppdb.zip"


class SourceError(ValueError):
    """A training source is missing or lacks the columns it needs."""


def _pairs(src: SourceConfig, cfg: Config) -> pd.DataFrame:
    df = read_pairs(src.path, cfg.s3.options())
    missing = [c for c in (src.s1_column, src.s2_column) if c not in df.columns]
    if missing:
        raise SourceError(f"pairs source {src.path}: missing column(s) {', '.join(missing)} "
                          f"(columns: {', '.join(map(str, df.columns))}); set s1_column / "
                          "s2_column")
    out = pd.DataFrame({"s1": df[src.s1_column], "s2": df[src.s2_column],
                        "lang1": "en", "lang2": "en"})
    if "label" in df.columns:
        out["label"] = df["label"].astype(np.int64)
    return out


def _bitext(src: SourceConfig, cfg: Config) -> tuple[pd.DataFrame, list[dict]]:
    if not cfg.bitext.inputs:
        raise SourceError("a 'bitext' source reads the config's bitext.inputs, which is empty")
    rows, rejects = read_all(cfg.bitext.inputs, cfg.bitext.max_chars, cfg.s3.options())
    df = pd.DataFrame(rows)
    return pd.DataFrame({"s1": df["ref"], "s2": df["src"], "lang1": "en",
                         "lang2": df["src_lang"]}), rejects


def _captions(src: SourceConfig, root: Path) -> tuple[pd.DataFrame, list[dict]]:
    """Consecutive captions of each image (1-2, 2-3, 3-4, 4-5) of the 5 written for it, read
    as :mod:`paralib.corpora.captions` reads them (an undecodable or empty caption rejects its
    pairs with the reason)."""
    from paralib.corpora.captions import caption_files, read_captions, shard_pairs

    try:
        caps = read_captions(caption_files("train", root))
    except BitextError as e:
        raise SourceError(f"captions source: {e}") from e
    pairs, rej = shard_pairs(caps, "captions", 0, 0, len(caps[0]))
    # pairs in caption order (1-2 of every image, then 2-3, ...), as before
    pairs["k"] = pairs["id"].str.rsplit(":", n=1).str[1].astype(int)
    pairs = pairs.sort_values("k", kind="stable")
    out = pd.DataFrame({"s1": pairs["ref"].to_numpy(), "s2": pairs["trans"].to_numpy(),
                        "lang1": "en", "lang2": "en"})
    return out, [{"reason": r, "raw": f"{i}: {raw}"}
                 for i, r, raw in zip(rej["id"], rej["reason"], rej["raw"], strict=True)]


def _sts(src: SourceConfig, root: Path) -> pd.DataFrame:
    from paralib.evaluate.loaders import read_stsb

    pairs = read_stsb(root, "train")
    keep = pairs.gold >= src.min_score
    return pd.DataFrame({"s1": np.asarray(pairs.a, dtype=object)[keep],
                         "s2": np.asarray(pairs.b, dtype=object)[keep],
                         "lang1": "en", "lang2": "en"})


def _ppdb_bytes(path: Path) -> bytes:
    """The bytes of a PPDB file: the one file inside a ``.zip``, or a (gzipped) text file."""
    if not path.is_file():
        raise SourceError(f"ppdb source: {path} not found")
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as z:
            members = [m for m in z.infolist() if not m.is_dir()]
            if len(members) != 1:
                raise SourceError(f"ppdb source: {path} holds {len(members)} files "
                                  f"({', '.join(m.filename for m in members)}); expected one")
            return z.read(members[0])
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def ppdb_pair(line: bytes) -> tuple[str, str] | str:
    """``(phrase, paraphrase)`` of one PPDB line, or the reason it is malformed.

    Lines are ``phrase<TAB>paraphrase`` (the lexical pair lists) or PPDB release lines
    ``LHS ||| phrase ||| paraphrase ||| features ||| alignment``.
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"undecodable bytes (utf-8, byte {exc.start})"
    if not text.strip():
        return "blank line"
    if " ||| " in text:
        fields = text.split(" ||| ")
        if len(fields) < 3:
            return f"expected LHS ||| phrase ||| paraphrase, got {len(fields)} field(s)"
        return fields[1].strip(), fields[2].strip()
    fields = text.split("\t")
    if len(fields) != 2:
        return f"expected 2 tab-separated phrases, got {len(fields)} field(s)"
    return fields[0].strip(), fields[1].strip()


def _ppdb(src: SourceConfig, root: Path, seed: int) -> tuple[pd.DataFrame, list[dict]]:
    """PPDB pairs (2017 §5.2), shuffled with ``seed`` so that ``limit`` is a random sample."""
    path = Path(src.path) if src.path else root / PPDB
    pairs, rejects = [], []
    for n, line in enumerate(_ppdb_bytes(path).splitlines(), 1):
        got = ppdb_pair(line)
        if isinstance(got, str):
            raw = line.decode("utf-8", errors="replace")[:200]
            rejects.append({"reason": got, "raw": f"{path.name}:{n}: {raw}"})
        else:
            pairs.append(got)
    out = pd.DataFrame(pairs, columns=["s1", "s2"])
    out = out.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    out["lang1"] = out["lang2"] = "en"
    return out, rejects


def load_sources(cfg: Config, seed: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """All training pairs (shuffled with ``seed``) and the rejected rows with reasons."""
    tcfg = cfg.train
    if not tcfg.sources:
        raise SourceError("train.sources is empty: name at least one source of pairs")
    root = data_root()
    frames, rejects = [], []
    for n, src in enumerate(tcfg.sources):
        name = f"{n}:{src.kind}"
        rej: list[dict] = []
        if src.kind == "pairs":
            df = _pairs(src, cfg)
        elif src.kind == "bitext":
            df, rej = _bitext(src, cfg)
        elif src.kind == "captions":
            df, rej = _captions(src, root)
        elif src.kind == "ppdb":
            df, rej = _ppdb(src, root, seed)
        else:
            df = _sts(src, root)
        rejects += [{"source": name, "reason": r["reason"], "s1": r.get("raw", ""), "s2": ""}
                    for r in rej]
        if src.limit:
            df = df.iloc[: src.limit]
        df["source"] = name
        frames.append(df)
    data = pd.concat(frames, ignore_index=True)
    for col in ("s1", "s2"):
        data[col] = data[col].fillna("").astype(str).str.strip()
    empty = (data["s1"] == "") | (data["s2"] == "")
    if empty.any():
        bad = data[empty]
        rejects += [{"source": s, "reason": "empty sentence", "s1": a, "s2": b}
                    for s, a, b in zip(bad["source"], bad["s1"], bad["s2"], strict=True)]
        data = data[~empty]
    data = data.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    if tcfg.max_pairs:
        data = data.iloc[: tcfg.max_pairs]
    return data, pd.DataFrame(rejects, columns=["source", "reason", "s1", "s2"])
