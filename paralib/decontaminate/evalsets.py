"""Every sentence of every evaluation set, read with :mod:`paralib.evaluate.loaders`
(2019 §3: no training pair may share a side with an evaluation set).

One name per evaluation family (:data:`EVAL_SETS`), each with every split and both sides,
whatever the language, and *every* line of the STS input files, scored or not (an unscored
pair is still a sentence the evaluation shows the model):

- ``sts2012`` .. ``sts2016``: the ``STS.input.<set>.txt`` files of
  :data:`~paralib.evaluate.loaders.STS_YEARS` (2013 SMT is not distributed: not evaluated);
- ``stsb``: STS Benchmark train, dev and test;
- ``sick``: every ``SICK_<split>.txt`` present (train and trial);
- ``sts2017``: tracks 1-6 and the extended de/fr/it/nl-en sets, all 500 lines of tr-en;
- ``tatoeba``: the LASER Tatoeba test sets of :data:`TATOEBA_CODES` (112 languages), both sides;
- ``bucc2018``: both corpora of the de-en and fr-en sample-gold sets (all sentences are mined);
- ``paws-x``: dev and test of every language (en, de, es, fr and any other file present);
- ``msrpc``: train, val and test;
- ``multi30k-test``: the task1 raw test sets (2016 flickr, 2017 flickr and mscoco, 2018
  flickr) in every language present, which the translation models are scored on.

A set whose files are missing is reported, never silently skipped: :func:`missing_sets` names
the first file each incomplete set lacks, and :func:`eval_sentences` records every source it
could not read into the ``missing`` dict it is given. The STS 2016 ``.ascii`` copies and the
``sts2012-*.tgz``/``sts2013-test.tgz`` archives are not read: evaluation does not use them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from paralib.evaluate.bucc import PAIRS as BUCC_PAIRS
from paralib.evaluate.detection import PAWS_LANGS
from paralib.evaluate.loaders import (
    STS17_EXTENDED,
    STS17_TRACKS,
    STS_YEARS,
    MissingDataError,
    Pairs,
    _lines,
    _sts_files,
    _two_columns,
    read_bucc,
    read_gz_lines,
    read_msrpc,
    read_paws,
    read_sick,
    read_sts_input,
    read_stsb,
    read_tatoeba,
)

EVAL_SETS: tuple[str, ...] = (
    "sts2012", "sts2013", "sts2014", "sts2015", "sts2016", "stsb", "sick", "sts2017",
    "tatoeba", "bucc2018", "paws-x", "msrpc", "multi30k-test",
)

# The 112 languages of the LASER Tatoeba test sets (Artetxe & Schwenk 2019), as file codes
TATOEBA_CODES: tuple[str, ...] = (
    "afr", "amh", "ang", "ara", "arq", "arz", "ast", "awa", "aze", "bel", "ben", "ber", "bos",
    "bre", "bul", "cat", "cbk", "ceb", "ces", "cha", "cmn", "cor", "csb", "cym", "dan", "deu",
    "dsb", "dtp", "ell", "epo", "est", "eus", "fao", "fin", "fra", "fry", "gla", "gle", "glg",
    "gsw", "heb", "hin", "hrv", "hsb", "hun", "hye", "ido", "ile", "ina", "ind", "isl", "ita",
    "jav", "jpn", "kab", "kat", "kaz", "khm", "kor", "kur", "kzj", "lat", "lfn", "lit", "lvs",
    "mal", "mar", "max", "mhr", "mkd", "mon", "nds", "nld", "nno", "nob", "nov", "oci", "orv",
    "pam", "pes", "pms", "pol", "por", "ron", "rus", "slk", "slv", "spa", "sqi", "srp", "swe",
    "swg", "swh", "tam", "tat", "tel", "tgl", "tha", "tuk", "tur", "tzl", "uig", "ukr", "urd",
    "uzb", "vie", "war", "wuu", "xho", "yid", "yue", "zsm",
)
STSB_SPLITS = ("train", "dev", "test")
SICK_SPLITS = ("train", "trial")
MSRPC_SPLITS = ("train", "val", "test")
PAWS_SPLITS = ("dev", "test")
M30K_TEST = "bitext/multi30k/task1/raw"
# task1 test sets and the languages each exists in (cs only for 2016 and 2018)
M30K_TEST_SETS: dict[str, tuple[str, ...]] = {
    "test_2016_flickr": ("en", "de", "fr", "cs"),
    "test_2017_flickr": ("en", "de", "fr"),
    "test_2017_mscoco": ("en", "de", "fr"),
    "test_2018_flickr": ("en", "de", "fr", "cs"),
}


@dataclass(frozen=True)
class EvalSource:
    """One file (or file pair) of an evaluation set and how to read its sentences."""

    set_name: str
    label: str
    files: tuple[Path, ...]
    read: Callable[[], list[str]]

    def missing_file(self) -> Path | None:
        """The first of :attr:`files` that is not there, or ``None``."""
        return next((f for f in self.files if not f.is_file()), None)


def _both(pairs: Pairs) -> list[str]:
    if pairs.dropped:
        warnings.warn(f"{pairs.name}: {pairs.dropped} unscored pairs were dropped by the "
                      "reader and are not checked", stacklevel=3)
    return [*pairs.a, *pairs.b]


def _flat(rows: list[tuple[str, str]]) -> list[str]:
    return [s for row in rows for s in row]


def _sts_source(data: Path, year: int, dataset: str) -> EvalSource:
    inp, _ = _sts_files(data, year, dataset)
    return EvalSource(f"sts{year}", f"STS {year} {dataset}", (inp,),
                      lambda: _flat(read_sts_input(data, year, dataset)))


def _sts17_source(data: Path, track: str) -> EvalSource:
    stem = {**STS17_TRACKS, **STS17_EXTENDED}[track][0]
    inp = data / "sts" / "STS17-test" / f"STS.input.{stem}.txt"
    # every input line, scored or not (read_sts17 drops the unscored last 250 of tr-en)
    return EvalSource("sts2017", f"STS 2017 {track}", (inp,),
                      lambda: _flat(_two_columns(_lines(inp, f"STS 2017 {track}"), inp)))


def _extra(folder: Path, pattern: str, known: set[str]) -> list[str]:
    """Stems matching ``pattern`` in ``folder`` besides the ``known`` ones, sorted."""
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.glob(pattern) if p.name not in known)


def eval_sources(data: Path) -> list[EvalSource]:
    """Every source of every set of :data:`EVAL_SETS`, in that order."""
    data = Path(data)
    out = [_sts_source(data, year, ds) for year, sets in STS_YEARS.items() for ds in sets]
    stsb = data / "sts" / "stsbenchmark"
    out += [EvalSource("stsb", f"STS Benchmark {s}", (stsb / f"sts-{s}.csv",),
                       lambda s=s: _both(read_stsb(data, s))) for s in STSB_SPLITS]
    sick = data / "sts" / "sick2014"
    sick_known = {f"SICK_{s}.txt" for s in SICK_SPLITS}
    sick_splits = [*SICK_SPLITS, *(n[5:-4] for n in _extra(sick, "SICK_*.txt", sick_known))]
    out += [EvalSource("sick", f"SICK {s}", (sick / f"SICK_{s}.txt",),
                       lambda s=s: _both(read_sick(data, s))) for s in sick_splits]
    out += [_sts17_source(data, t) for t in (*STS17_TRACKS, *STS17_EXTENDED)]
    tat = data / "bitext" / "tatoeba"
    out += [EvalSource("tatoeba", f"Tatoeba {c}-eng",
                       (tat / f"tatoeba.{c}-eng.{c}", tat / f"tatoeba.{c}-eng.eng"),
                       lambda c=c: _tatoeba(data, c))
            for c in TATOEBA_CODES]
    bucc = data / "mining" / "bucc2018"
    out += [EvalSource("bucc2018", f"BUCC 2018 {p}",
                       (bucc / f"bucc2018-{p}.sample-gold.tar.bz2",),
                       lambda p=p: _bucc(data, p)) for p in BUCC_PAIRS]
    paws = data / "paraphrase" / "paws-x"
    paws_known = {f"{s}-{lang}.tsv" for s in PAWS_SPLITS for lang in PAWS_LANGS}
    paws_files = [(s, lang) for s in PAWS_SPLITS for lang in PAWS_LANGS]
    paws_files += [tuple(n[:-4].split("-", 1)) for s in PAWS_SPLITS
                   for n in _extra(paws, f"{s}-*.tsv", paws_known)]
    out += [EvalSource("paws-x", f"PAWS-X {lang} {s}", (paws / f"{s}-{lang}.tsv",),
                       lambda s=s, lang=lang: _both(read_paws(data, lang, s)))
            for s, lang in paws_files]
    msr = data / "paraphrase" / "msrpc"
    out += [EvalSource("msrpc", f"MSRPC {s}", (msr / f"msr-para-{s}.tsv",),
                       lambda s=s: _both(read_msrpc(data, s))) for s in MSRPC_SPLITS]
    m30k = data / M30K_TEST
    m30k_known = {f"{t}.{lang}.gz" for t, langs in M30K_TEST_SETS.items() for lang in langs}
    m30k_files = [m30k / n for n in sorted(m30k_known)]
    m30k_files += [m30k / n for n in _extra(m30k, "test_*.gz", m30k_known)]
    out += [EvalSource("multi30k-test", f"Multi30k {f.name}", (f,),
                       lambda f=f: read_gz_lines(f, f"Multi30k {f.name}")) for f in m30k_files]
    return out


def _tatoeba(data: Path, code: str) -> list[str]:
    xs, es, _ = read_tatoeba(data, code)
    return [*xs, *es]


def _bucc(data: Path, pair: str) -> list[str]:
    bucc = read_bucc(data, pair)
    return [*bucc.src, *bucc.trg]


def eval_files(data: Path) -> dict[str, list[Path]]:
    """The files each evaluation set is read from (present or not), by set name."""
    out: dict[str, list[Path]] = {name: [] for name in EVAL_SETS}
    for src in eval_sources(data):
        out[src.set_name].extend(src.files)
    return out


def missing_sets(data: Path) -> dict[str, str]:
    """Set name -> the first file it looked for and did not find, for every set that lacks a
    file (such a set is checked only against its files that are there, or not at all)."""
    out: dict[str, str] = {}
    for src in eval_sources(data):
        if (gone := src.missing_file()) is not None:
            out.setdefault(src.set_name, str(gone))
    return out


def eval_sentences(data: Path,
                   missing: dict[str, str] | None = None) -> Iterator[tuple[str, str]]:
    """``(set name, sentence)`` for every sentence of every evaluation set, in
    :data:`EVAL_SETS` order, duplicates included.

    A source that cannot be read (a file, or a member of the BUCC archive, is missing) yields
    nothing and is recorded in ``missing`` (set name -> the path looked for), when given; the
    caller reports those sets as not checked. :func:`missing_sets` gives the same without
    reading.
    """
    missing = {} if missing is None else missing
    for src in eval_sources(data):
        gone = src.missing_file()
        if gone is not None:
            missing.setdefault(src.set_name, str(gone))
            continue
        try:
            sentences = src.read()
        except MissingDataError as exc:
            missing.setdefault(src.set_name, str(exc.path))
            continue
        yield from ((src.set_name, sentence) for sentence in sentences)
