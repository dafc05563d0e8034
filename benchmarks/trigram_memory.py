"""Encoding time of the TRIGRAM tokeniser with and without its memory of words' trigram ids
(``TrigramTokenizer.encode``, 2018 §4's character trigrams).

Training encodes every sentence several times per epoch (mining, the step, the negatives), and
words repeat far more than sentences, so the tokeniser remembers each word's trigram ids.
This script fits the tokeniser (vocabulary 200,000, the papers' size, capped by the data) on
``--sentences`` (100,000) English sentences (those of ``benchmarks/encode.py``: Multi30k,
XNLI, Multi30k task-2 captions) and encodes them in batches of 100, as a training step does:

- ``plain``: ``VocabTokenizer.encode``, the trigrams of every word of every sentence looked up
  each time (what the tokeniser did before it had a memory);
- ``cold``: ``TrigramTokenizer.encode`` with its memory emptied first (the first epoch);
- ``warm``: the same again, every word already remembered (every later encoding).

The three alternate ``--rounds`` (3) times so that load from other work falls on all of them;
the table gives the median seconds and each one's ratio to ``plain``. The ids of all three are
checked to be identical. Writes ``benchmarks/results/trigram_memory.json``.

    python -m benchmarks trigram_memory [--sentences 100000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from benchmarks.common import table, write_json
from benchmarks.encode import english_sentences

BATCH = 100


def timed(encode, sents: list[str]) -> tuple[float, list[list[int]]]:
    """Seconds to encode ``sents`` in batches of :data:`BATCH`, and the ids."""
    out: list[list[int]] = []
    start = time.perf_counter()
    for i in range(0, len(sents), BATCH):
        out += encode(sents[i:i + BATCH])
    return time.perf_counter() - start, out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sentences", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    from paralib.models.tokenizers.base import VocabTokenizer
    from paralib.models.tokenizers.trigram import TrigramTokenizer

    sents, sources, cycled = english_sentences(args.sentences)
    tok = TrigramTokenizer(200_000).fit(sents)
    times: dict[str, list[float]] = {"plain": [], "cold": [], "warm": []}
    for _ in range(args.rounds):
        t, plain = timed(lambda b: VocabTokenizer.encode(tok, b), sents)
        times["plain"].append(t)
        tok._words = {}  # forget every word: the first epoch's encoding
        t, cold = timed(tok.encode, sents)
        times["cold"].append(t)
        t, warm = timed(tok.encode, sents)
        times["warm"].append(t)
        if not plain == cold == warm:
            raise SystemExit("the remembered ids differ from the looked-up ones")
    words = len(tok._words)
    base = statistics.median(times["plain"])
    rows = [{"encoding": name, "seconds": round(statistics.median(ts), 3),
             "sentences_per_s": round(len(sents) / statistics.median(ts)),
             "ratio_to_plain": round(base / statistics.median(ts), 2)}
            for name, ts in times.items()]
    print(table(rows, ["encoding", "seconds", "sentences_per_s", "ratio_to_plain"]))
    print(f"{len(sents):,} sentences, vocabulary {tok.size:,}, {words:,} words remembered")
    path = write_json("trigram_memory", {
        "args": vars(args), "sources": sources, "cycled": cycled,
        "vocabulary": tok.size, "words_remembered": words, "identical_ids": True,
        "load_average_at_end": os.getloadavg()[0], "rows": rows})
    print(f"wrote {path}")
