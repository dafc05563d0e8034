"""Training pairs from every source the papers used, as one table (2017 §5.2-5.3, 2019 §2,
DCU §3).

Every source yields rows ``s1, s2, lang1, lang2, source, group`` (and ``label`` for labelled
pairs). Rows that cannot train (an empty side, a malformed line, a side that is in an
evaluation set, an exact duplicate) are returned as rejects with a reason, never dropped.
Decontamination is on unless ``train.decontaminate`` is false; pairs
sharing a normalised side, a Bible verse or an image share a ``group``
(:func:`paralib.decontaminate.pairs.group_components`).
"""

from __future__ import annotations

import gzip
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from paralib.config import DecontaminateConfig
from paralib.errors import ConfigurationError
from paralib.io.bitext import BitextError, read_all
from paralib.io.context import StageContext
from paralib.io.fs import S3Options
from paralib.paths import data_root
from paralib.select.files import read_pairs
from paralib.train.config import SourceConfig, TrainConfig

# a training reject: its source, its kind (``reason``, counted), this row's particulars
# (``detail``: a byte offset, a field count) and its texts
REJECT_COLUMNS = ["source", "reason", "detail", "s1", "s2"]
PPDB = "lexical/mwa_ppdb.zip"


class SourceError(ConfigurationError, ValueError):
    """A training source is missing or lacks the columns it needs."""


def _pairs(src: SourceConfig, storage: S3Options | None) -> pd.DataFrame:
    """A selection or any pairs Parquet; its ``group`` column (k-best hypotheses of one
    source, captions of one image) is kept."""
    df = read_pairs(src.path, storage)
    missing = [c for c in (src.s1_column, src.s2_column) if c not in df.columns]
    if missing:
        raise SourceError(f"pairs source {src.path}: missing column(s) {', '.join(missing)} "
                          f"(columns: {', '.join(map(str, df.columns))}); set s1_column / "
                          "s2_column")
    out = pd.DataFrame({"s1": df[src.s1_column], "s2": df[src.s2_column],
                        "lang1": "en", "lang2": "en"})
    if "label" in df.columns:
        out["label"] = df["label"].astype(np.int64)
    if "group" in df.columns:
        out["group"] = df["group"].to_numpy()
    return out


def _corpus(src: SourceConfig, storage: S3Options | None) -> pd.DataFrame:
    """A ``paralib decontaminate`` output: English ``ref`` with ``src`` in ``src_lang``."""
    df = read_pairs(src.path, storage)
    missing = [c for c in ("ref", "src", "src_lang", "group") if c not in df.columns]
    if missing:
        raise SourceError(f"corpus source {src.path}: missing column(s) {', '.join(missing)}; "
                          "expected the output of paralib decontaminate")
    out = pd.DataFrame({"s1": df["ref"], "s2": df["src"], "lang1": "en",
                        "lang2": df["src_lang"], "group": df["group"]})
    if "corpus" in df.columns:
        out["corpus"] = df["corpus"].astype(str).to_numpy()
    return out


def _bitext(ctx: StageContext) -> tuple[pd.DataFrame, list[dict]]:
    inputs = ctx.bitext.all_inputs()
    if not inputs:
        raise SourceError("a 'bitext' source reads the config's bitext.inputs and "
                          "bitext.corpora, which are empty")
    rows, rejects = read_all(inputs, ctx.bitext.max_chars, ctx.storage, ctx.bitext.checks)
    df = pd.DataFrame(rows, columns=["ref", "src", "src_lang", "group", "corpus"])
    return pd.DataFrame({"s1": df["ref"], "s2": df["src"], "lang1": "en",
                         "lang2": df["src_lang"], "group": df["group"],
                         "corpus": df["corpus"]}), rejects


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
                        "lang1": "en", "lang2": "en", "group": pairs["group"].to_numpy()})
    return out, [{"reason": r, "detail": d, "raw": f"{i}: {raw}"} for i, r, d, raw in zip(
        rej["id"], rej["reason"], rej["detail"], rej["raw"], strict=True)]


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


@dataclass(frozen=True)
class Malformed:
    """Why a line is no pair: ``reason`` its kind (counted), ``detail`` this line's
    particulars (a byte offset, a field count)."""

    reason: str
    detail: str = ""


def ppdb_pair(line: bytes) -> tuple[str, str] | Malformed:
    """``(phrase, paraphrase)`` of one PPDB line, or why it is malformed.

    Lines are ``phrase<TAB>paraphrase`` (the lexical pair lists) or PPDB release lines
    ``LHS ||| phrase ||| paraphrase ||| features ||| alignment``.
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Malformed("undecodable bytes", f"utf-8: {exc.reason} at byte {exc.start}")
    if not text.strip():
        return Malformed("blank line")
    if " ||| " in text:
        fields = text.split(" ||| ")
        if len(fields) < 3:
            return Malformed("expected LHS ||| phrase ||| paraphrase",
                             f"got {len(fields)} field(s)")
        return fields[1].strip(), fields[2].strip()
    fields = text.split("\t")
    if len(fields) != 2:
        return Malformed("expected 2 tab-separated phrases", f"got {len(fields)} field(s)")
    return fields[0].strip(), fields[1].strip()


def _ppdb(src: SourceConfig, root: Path, seed: int) -> tuple[pd.DataFrame, list[dict]]:
    """PPDB pairs (2017 §5.2), shuffled with ``seed`` so that ``limit`` is a random sample."""
    path = Path(src.path) if src.path else root / PPDB
    pairs, rejects = [], []
    for n, line in enumerate(_ppdb_bytes(path).splitlines(), 1):
        got = ppdb_pair(line)
        if isinstance(got, Malformed):
            raw = line.decode("utf-8", errors="replace")[:200]
            rejects.append({"reason": got.reason, "detail": got.detail,
                            "raw": f"{path.name}:{n}: {raw}"})
        else:
            pairs.append(got)
    out = pd.DataFrame(pairs, columns=["s1", "s2"])
    out = out.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    out["lang1"] = out["lang2"] = "en"
    return out, rejects


def _clean(data: pd.DataFrame, matching: DecontaminateConfig | None
           ) -> tuple[pd.DataFrame, list[dict]]:
    """Decontaminate (with ``matching``; not when ``None``), de-duplicate and group ``data``;
    the removed rows as rejects."""
    from paralib.decontaminate import EvalIndex
    from paralib.decontaminate.pairs import clean_pairs

    index = None
    if matching is not None:
        index = EvalIndex.cached(data_root(), ngram=matching.ngram,
                                 min_tokens=matching.min_tokens)
    if "group" in data.columns:  # sources without their own groups
        data["group"] = data["group"].astype(object).where(data["group"].notna(), None)
    kept, rejected, _ = clean_pairs(data, index, english=["s1", "s2"])
    return kept, [{"source": s, "reason": r, "s1": a, "s2": b} for s, r, a, b in zip(
        rejected["source"], rejected["reason"], rejected["s1"], rejected["s2"], strict=True)]


def _languages(df: pd.DataFrame, src: SourceConfig) -> pd.DataFrame:
    """The pairs of ``df`` whose non-English side (``lang2``) ``src.langs`` keeps and
    ``src.exclude_langs`` does not drop (``zh`` names every ``zh-*`` variant too)."""
    if src.langs is None and not src.exclude_langs:
        return df
    from paralib.corpora.langs import matches

    def wanted(lang: str) -> bool:
        keep = src.langs is None or any(matches(x, lang) for x in src.langs)
        return keep and not any(matches(x, lang) for x in src.exclude_langs or [])

    present = pd.unique(df["lang2"].astype(str))
    return df[df["lang2"].isin([lang for lang in present if wanted(lang)])]


def language_shares(counts: pd.Series, temperature: float) -> pd.Series:
    """Each language's share of the training pairs at sampling temperature ``T``: ∝
    n_l^(1/T) (XLM, Conneau & Lample 2019 §3.1; T = 1 keeps the data's shares)."""
    weights = counts.astype(float) ** (1.0 / temperature)
    return weights / weights.sum()


def temperature_sample(data: pd.DataFrame, temperature: float, seed: int,
                       column: str = "lang2") -> pd.DataFrame:
    """``data`` drawn again with :func:`language_shares` (as many pairs as it has): a language
    given more than its pairs keeps them all and repeats a random part of them, one given
    fewer keeps a random part. Languages are the non-English side (``lang2``); ``column``
    ``corpus`` draws the corpora so (``train.corpus_temperature``)."""
    if data.empty:
        return data
    rng = np.random.default_rng(seed)
    lang = data[column].astype(str).to_numpy()
    counts = pd.Series(lang).value_counts()
    target = np.floor(language_shares(counts, temperature) * len(data)).astype(int)
    short = len(data) - int(target.sum())  # whole pairs left over: to the largest remainders
    remainder = language_shares(counts, temperature) * len(data) - target
    target[remainder.sort_values(ascending=False).index[:short]] += 1
    picks = []
    for code, want in target.items():
        rows = np.flatnonzero(lang == code)
        if want <= len(rows):
            picks.append(rng.choice(rows, size=int(want), replace=False))
        else:
            extra = rng.choice(rows, size=int(want) - len(rows), replace=True)
            picks.append(np.concatenate([rows, extra]))
    return data.iloc[np.concatenate(picks)].reset_index(drop=True)


def _draw(rows: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` of ``rows`` at random (all of them when there are no more)."""
    return rows if n >= len(rows) else rng.choice(rows, size=n, replace=False)


def apply_caps(data: pd.DataFrame, caps: list, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``data`` with each cap of ``caps`` (:class:`paralib.train.config.CapConfig`) applied in
    order, and the pairs they dropped (reason ``over cap``, detail naming the cap).

    Raises :class:`SourceError` for a cap that matches no pair (naming the corpora and
    languages the pairs have) and for a ``max_pairs`` that leaves a language of its corpus no
    pair (naming corpus, language and the cap it would take).
    """
    from paralib.corpora.langs import matches

    rng = np.random.default_rng(seed)
    dropped = []
    for i, cap in enumerate(caps):
        where = f"train.caps[{i}] ({cap.describe()})"
        corpus = data["corpus"].astype(str).to_numpy()
        lang = data["lang2"].astype(str).to_numpy()
        hit = np.ones(len(data), dtype=bool)
        if cap.corpus is not None:
            hit &= corpus == cap.corpus
            if not hit.any():
                raise SourceError(f"{where}: no training pair is from corpus '{cap.corpus}'; "
                                  f"the pairs' corpora: {', '.join(sorted(set(corpus)))}")
        if cap.lang is not None:
            langs = pd.unique(lang[hit])
            hit &= np.isin(lang, [x for x in langs if matches(cap.lang, x)])
            if not hit.any():
                of = f" of corpus '{cap.corpus}'" if cap.corpus else ""
                raise SourceError(f"{where}: no training pair{of} is in language "
                                  f"'{cap.lang}'; their languages: {', '.join(sorted(langs))}")
        rows = np.flatnonzero(hit)
        per = pd.Series(rows).groupby(lang[rows], sort=True)
        keep = [np.sort(_draw(r.to_numpy(), cap.per_lang or len(r), rng)) for _, r in per]
        if cap.max_pairs is not None and sum(len(k) for k in keep) > cap.max_pairs:
            sizes = np.array([len(k) for k in keep])
            quota = sizes * cap.max_pairs / sizes.sum()
            take = np.floor(quota).astype(int)
            rest = np.argsort(-(quota - take), kind="stable")[: cap.max_pairs - int(take.sum())]
            take[rest] += 1
            for k, (code, _) in enumerate(per):
                if take[k] == 0:
                    raise SourceError(
                        f"{where}: leaves language '{code}' of corpus "
                        f"'{cap.corpus or 'any'}' no pair ({sizes[k]:,} before the cap, "
                        f"{len(sizes)} languages share max_pairs {cap.max_pairs:,}); expected "
                        f"at least one pair per language: raise max_pairs to at least "
                        f"{int(np.ceil(sizes.sum() / sizes[k]))} or leave the language out "
                        "(the source's exclude_langs)")
            keep = [np.sort(_draw(k, int(t), rng)) for k, t in zip(keep, take, strict=True)]
        out = np.ones(len(data), dtype=bool)
        out[rows] = False
        out[np.concatenate(keep)] = True
        if (~out).any():
            gone = data[~out]
            dropped.append(pd.DataFrame({"source": gone["source"].to_numpy(),
                                         "reason": "over cap", "detail": where,
                                         "s1": gone["s1"].to_numpy(),
                                         "s2": gone["s2"].to_numpy()}))
        data = data[out].reset_index(drop=True)
    return data, (pd.concat(dropped, ignore_index=True) if dropped
                  else pd.DataFrame(columns=REJECT_COLUMNS))


def vocabulary_sample(data: pd.DataFrame, size: int, by: str, seed: int) -> list[str]:
    """The sentences the tokenisers are fitted on (``train.vocab_sample_by``).

    ``order``: the first ``size`` of the s1 sides followed by the s2 sides. ``language``:
    ``size`` distinct sentences spread evenly over the languages (``lang1`` / ``lang2``):
    each language's sentences shuffled with ``seed``, taken one language after another.
    """
    if by == "order":
        return pd.concat([data["s1"], data["s2"]]).iloc[:size].tolist()
    sents = pd.DataFrame({"text": pd.concat([data["s1"], data["s2"]], ignore_index=True),
                          "lang": pd.concat([data["lang1"], data["lang2"]],
                                            ignore_index=True).astype(str)})
    sents = sents.drop_duplicates(["lang", "text"])
    sents = sents.sample(frac=1.0, random_state=seed)
    sents["rank"] = sents.groupby("lang", sort=False).cumcount()
    sents = sents.sort_values(["rank", "lang"], kind="stable")
    return sents["text"].iloc[:size].tolist()


def mix_counts(data: pd.DataFrame) -> dict[str, dict[str, int]]:
    """The training mix: pairs per corpus and language, a pair's language being its
    non-English side's (``en`` for English paraphrase pairs), largest first."""
    lang = data["lang1"].where(data["lang1"] != "en", data["lang2"]).astype(str)
    counts = data.groupby([data["corpus"].astype(str), lang]).size()
    mix: dict[str, dict[str, int]] = {}
    for (corpus, language), n in counts.sort_values(ascending=False).items():
        mix.setdefault(corpus, {})[language] = int(n)
    return dict(sorted(mix.items(), key=lambda kv: -sum(kv[1].values())))


def shortage(data: pd.DataFrame, rejects: pd.DataFrame) -> str:
    """Where the training pairs went, per source: how many it had, how many are left, and
    how many each reason removed (decontamination per evaluation set)."""
    kept = data["source"].value_counts() if len(data) else pd.Series(dtype=int)
    gone = rejects.groupby("source", sort=False) if len(rejects) else None
    parts = []
    for src in pd.unique(pd.concat([data["source"], rejects["source"]]).astype(str)):
        rej = gone.get_group(src) if gone is not None and src in gone.groups else rejects[:0]
        reason = rej["reason"].astype(str)
        why = []
        dirty = decontamination_counts(rej) if len(rej) else {}
        if dirty:
            sets = ", ".join(f"{k} {v:,}" for k, v in sorted(dirty.items(),
                                                               key=lambda kv: -kv[1]))
            why.append(f"decontamination {sum(dirty.values()):,} ({sets})")
        for r, n in reason[~reason.str.startswith("contaminated: ")].value_counts().items():
            why.append(f"{r} {n:,}")
        n_kept = int(kept.get(src, 0))
        parts.append(f"source {src}: {n_kept + len(rej):,} pair(s), {n_kept:,} left"
                     + (f"; removed: {'; '.join(why)}" if why else ""))
    return " | ".join(parts) if parts else "no source gave any pair"


def decontamination_counts(rejects: pd.DataFrame) -> dict[str, int]:
    """Pairs removed per evaluation set, from the reasons of training rejects."""
    hit = rejects["reason"].astype(str)
    hit = hit[hit.str.startswith("contaminated: ")]
    return {k: int(v) for k, v in
            hit.str.slice(len("contaminated: ")).str.split(" ").str[0].value_counts().items()}


def load_sources(tcfg: TrainConfig, ctx: StageContext, seed: int = 1
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """All training pairs (shuffled with ``seed``) and the rejected rows with reasons.

    The pairs are decontaminated as ``ctx.decontaminate`` matches (unless
    ``train.decontaminate`` is false), exact duplicates removed and grouped;
    ``decontamination_counts(rejects)`` gives the pairs each evaluation set removed.
    """
    if not tcfg.sources:
        raise SourceError("train.sources is empty: name at least one source of pairs")
    root = data_root()
    frames, rejects = [], []
    for n, src in enumerate(tcfg.sources):
        name = f"{n}:{src.kind}"
        rej: list[dict] = []
        if src.kind == "pairs":
            df = _pairs(src, ctx.storage)
        elif src.kind == "bitext":
            df, rej = _bitext(ctx)
        elif src.kind == "captions":
            df, rej = _captions(src, root)
        elif src.kind == "corpus":
            df = _corpus(src, ctx.storage)
        elif src.kind == "ppdb":
            df, rej = _ppdb(src, root, seed)
        else:
            df = _sts(src, root)
        rejects += [{"source": name, "reason": r["reason"], "detail": r.get("detail", ""),
                     "s1": r.get("raw", ""), "s2": ""} for r in rej]
        if src.limit:
            df = df.iloc[: src.limit]
        df = _languages(df, src)
        if src.sample and src.sample < len(df):
            df = df.sample(n=src.sample, random_state=seed)
        df["source"] = name
        if "corpus" not in df.columns:  # sources without corpora: their kind
            df["corpus"] = src.kind
        if "group" in df.columns:  # ints, kept exact beside sources without groups
            df["group"] = df["group"].astype(object)
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
    data, removed = _clean(data.reset_index(drop=True),
                           ctx.decontaminate if tcfg.decontaminate else None)
    rejects += removed
    capped = None
    if tcfg.caps:
        data, capped = apply_caps(data, tcfg.caps, seed)
    if tcfg.corpus_temperature is not None:
        data = temperature_sample(data, tcfg.corpus_temperature, seed, column="corpus")
    if tcfg.lang_temperature is not None:
        data = temperature_sample(data, tcfg.lang_temperature, seed)
    data = data.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    if tcfg.max_pairs:
        data = data.iloc[: tcfg.max_pairs]
    rejected = pd.DataFrame(rejects, columns=REJECT_COLUMNS)
    if capped is not None and len(capped):
        rejected = pd.concat([rejected, capped], ignore_index=True)
    rejected["detail"] = rejected["detail"].astype(object).fillna("")
    return data, rejected
