"""Multi30k task-2 caption pairs as a corpus to score and select (2017 §5.3-5.7).

The 2017 paper puts SimpWiki, human-written paraphrase pairs, through the same length
ranges (§5.5, Tables 5-6) and overlap and BLEU filters (§5.7, Table 12) as its
back-translated pairs. Here the five English captions written independently for each
Multi30k image (task 2) play that role: this module writes caption pairs in the
back-translation output schema, so that ``paralib score`` and ``paralib select`` handle them
exactly as candidate pairs.

Rows (the schema of :data:`paralib.translate.stages.OUTPUT_SCHEMA`):

- ``id`` ``<corpus>:<shard>:<line>:<k>``: ``line`` is the image's line in the caption files
  (from 1), ``k`` = 1..4 pairs caption ``k`` with caption ``k + 1`` (the pairs of the
  ``captions`` training source);
- ``corpus``, ``src_lang`` (``en``), ``src`` null (no source sentence), ``ref`` caption ``k``,
  ``trans`` caption ``k + 1``, ``rank`` 0, ``cost`` null (no translation cost: leave the
  ``cost`` scorer out, it would reject every row as ``cost is NaN``).

A pair with an undecodable or empty caption is a reject with the reason. The output layout
is every stage's (``data/``, ``rejects/``, ``_markers/``, ``_summary.json``; a shard is
``shard_rows`` images), so a rerun skips finished shards. It runs in the driver: reading the
captions and writing 116,000 pairs takes seconds, no Ray needed.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow as pa

from paralib.io.bitext import BitextError
from paralib.io.fs import S3Options
from paralib.io.lines import iter_lines
from paralib.io.ownership import claim
from paralib.io.shards import write_marker, write_part
from paralib.io.stage import (
    REJECT_SCHEMA,
    StageReport,
    fingerprint,
    finish,
    pending,
)
from paralib.paths import data_root
from paralib.translate.stages import OUTPUT_SCHEMA

TASK2 = "bitext/multi30k/task2/raw"
SPLITS = ("train", "val", "test_2016")
PER_IMAGE = 5
CORPUS = "multi30k-captions"
STAGE = "captions"  # the command: it names the stage in the markers and the output marker


def caption_files(split: str, root: Path | None = None) -> list[Path]:
    """The five English caption files of ``split``; a missing one is a :class:`BitextError`."""
    base = (root or data_root()) / TASK2
    files = [base / f"{split}.{k}.en.gz" for k in range(1, PER_IMAGE + 1)]
    for f in files:
        if not f.is_file():
            raise BitextError(f"captions: {f.name} not found in {base} (split '{split}')")
    return files


def read_captions(files: list[Path], limit: int | None = None) -> list[list[bytes]]:
    """The raw lines of each caption file (the first ``limit`` images); files of different
    line counts are a :class:`BitextError`."""
    caps = [list(itertools.islice(iter_lines(str(f)), limit)) for f in files]
    counts = [len(c) for c in caps]
    if len(set(counts)) != 1:
        raise BitextError("captions: the caption files differ in line count ("
                          + ", ".join(f"{f.name} {n}" for f, n in zip(files, counts, strict=True))
                          + ")")
    return caps


def _text(raw: bytes, k: int) -> tuple[str, str, str]:
    """``(caption, '', '')`` or ``('', reason, detail)`` for caption ``k`` of an image."""
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        return "", f"undecodable bytes in caption {k}", f"utf-8: {exc.reason} at byte " \
            f"{exc.start}"
    return (text, "", "") if text else ("", f"empty caption {k}", "")


def shard_pairs(caps: list[list[bytes]], corpus: str, shard: int, start: int,
                stop: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pairs and rejects of images ``[start, stop)`` (0-based), as two DataFrames."""
    from paralib.io.bitext import group_ids

    rows, rejects = [], []
    groups = group_ids([f"{corpus}:image:{i + 1}" for i in range(start, stop)]).tolist()
    for i, group in zip(range(start, stop), groups, strict=True):  # the captions of one image
        line = i + 1
        texts = [_text(caps[j][i], j + 1) for j in range(PER_IMAGE)]
        for k in range(1, PER_IMAGE):
            (ref, why_a, detail_a), (trans, why_b, detail_b) = texts[k - 1], texts[k]
            pair_id = f"{corpus}:{shard:05d}:{line}:{k}"
            if why_a or why_b:
                raw = "\t".join(c[i].decode("utf-8", errors="replace")[:200]
                                for c in (caps[k - 1], caps[k]))
                rejects.append({"id": pair_id, "corpus": corpus, "src_lang": "en",
                                "line": line, "reason": why_a or why_b,
                                "detail": detail_a if why_a else detail_b, "raw": raw})
            else:
                rows.append({"id": pair_id, "corpus": corpus, "src_lang": "en", "src": None,
                             "ref": ref, "trans": trans, "rank": 0, "cost": None, "set": "task2",
                             "group": group})
    return (pd.DataFrame(rows, columns=OUTPUT_SCHEMA.names),
            pd.DataFrame(rejects, columns=REJECT_SCHEMA.names))


def _write(caps: list[list[bytes]], corpus: str, ranges: dict[str, tuple[int, int, int]],
           prints: dict[str, str], output: str, s3: S3Options | None,
           report: StageReport) -> Iterator[dict]:
    """Write each shard of ``ranges`` without a marker (its parts, then its marker) and
    yield its counts."""
    for key in pending(list(ranges), output, s3, report, prints):
        shard, start, stop = ranges[key]
        rows, rejects = shard_pairs(caps, corpus, shard, start, stop)
        if len(rows):
            write_part(output, "data", key, pa.Table.from_pandas(
                rows, schema=OUTPUT_SCHEMA, preserve_index=False), s3)
        if len(rejects):
            write_part(output, "rejects", key, pa.Table.from_pandas(
                rejects, schema=REJECT_SCHEMA, preserve_index=False), s3)
        counts = {"rows_in": len(rows) + len(rejects), "rows_out": len(rows),
                  "rows_rejected": len(rejects), "hypotheses": len(rows),
                  "reasons": {str(r): int(n)
                              for r, n in rejects["reason"].value_counts().items()},
                  "fingerprint": prints[key], "stage": STAGE}
        write_marker(output, key, counts, s3)
        yield counts


def write_caption_pairs(output: str, split: str = "train", limit: int | None = None,
                        shard_rows: int = 5000, corpus: str = CORPUS,
                        overwrite: bool = False, s3: S3Options | None = None,
                        root: Path | None = None,
                        stall_s: float | None = None) -> StageReport:
    """Write the caption pairs of ``split`` (the first ``limit`` images) to ``output``.

    The shards are written in a worker thread: when one takes longer than ``stall_s``
    seconds (``ray.stall_timeout_s``: an S3 store that stopped answering, a hung network
    disk) the stage fails with :class:`paralib.runtime.StallError` naming the shards that are
    complete; ``None`` waits forever."""
    from paralib.runtime import watch

    t0 = time.perf_counter()
    files = caption_files(split, root)
    caps = read_captions(files, limit)
    images = len(caps[0])
    ranges = {f"{corpus}-{s:05d}": (s, a, min(a + shard_rows, images))
              for s, a in enumerate(range(0, images, shard_rows))}
    prints = {key: fingerprint([str(f) for f in files], split, start, stop, "k,k+1")
              for key, (_, start, stop) in ranges.items()}
    report = StageReport(output=output, unit="caption pairs", shards=len(ranges),
                         stage=STAGE)
    inputs = {f"--split {split} caption {k}": str(f) for k, f in enumerate(files, 1)}
    made = {"split": split, "limit": limit, "shard_rows": shard_rows, "corpus": corpus}

    def shards() -> Iterator[dict]:
        """Claim the output (:func:`paralib.io.ownership.claim`: not another stage's, not
        other captions' without ``overwrite``, one writer at a time), write each pending
        shard (its parts, then its marker) and yield its counts; the summary last, while
        the output is still held."""
        with claim(output, STAGE, inputs, made, s3, overwrite, key="--output"):
            for counts in _write(caps, corpus, ranges, prints, output, s3, report):
                report.add(counts)
                yield counts
            finish(report, s3, t0)

    written: list[dict] = []

    def where() -> str:
        return f"{len(written)} of {len(ranges)} shards written by this run"

    for counts in watch(shards(), stall_s, "captions", where,
                        why="writing its output does not return (an S3 store that accepts "
                        "connections but does not answer, a hung network disk)"):
        written.append(counts)
    return report
