"""Corpora by name: what a config's ``bitext.corpora`` entries expand into.

Each corpus is declared once, with the layout of its folder under the data root
(``../shared/data/README.md``), and lists its line-aligned file pairs as :class:`CorpusSet`
(one per language and set, e.g. ``wmt-news`` / ``de`` / ``newstest2014``). Language codes are
the corpus' own on disk and :func:`paralib.corpora.langs.canonical` inside paralib.

- ``wmt-news``: WMT news test sets into English, 27 languages (``<xx>-en/<set>.<xx>.gz``).
- ``tatoeba-challenge``: Tatoeba Translation Challenge test sets, 123 languages with English.
- ``ntrex-128``: the WMT19 English news source with references in 127 languages.
- ``tico-19``: TICO-19 COVID-19 translation memories, 36 languages.
- ``multi30k``: Multi30k task 1 train and val captions (de, fr, cs); its test sets are
  evaluation sets and are not offered.
- ``xnli``: XNLI dev and test premises and hypotheses (ar, de, es, fr, tr).
- ``bible-versions``: English paraphrases, the same verse in 6 English versions; its "sets"
  are the 15 version pairs (``ASV-BBE``, ...), joined by verse key.

The LASER Tatoeba test sets (``bitext/tatoeba``) are an evaluation set and not a corpus here.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from paralib.corpora.langs import canonical, matches
from paralib.errors import ConfigurationError


@dataclass(frozen=True)
class CorpusSet:
    """One line-aligned pair of files: ``src`` (language ``lang``) and ``en`` (English).

    ``format`` is ``text`` (two line-aligned files), ``xnli`` (two XNLI TSVs) or ``bible``
    (two verse files joined by book, chapter and verse).
    """

    corpus: str
    lang: str
    set: str
    src: str
    en: str
    format: str = "text"
    code: str = ""  # the corpus' own code on disk, where it differs from ``lang``


@dataclass(frozen=True)
class Corpus:
    """A named corpus: its folder, what it is, and how to list its file pairs."""

    name: str
    folder: str
    kind: str  # "bitext" or "paraphrase"
    about: str
    licence: str
    lister: Callable[[Path], list[CorpusSet]]

    def sets(self, data: Path) -> list[CorpusSet]:
        """Every file pair of the corpus under the data root ``data``, in a stable order."""
        root = data / self.folder
        if not root.is_dir():
            return []
        found = self.lister(root)
        seen = Counter((s.lang, s.set) for s in found)
        # two codes of one language (Tatoeba's fas and pes are both fa): the set says which
        found = [replace(s, set=f"{s.set}.{s.code}") if seen[s.lang, s.set] > 1 else s
                 for s in found]
        return sorted(found, key=lambda s: (s.lang, s.set))


class CorpusError(ConfigurationError, ValueError):
    """A corpus name or language that does not exist."""


def _wmt(root: Path) -> list[CorpusSet]:
    out = []
    for pair in sorted(p for p in root.iterdir() if p.is_dir() and p.name.endswith("-en")):
        xx = pair.name[: -len("-en")]
        for src in sorted(pair.glob(f"*.{xx}.gz")):
            name = src.name[: -len(f".{xx}.gz")]
            en = pair / f"{name}.en.gz"
            if en.is_file():
                out.append(CorpusSet("wmt-news", canonical(xx), name, str(src), str(en), code=xx))
    return out


def _tatoeba_challenge(root: Path) -> list[CorpusSet]:
    out = []
    for pair in sorted(p for p in root.iterdir() if p.is_dir()):
        codes = [c for c in pair.name.split("-") if c != "eng"]
        if len(codes) != 1:
            continue
        src, en = pair / f"test.{codes[0]}.gz", pair / "test.eng.gz"
        if src.is_file() and en.is_file():
            out.append(CorpusSet("tatoeba-challenge", canonical(codes[0]), "test-v2021-08-07",
                                 str(src), str(en), code=codes[0]))
    return out


def _ntrex(root: Path) -> list[CorpusSet]:
    en = root / "eng.txt.gz"
    out = []
    for f in sorted(root.glob("*.txt.gz")):
        code = f.name[: -len(".txt.gz")]
        ref = "newstest2019-ref"
        if code.endswith(".ref-2"):
            code, ref = code[: -len(".ref-2")], "newstest2019-ref-2"
        if code == "eng" or code.startswith("eng-"):
            continue  # the English source and English re-references are not bitext
        out.append(CorpusSet("ntrex-128", canonical(code), ref, str(f), str(en), code=code))
    return out


def _tico(root: Path) -> list[CorpusSet]:
    out = []
    for pair in sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith("en-")):
        code = pair.name[len("en-"):]
        src, en = pair / f"{code}.txt.gz", pair / "en.txt.gz"
        if src.is_file() and en.is_file():
            out.append(CorpusSet("tico-19", canonical(code), "tico-19", str(src), str(en),
                                 code=code))
    return out


def _multi30k(root: Path) -> list[CorpusSet]:
    raw = root / "task1" / "raw"
    out = []
    for split in ("train", "val"):
        for f in sorted(raw.glob(f"{split}.*.gz")):
            code = f.name.split(".")[1]
            if code != "en":
                out.append(CorpusSet("multi30k", canonical(code), split, str(f),
                                     str(raw / f"{split}.en.gz")))
    return out


def _xnli(root: Path) -> list[CorpusSet]:
    out = []
    for f in sorted(root.glob("*-*.tsv")):
        split, code = f.stem.split("-", 1)
        en = root / f"{split}-en.tsv"
        if code != "en" and en.is_file():
            out.append(CorpusSet("xnli", canonical(code), split, str(f), str(en), "xnli"))
    return out


BIBLE_VERSIONS = ("ASV", "BBE", "DARBY", "KJV", "WEB", "YLT")


def _bible(root: Path) -> list[CorpusSet]:
    have = [v for v in BIBLE_VERSIONS if (root / f"{v}.tsv.gz").is_file()]
    return [CorpusSet("bible-versions", "en", f"{a}-{b}", str(root / f"{a}.tsv.gz"),
                      str(root / f"{b}.tsv.gz"), "bible")
            for a, b in itertools.combinations(have, 2)]


CORPORA: dict[str, Corpus] = {c.name: c for c in (
    Corpus("wmt-news", "bitext/wmt-news", "bitext",
           "WMT news test sets 2008-2021 into English", "WMT terms (research use)", _wmt),
    Corpus("tatoeba-challenge", "bitext/tatoeba-challenge", "bitext",
           "Tatoeba Translation Challenge test sets v2021-08-07", "CC BY 2.0 FR",
           _tatoeba_challenge),
    Corpus("ntrex-128", "bitext/ntrex-128", "bitext",
           "NTREX-128: WMT19 English news with references in 127 languages (multi-parallel)",
           "CC BY-SA 4.0", _ntrex),
    Corpus("tico-19", "bitext/tico-19", "bitext",
           "TICO-19 COVID-19 translation memories (multi-parallel)", "CC0 1.0", _tico),
    Corpus("multi30k", "bitext/multi30k", "bitext",
           "Multi30k task 1 train and val image captions", "research, non-commercial",
           _multi30k),
    Corpus("xnli", "bitext/xnli", "bitext", "XNLI dev and test premises and hypotheses",
           "CC BY-NC 4.0", _xnli),
    Corpus("bible-versions", "paraphrase/bible-versions", "paraphrase",
           "the same verse in 6 English Bible versions (15 version pairs)", "public domain",
           _bible),
)}


def select_sets(name: str, langs: list[str] | str, sets: list[str] | None,
                data: Path) -> list[CorpusSet]:
    """The file pairs of corpus ``name`` in languages ``langs`` (``"all"`` for every one).

    ``sets`` keeps only the named sets (regular expressions matched whole, e.g.
    ``newstest201[0-8]``). Raises :class:`CorpusError` naming the valid choices for an
    unknown corpus, language or set.
    """
    if name not in CORPORA:
        raise CorpusError(f"unknown corpus '{name}'; valid: {', '.join(sorted(CORPORA))}")
    avail = CORPORA[name].sets(data)
    if not avail:
        raise CorpusError(f"corpus '{name}': no files under {data / CORPORA[name].folder}")
    have = sorted({s.lang for s in avail})
    if langs != "all":
        wanted = [langs] if isinstance(langs, str) else list(langs)
        for lang in wanted:
            canonical(lang)  # a malformed code is named as such
            if not any(matches(lang, h) for h in have):
                raise CorpusError(f"corpus '{name}' has no language '{lang}'; valid: "
                                  f"{', '.join(have)}")
        avail = [s for s in avail if any(matches(w, s.lang) for w in wanted)]
    if sets:
        names = sorted({s.set for s in avail})
        for pattern in sets:
            if not any(re.fullmatch(pattern, n) for n in names):
                raise CorpusError(f"corpus '{name}' has no set matching '{pattern}' in the "
                                  f"chosen languages; valid: {', '.join(names)}")
        avail = [s for s in avail if any(re.fullmatch(p, s.set) for p in sets)]
    return avail
