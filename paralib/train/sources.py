"""Training pairs from every source the papers used, as one table (2017 §5.3, 2019 §2, DCU §3).

Every source yields rows ``s1, s2, lang1, lang2, source`` (and ``label`` for labelled pairs).
Rows that cannot train (an empty side) are returned as rejects with a reason, never dropped.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd

from paralib.config import Config
from paralib.io.bitext import read_all
from paralib.paths import data_root
from paralib.select.files import read_pairs
from paralib.train.config import SourceConfig

COLUMNS = ["s1", "s2", "lang1", "lang2", "source"]
CAPTIONS = "bitext/multi30k/task2/raw"


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


def _captions(src: SourceConfig, root: Path) -> pd.DataFrame:
    """Consecutive captions of each image (1-2, 2-3, 3-4, 4-5) of the 5 written for it."""
    base = root / CAPTIONS
    caps = []
    for k in range(1, 6):
        path = base / f"train.{k}.en.gz"
        if not path.is_file():
            raise SourceError(f"captions source: {path.name} not found in {base}")
        with gzip.open(path, "rt", encoding="utf-8") as f:
            caps.append([line.strip() for line in f])
    if len({len(c) for c in caps}) != 1:
        raise SourceError(f"captions source: the 5 files in {base} differ in length")
    frames = [pd.DataFrame({"s1": caps[k], "s2": caps[k + 1]}) for k in range(4)]
    out = pd.concat(frames, ignore_index=True)
    out["lang1"] = out["lang2"] = "en"
    return out


def _sts(src: SourceConfig, root: Path) -> pd.DataFrame:
    from paralib.evaluate.loaders import read_stsb

    pairs = read_stsb(root, "train")
    keep = pairs.gold >= src.min_score
    return pd.DataFrame({"s1": np.asarray(pairs.a, dtype=object)[keep],
                         "s2": np.asarray(pairs.b, dtype=object)[keep],
                         "lang1": "en", "lang2": "en"})


def load_sources(cfg: Config, seed: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """All training pairs (shuffled with ``seed``) and the rejected rows with reasons."""
    tcfg = cfg.train
    if not tcfg.sources:
        raise SourceError("train.sources is empty: name at least one source of pairs")
    root = data_root()
    frames, rejects = [], []
    for n, src in enumerate(tcfg.sources):
        name = f"{n}:{src.kind}"
        if src.kind == "pairs":
            df = _pairs(src, cfg)
        elif src.kind == "bitext":
            df, rej = _bitext(src, cfg)
            rejects += [{"source": name, "reason": r["reason"], "s1": r.get("raw", ""),
                         "s2": ""} for r in rej]
        elif src.kind == "captions":
            df = _captions(src, root)
        else:
            df = _sts(src, root)
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
