"""Readers of the evaluation sets in the shared data, exactly as the files are.

Quirks handled here (see ``../shared/data/README.md``): STS 2012-2016 gold files have blank
lines for unscored pairs (dropped) and integer or decimal scores; the STS 2017 tr-en input has
500 lines of which only the first 250 are scored; the extended STS 2017 sets (de/fr/it/nl-en)
carry the score in a third column instead of a gold file; STS Benchmark lines may carry extra
columns (read with quoting off, fields 5-7 used); MSRPC files have a byte-order mark, CRLF
line ends and a header; BUCC 2018 sets are read straight from their ``.tar.bz2``.

Every reader raises :class:`MissingDataError` naming the file and the folder it looked in.
"""

from __future__ import annotations

import gzip
import itertools
import tarfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from paralib.errors import MissingError


class MissingDataError(MissingError, FileNotFoundError):
    """An evaluation file is not in the data folder."""

    def __init__(self, path: Path, what: str):
        self.path = Path(path)
        self.what = what
        super().__init__(f"{what}: file {self.path.name} not found (looked in {self.path.parent})")


@dataclass
class Pairs:
    """Sentence pairs with a gold score (STS) or label (detection), in file order."""

    name: str
    a: list[str]
    b: list[str]
    gold: np.ndarray
    lang_a: str = "en"
    lang_b: str = "en"
    files: list[str] = field(default_factory=list)
    dropped: int = 0

    def __len__(self) -> int:
        return len(self.a)


class Aligned(NamedTuple):
    """Line-aligned sentences of another language and English, and the files read."""

    other: list[str]
    english: list[str]
    files: list[str]


class Sentences(NamedTuple):
    """Sentences of one language (a neighbours corpus) and the files read."""

    texts: list[str]
    files: list[str]


def _need(path: Path, what: str) -> Path:
    if not path.is_file():
        raise MissingDataError(path, what)
    return path


def _lines(path: Path, what: str) -> list[str]:
    """Lines of a UTF-8 text file without BOM or line ends (CRLF included)."""
    text = _need(path, what).read_text(encoding="utf-8-sig")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def _score(value: str) -> float:
    value = value.strip()
    return float(value) if value else float("nan")


def _scored(name: str, rows: list[tuple[str, str]], scores: list[float], files: list[Path],
            lang_a: str = "en", lang_b: str = "en") -> Pairs:
    gold = np.asarray(scores, dtype=float)
    keep = np.flatnonzero(~np.isnan(gold))
    return Pairs(name, [rows[i][0] for i in keep], [rows[i][1] for i in keep], gold[keep],
                 lang_a, lang_b, [str(f) for f in files], dropped=len(rows) - len(keep))


def _fields(lines: list[str], path: Path, least: int, expected: str, first: int = 1
            ) -> list[list[str]]:
    """The tab-separated fields of every line (numbered from ``first``), at least ``least``."""
    rows = [line.split("\t") for line in lines]
    for n, parts in enumerate(rows, first):
        if len(parts) < least:
            raise ValueError(f"{path}:{n}: expected {expected}")
    return rows


def _two_columns(lines: list[str], path: Path) -> list[tuple[str, str]]:
    return [(p[0], p[1]) for p in _fields(lines, path, 2, "two tab-separated sentences")]


# STS 2012-2016 test sets (2018 §5.1); 2013 SMT is not distributed (LDC licence)
STS_YEARS: dict[int, tuple[str, ...]] = {
    2012: ("MSRpar", "MSRvid", "SMTeuroparl", "surprise.OnWN", "surprise.SMTnews"),
    2013: ("FNWN", "OnWN", "headlines"),
    2014: ("deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news"),
    2015: ("answers-forums", "answers-students", "belief", "headlines", "images"),
    2016: ("answer-answer", "headlines", "plagiarism", "postediting", "question-question"),
}


def _sts_files(data: Path, year: int, dataset: str) -> tuple[Path, Path]:
    folder = data / "sts" / f"STS{year % 100}-en-test"
    return folder / f"STS.input.{dataset}.txt", folder / f"STS.gs.{dataset}.txt"


def read_sts_input(data: Path, year: int, dataset: str) -> list[tuple[str, str]]:
    """Every sentence pair of an STS 2012-2016 set's ``STS.input.<set>.txt``, scored or not."""
    inp, _ = _sts_files(data, year, dataset)
    return _two_columns(_lines(inp, f"STS {year} {dataset}"), inp)


def read_sts(data: Path, year: int, dataset: str) -> Pairs:
    """One STS 2012-2016 set: ``STS.input.<set>.txt`` with ``STS.gs.<set>.txt``; pairs whose
    gold line is blank are unscored and dropped."""
    inp, gs = _sts_files(data, year, dataset)
    rows = read_sts_input(data, year, dataset)
    gold = _lines(gs, f"STS {year} {dataset}")
    if len(gold) != len(rows):
        raise ValueError(f"{gs}: {len(gold)} gold lines for {len(rows)} pairs in {inp}")
    return _scored(dataset.removeprefix("surprise."), rows, [_score(g) for g in gold], [inp, gs])


def read_stsb(data: Path, split: str) -> Pairs:
    """STS Benchmark ``sts-<split>.csv``: tab separated, quoting off; fields genre, file,
    year, id, score, s1, s2 and sometimes two source columns more."""
    path = data / "sts" / "stsbenchmark" / f"sts-{split}.csv"
    fields = _fields(_lines(path, f"STS Benchmark {split}"), path, 7,
                     "at least 7 tab-separated fields")
    return _scored(split, [(p[5], p[6]) for p in fields], [_score(p[4]) for p in fields], [path])


def read_sick(data: Path, split: str) -> Pairs:
    """SICK ``SICK_<split>.txt`` (header; pair_ID, sentence_A, sentence_B, relatedness_score,
    entailment_judgment): relatedness 1-5."""
    path = data / "sts" / "sick2014" / f"SICK_{split}.txt"
    lines = _lines(path, f"SICK {split}")
    head = lines[0].split("\t")
    ia, ib, isc = (head.index(c) for c in ("sentence_A", "sentence_B", "relatedness_score"))
    fields = [line.split("\t") for line in lines[1:]]
    return _scored(split, [(p[ia], p[ib]) for p in fields], [_score(p[isc]) for p in fields],
                   [path])


# STS 2017 (2019 §3.3, Table 2): track -> (file stem, language of column 1, of column 2)
STS17_TRACKS: dict[str, tuple[str, str, str]] = {
    "ar-ar": ("track1.ar-ar", "ar", "ar"),
    "ar-en": ("track2.ar-en", "en", "ar"),
    "es-es": ("track3.es-es", "es", "es"),
    "es-en": ("track4a.es-en", "es", "en"),
    "es-en (b)": ("track4b.es-en", "en", "es"),
    "en-en": ("track5.en-en", "en", "en"),
    "tr-en": ("track6.tr-en", "en", "tr"),
}
# extended sets: the en-en pairs with one side translated; the score is the third column
STS17_EXTENDED: dict[str, tuple[str, str, str]] = {
    "de-en": ("extended.de-en", "en", "de"),
    "fr-en": ("extended.fr-en", "fr", "en"),
    "it-en": ("extended.it-en", "it", "en"),
    "nl-en": ("extended.nl-en", "nl", "en"),
}


def read_sts17(data: Path, track: str) -> Pairs:
    """One STS 2017 track. Tracks 1-6 take gold scores from ``STS.gs.<track>.txt``, paired
    with the input lines in order: input lines past the end of the gold file (the last 250 of
    tr-en) or with a blank gold line are unscored and dropped. Extended sets read the score
    from the third column."""
    folder = data / "sts" / "STS17-test"
    extended = track in STS17_EXTENDED
    stem, la, lb = (STS17_EXTENDED if extended else STS17_TRACKS)[track]
    inp = folder / f"STS.input.{stem}.txt"
    what = f"STS 2017 {track}"
    lines = _lines(inp, what)
    rows = _two_columns(lines, inp)
    if extended:
        scores = [_score(p[2]) if len(p) > 2 else float("nan")
                  for p in (line.split("\t") for line in lines)]
        files = [inp]
    else:
        gs = folder / f"STS.gs.{stem}.txt"
        gold = [_score(g) for g in _lines(gs, what)]
        if len(gold) > len(rows):
            raise ValueError(f"{gs}: {len(gold)} gold lines but only {len(rows)} pairs in {inp}")
        scores = gold + [float("nan")] * (len(rows) - len(gold))
        files = [inp, gs]
    return _scored(track, rows, scores, files, la, lb)


def read_paws(data: Path, lang: str, split: str) -> Pairs:
    """PAWS-X ``<split>-<lang>.tsv``: s1, s2, label (1 = paraphrase), no header."""
    path = data / "paraphrase" / "paws-x" / f"{split}-{lang}.tsv"
    rows = _fields(_lines(path, f"PAWS-X {lang} {split}"), path, 3, "s1, s2, label")
    return Pairs(f"{lang}-{split}", [p[0] for p in rows], [p[1] for p in rows],
                 np.asarray([int(p[2]) for p in rows]), lang, lang, [str(path)])


def read_msrpc(data: Path, split: str) -> Pairs:
    """MSRPC ``msr-para-<split>.tsv`` (BOM, CRLF, header; Quality, #1 ID, #2 ID, #1 String,
    #2 String)."""
    path = data / "paraphrase" / "msrpc" / f"msr-para-{split}.tsv"
    rows = _fields(_lines(path, f"MSRPC {split}")[1:], path, 5, "5 tab-separated fields", 2)
    return Pairs(split, [p[3] for p in rows], [p[4] for p in rows],
                 np.asarray([int(p[0]) for p in rows]), "en", "en", [str(path)])


# Tatoeba (LASER) codes with an ISO 639-1 code; the others keep their three letters
ISO3_TO_1 = {
    "afr": "af", "amh": "am", "ara": "ar", "aze": "az", "bel": "be", "ben": "bn", "bos": "bs",
    "bre": "br", "bul": "bg", "cat": "ca", "ces": "cs", "cmn": "zh", "cor": "kw", "cym": "cy",
    "dan": "da", "deu": "de", "ell": "el", "epo": "eo", "est": "et", "eus": "eu", "fao": "fo",
    "fin": "fi", "fra": "fr", "fry": "fy", "gla": "gd", "gle": "ga", "glg": "gl", "heb": "he",
    "hin": "hi", "hrv": "hr", "hun": "hu", "hye": "hy", "ido": "io", "ina": "ia", "ind": "id",
    "isl": "is", "ita": "it", "jav": "jv", "jpn": "ja", "kat": "ka", "kaz": "kk", "khm": "km",
    "kor": "ko", "kur": "ku", "lat": "la", "lit": "lt", "lvs": "lv", "mal": "ml", "mar": "mr",
    "mkd": "mk", "mon": "mn", "nld": "nl", "nob": "nb", "nno": "nn", "oci": "oc", "pes": "fa",
    "pol": "pl", "por": "pt", "ron": "ro", "rus": "ru", "slk": "sk", "slv": "sl", "spa": "es",
    "sqi": "sq", "srp": "sr", "swe": "sv", "swh": "sw", "tam": "ta", "tat": "tt", "tel": "te",
    "tgl": "tl", "tha": "th", "tuk": "tk", "tur": "tr", "uig": "ug", "ukr": "uk", "urd": "ur",
    "uzb": "uz", "vie": "vi", "xho": "xh", "yid": "yi", "zsm": "ms",
}
ISO1_TO_3 = {v: k for k, v in ISO3_TO_1.items()}


def tatoeba_code(lang: str) -> str:
    """The Tatoeba file code of a language (``de`` -> ``deu``)."""
    return ISO1_TO_3.get(lang, lang)


def read_tatoeba(data: Path, lang: str) -> Aligned:
    """Line-aligned ``tatoeba.<xxx>-eng.<xxx>`` and ``.eng``."""
    code = tatoeba_code(lang)
    folder = data / "bitext" / "tatoeba"
    src, eng = folder / f"tatoeba.{code}-eng.{code}", folder / f"tatoeba.{code}-eng.eng"
    xs, es = _lines(src, f"Tatoeba {lang}-en"), _lines(eng, f"Tatoeba {lang}-en")
    if len(xs) != len(es):
        raise ValueError(f"{src} has {len(xs)} lines but {eng} has {len(es)}")
    return Aligned(xs, es, [str(src), str(eng)])


XNLI_LANGS = ("ar", "de", "es", "fr", "tr")


def read_xnli_dev(data: Path, lang: str) -> Aligned:
    """The XNLI dev translations of ``lang`` aligned with English (``dev-<xx>.tsv`` and
    ``dev-en.tsv``, line-aligned premise and hypothesis columns): every distinct sentence
    once, premises and hypotheses alike, in file order.
    A sentence found with more than one partner (on either side) is left out with all its
    pairs, so that each sentence has exactly one translation to retrieve."""
    folder = data / "bitext" / "xnli"
    src, eng = folder / f"dev-{lang}.tsv", folder / "dev-en.tsv"
    what = f"XNLI dev {lang}-en"
    xs_lines, es_lines = _lines(src, what), _lines(eng, what)
    if len(xs_lines) != len(es_lines):
        raise ValueError(f"{src} has {len(xs_lines)} lines but {eng} has {len(es_lines)}")
    pairs: dict[tuple[str, str], None] = {}
    for i, (xl, el) in enumerate(zip(xs_lines, es_lines, strict=True), 1):
        xf, ef = xl.split("\t"), el.split("\t")
        if len(xf) < 2 or len(ef) < 2:
            raise ValueError(f"{src if len(xf) < 2 else eng}, line {i}: expected premise, "
                             "hypothesis and label separated by tabs")
        for x, e in ((xf[0], ef[0]), (xf[1], ef[1])):
            if x.strip() and e.strip():
                pairs.setdefault((x.strip(), e.strip()))
    x_count, e_count = Counter(x for x, _ in pairs), Counter(e for _, e in pairs)
    kept = [(x, e) for x, e in pairs if x_count[x] == 1 and e_count[e] == 1]
    return Aligned([x for x, _ in kept], [e for _, e in kept], [str(src), str(eng)])


@dataclass
class BuccSet:
    """A BUCC 2018 sample-gold set: the two corpora and the gold pairs (as row indices)."""

    pair: str
    src_ids: list[str]
    src: list[str]
    trg_ids: list[str]
    trg: list[str]
    gold: np.ndarray  # (g, 2) rows (source index, target index)
    file: str


def _bucc_corpus(text: str) -> tuple[list[str], list[str]]:
    rows = [line.rstrip("\r").split("\t", 1) for line in text.split("\n") if line]
    return [i for i, _ in rows], [s for _, s in rows]


def read_bucc(data: Path, pair: str) -> BuccSet:
    """``bucc2018-<xx>-en.sample-gold.tar.bz2``: ``<xx>-en.sample.<xx>`` and ``.en`` (id TAB
    sentence) and ``.sample.gold`` (source id TAB target id), read without unpacking."""
    src_lang = pair.split("-")[0]
    path = data / "mining" / "bucc2018" / f"bucc2018-{pair}.sample-gold.tar.bz2"
    _need(path, f"BUCC 2018 {pair}")
    base = f"bucc2018/{pair}/{pair}.sample"
    with tarfile.open(path, "r:bz2") as tf:
        def member(suffix: str) -> str:
            try:
                f = tf.extractfile(f"{base}.{suffix}")
            except KeyError:
                f = None
            if f is None:
                raise MissingDataError(path / f"{base}.{suffix}", f"BUCC 2018 {pair}")
            return f.read().decode("utf-8")

        src_ids, src = _bucc_corpus(member(src_lang))
        trg_ids, trg = _bucc_corpus(member("en"))
        gold_text = member("gold")
    s_index = {k: i for i, k in enumerate(src_ids)}
    t_index = {k: i for i, k in enumerate(trg_ids)}
    gold = [(s_index[s], t_index[t]) for s, t in
            (line.split("\t")[:2] for line in gold_text.split("\n") if line.strip())]
    gold_rows = np.asarray(gold, dtype=np.int64).reshape(-1, 2)
    return BuccSet(pair, src_ids, src, trg_ids, trg, gold_rows, str(path))


def read_gz_lines(path: Path, what: str, limit: int | None = None) -> list[str]:
    """The first ``limit`` lines of a gzipped (or plain) text file."""
    _need(path, what)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8-sig") as f:
        return [line.rstrip("\r\n") for line in itertools.islice(f, limit)]
