"""``paralib corpora``: what the data root holds, by corpus and language, with pair counts
(issue "Bitext at scale", item 1)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from paralib.corpora.registry import CORPORA, CorpusError, CorpusSet, select_sets
from paralib.io.bitext import verse_pairs
from paralib.io.lines import count_lines


def pair_count(s: CorpusSet) -> int:
    """Lines of a file pair (verse keys for Bible versions; each XNLI line is two pairs)."""
    if s.format == "bible":
        return len(verse_pairs((s.src, s.en))[2])
    n, _ = count_lines(s.src)
    return 2 * n if s.format == "xnli" else n


def corpus_counts(names: list[str], data: Path, langs: list[str] | str = "all"
                  ) -> dict[str, dict[str, int]]:
    """``{corpus: {language: pairs}}`` for the named corpora (every one when empty: then a
    corpus without the languages asked for is left out rather than an error)."""
    out: dict[str, dict[str, int]] = {}
    for name in names or sorted(CORPORA):
        per: dict[str, int] = defaultdict(int)
        try:
            sets = select_sets(name, langs, None, data)
        except CorpusError:
            if names:
                raise
            continue
        for s in sets:
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
            for i in range(0, len(items), 8):
                lines.append("    " + ", ".join(items[i:i + 8]))
    total = sum(sum(p.values()) for p in counts.values())
    lines.append(f"{'total':<20} {'':<11} {'':>9} {total:>10,}")
    return "\n".join(lines)
