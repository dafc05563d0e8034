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
- ``bibles``: the verse-aligned multi-parallel Bible (``bitext/bibles``): each translation
  (its "set" is the file's id, ``ara-svd``, ``spa-rv1909``) with one English version, the
  pivot (default ``eng-webp``, :data:`BIBLE_PIVOT`). Line i of every file is verse i of
  ``vref.txt``; an empty line is a verse the translation lacks (read as a counted reject), and
  a file with another line count is an error. Arabic-script files have their vowel marks and
  tatweel stripped unless ``strip_arabic_marks: false``.
- ``bibles-en``: English paraphrases, the same verse in the 7 English versions of
  ``bitext/bibles``; its sets are the 21 version pairs (``bsb-webp``, ...).
- ``un-testsets``: the UN Parallel Corpus dev and test sets (ar, es, fr, ru, zh), 6-way parallel.
- ``pud``: the Parallel Universal Dependencies test sentences in 8 languages, 9-way parallel.

In the last four, line i of every file is one sentence in all its translations: each input
carries a ``line_group`` so that line i of every language is one group (positives of each
other, never negatives), ``bibles`` and ``bibles-en`` sharing one.

The LASER Tatoeba test sets (``bitext/tatoeba``) are an evaluation set and not a corpus here.
"""

from __future__ import annotations

import csv
import gzip
import itertools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
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
    # multi-parallel corpora: line i of every file with this line group is one sentence
    line_group: str | None = None
    arabic_script: bool = False  # text with Arabic vowel marks to strip (bibles' ara-svd)


@dataclass(frozen=True)
class Corpus:
    """A named corpus: its folder, what it is, and how to list its file pairs."""

    name: str
    folder: str
    kind: str  # "bitext" or "paraphrase"
    about: str
    licence: str
    lister: Callable[[Path], list[CorpusSet]]
    # the English versions a multi-parallel corpus can pair against (``pivot``), its default
    pivots: Callable[[Path], list[str]] | None = None
    default_pivot: str | None = None
    # checks the chosen sets' files (line counts), raising :class:`CorpusError`
    check: Callable[[Path, list[CorpusSet]], None] | None = None

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


BIBLE_PIVOT = "eng-webp"


def _bible_files(root: Path) -> dict[str, dict[str, str]]:
    """``{file id: row of translations.tsv}`` of the Bible files present (``eng-webp``: ...);
    without ``translations.tsv``, every ``*.txt.gz`` with its language from its name."""
    rows: dict[str, dict[str, str]] = {}
    table = root / "translations.tsv"
    if table.is_file():
        with table.open(encoding="utf-8", newline="") as f:
            rows = {row["file"].removesuffix(".txt.gz"): row
                    for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)}
    tids = [f.name.removesuffix(".txt.gz") for f in sorted(root.glob("*.txt.gz"))]
    return {t: rows.get(t, {"lang": t.split("-", 1)[0], "script": ""}) for t in tids}


def _english_bibles(root: Path) -> list[str]:
    return [t for t, row in _bible_files(root).items() if canonical(row["lang"]) == "en"]


def _bibles(root: Path) -> list[CorpusSet]:
    en = str(root / f"{BIBLE_PIVOT}.txt.gz")
    return [CorpusSet("bibles", canonical(row["lang"]), tid, str(root / f"{tid}.txt.gz"), en,
                      code=row["lang"], line_group="bibles",
                      arabic_script=row.get("script") == "Arab")
            for tid, row in _bible_files(root).items() if canonical(row["lang"]) != "en"]


def _bibles_en(root: Path) -> list[CorpusSet]:
    names = _english_bibles(root)
    return [CorpusSet("bibles-en", "en", f"{a.removeprefix('eng-')}-{b.removeprefix('eng-')}",
                      str(root / f"{a}.txt.gz"), str(root / f"{b}.txt.gz"), line_group="bibles")
            for a, b in itertools.combinations(sorted(names), 2)]


@lru_cache(maxsize=512)
def _line_count(path: str, size: int, mtime_ns: int) -> int:
    """Lines of a (gzipped) text file; ``size`` and ``mtime_ns`` key the cache."""
    opener = gzip.open if path.endswith(".gz") else open
    n, last = 0, b"\n"
    with opener(path, "rb") as f:
        while chunk := f.read(1 << 20):
            n += chunk.count(b"\n")
            last = chunk[-1:]
    return n + (last != b"\n")


def line_count(path: str) -> int:
    """Lines of a (gzipped) text file, a last line without a newline included."""
    st = Path(path).stat()
    return _line_count(path, st.st_size, st.st_mtime_ns)


def _check_verses(root: Path, sets: list[CorpusSet]) -> None:
    """Every chosen Bible file has one line per ``vref.txt`` line (its verse numbering)."""
    vref = root / "vref.txt"
    if not vref.is_file():
        raise CorpusError(f"corpus 'bibles': {vref} not found; expected the verse list that "
                          "numbers the lines of every translation")
    want = line_count(str(vref))
    for s in sets:
        for path, lang in ((s.src, s.lang), (s.en, "en")):
            got = line_count(path)
            if got != want:
                raise CorpusError(
                    f"corpus '{s.corpus}', language '{lang}': {path} has {got:,} lines; expected "
                    f"{want:,}, one per verse of {vref} (its verse numbering differs: "
                    "re-align it to vref.txt, an empty line for a verse it lacks)")


def _un(root: Path) -> list[CorpusSet]:
    out = []
    for split in ("devset", "testset"):
        en = root / f"{split}.en.gz"
        for f in sorted(root.glob(f"{split}.*.gz")):
            code = f.name.split(".")[1]
            if code != "en" and en.is_file():
                out.append(CorpusSet("un-testsets", canonical(code), split, str(f), str(en),
                                     code=code, line_group=f"un-testsets.{split}"))
    return out


def _pud(root: Path) -> list[CorpusSet]:
    en = root / "eng.txt.gz"
    return [CorpusSet("pud", canonical(f.name.removesuffix(".txt.gz")), "pud", str(f), str(en),
                      code=f.name.removesuffix(".txt.gz"), line_group="pud")
            for f in sorted(root.glob("*.txt.gz")) if f.name != "eng.txt.gz" and en.is_file()]


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
    Corpus("bibles", "bitext/bibles", "bitext",
           "verse-aligned Bible translations in 114 languages with one English version "
           f"(default {BIBLE_PIVOT}; multi-parallel; Arabic vowel marks stripped by default)",
           "public domain, CC BY-SA 4.0, CC BY 4.0 (per file: translations.tsv)", _bibles,
           pivots=_english_bibles, default_pivot=BIBLE_PIVOT, check=_check_verses),
    Corpus("bibles-en", "bitext/bibles", "paraphrase",
           "the same verse in 7 English Bible versions (21 version pairs)",
           "public domain, CC BY-SA 4.0, CC BY 4.0 (per file: translations.tsv)", _bibles_en,
           check=_check_verses),
    Corpus("un-testsets", "bitext/un-testsets", "bitext",
           "UN Parallel Corpus v1.0 dev and test sets (6-way parallel)",
           "UN Parallel Corpus terms (DISCLAIMER)", _un),
    Corpus("pud", "bitext/pud", "bitext",
           "Parallel Universal Dependencies test sentences, news and Wikipedia (9-way parallel)",
           "CC BY-SA 3.0", _pud),
)}


def select_sets(name: str, langs: list[str] | str, sets: list[str] | None,
                data: Path, pivot: str | None = None) -> list[CorpusSet]:
    """The file pairs of corpus ``name`` in languages ``langs`` (``"all"`` for every one).

    ``sets`` keeps only the named sets (regular expressions matched whole, e.g.
    ``newstest201[0-8]``); ``pivot`` is the English version of a multi-parallel corpus that
    has several (``bibles``: ``eng-bsb``, ...). Raises :class:`CorpusError` naming the valid
    choices for an unknown corpus, language, set or pivot, and for files the corpus' check
    refuses (a Bible translation whose lines are not the verses of ``vref.txt``).
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
    corpus = CORPORA[name]
    root = data / corpus.folder
    if pivot is not None:
        choices = corpus.pivots(root) if corpus.pivots else []
        if not choices:
            raise CorpusError(f"corpus '{name}' has no choice of English version: leave "
                              f"'pivot' out (it applies to: "
                              f"{', '.join(n for n, c in CORPORA.items() if c.pivots)})")
        if pivot not in choices:
            raise CorpusError(f"corpus '{name}' has no English version '{pivot}'; valid: "
                              f"{', '.join(choices)}")
        avail = [replace(s, en=str(root / f"{pivot}.txt.gz")) for s in avail]
    if corpus.check:
        corpus.check(root, avail)
    return avail
