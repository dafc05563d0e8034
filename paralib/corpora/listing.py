"""``paralib corpora``: what the data root holds, by corpus and language, with pair counts."""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from pathlib import Path

import numpy as np

from paralib.corpora.langs import canonical, matches
from paralib.corpora.registry import CORPORA, CorpusError, CorpusSet, select_sets
from paralib.io.bitext import verse_pairs
from paralib.io.lines import count_lines, iter_lines


@lru_cache(maxsize=16)
def _filled(path: str) -> np.ndarray:
    """Which lines of a file hold text (an empty or blank line is a sentence it lacks)."""
    return np.array([bool(line.strip()) for line in iter_lines(path)], dtype=bool)


def pair_count(s: CorpusSet) -> int:
    """Pairs of a file pair: its lines (verse keys for Bible versions; each XNLI line is two
    pairs); in multi-parallel corpora (``line_group``) the lines with text on both sides, as
    a Bible translation leaves the verses it lacks empty."""
    if s.format == "bible":
        return len(verse_pairs((s.src, s.en))[2])
    if s.line_group:
        src, en = _filled(s.src), _filled(s.en)
        return int((src & en).sum()) if len(src) == len(en) else len(src)
    n, _ = count_lines(s.src)
    return 2 * n if s.format == "xnli" else n


def check_languages(langs: list[str], data: Path) -> None:
    """Raise :class:`CorpusError` for a requested language no corpus has, naming the
    languages the corpora do have."""
    have = sorted({s.lang for c in CORPORA.values() for s in c.sets(data)})
    unknown = [lang for lang in langs if not any(matches(lang, h) for h in have)]
    if unknown:
        raise CorpusError(f"no corpus under {data} has language(s) {', '.join(unknown)}; "
                          f"known ({len(have)}): {', '.join(have)}")


def corpus_counts(names: list[str], data: Path, langs: list[str] | str = "all"
                  ) -> dict[str, dict[str, int]]:
    """``{corpus: {language: pairs}}`` for the named corpora (every one when empty: then a
    corpus without any of the languages asked for, or without files, is left out rather than
    an error). A language no corpus has is a :class:`CorpusError` naming the known ones."""
    if langs != "all":
        for lang in langs:
            canonical(lang)  # a malformed code is named as such
        if not names:
            check_languages(list(langs), data)
    out: dict[str, dict[str, int]] = {}
    for name in names or sorted(CORPORA):
        wanted = langs
        if not names:
            have = {s.lang for s in CORPORA[name].sets(data)}
            if langs != "all":
                wanted = [x for x in langs if any(matches(x, h) for h in have)]
            if not have or not wanted:
                continue
        per: dict[str, int] = defaultdict(int)
        for s in select_sets(name, wanted, None, data):
            per[s.lang] += pair_count(s)
        out[name] = dict(sorted(per.items()))
    return out


def format_counts(counts: dict[str, dict[str, int]], per_language: bool) -> str:
    """A table: one line per corpus (pairs, languages), then its languages when asked."""
    lines = [f"{'corpus':<20} {'kind':<11} {'languages':>9} {'pairs':>10}  about"]
    for name, per in counts.items():
        c = CORPORA[name]
        lines.append(f"{name:<20} {c.kind:<11} {len(per):>9} {sum(per.values()):>10,}  "
                     f"{c.about} ({c.licence})")
        if per_language:
            items = [f"{lang} {n:,}" for lang, n in per.items()]
            lines += ["    " + ", ".join(items[i:i + 8]) for i in range(0, len(items), 8)]
    total = sum(sum(p.values()) for p in counts.values())
    lines.append(f"{'total':<20} {'':<11} {'':>9} {total:>10,}")
    return "\n".join(lines)
