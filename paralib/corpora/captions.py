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

from paralib.contracts import StageManifest
from paralib.io.bitext import BitextError
from paralib.io.context import StageContext
from paralib.io.fs import S3Options
from paralib.io.lines import iter_lines
from paralib.io.runner import Plan, StageOutput, held
from paralib.io.shards import write_marker, write_part
from paralib.io.stage import REJECT_SCHEMA, StageReport, fingerprint, finish
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


class CaptionPairs(StageOutput):
    """The caption pairs of ``split`` (the first ``limit`` images), ``shard_rows`` images a
    shard, written in the driver."""

    name, key, unit = STAGE, "--output", "caption pairs"

    def __init__(self, ctx: StageContext, output: str, split: str, limit: int | None,
                 shard_rows: int, corpus: str, overwrite: bool, root: Path | None):
        super().__init__(ctx)
        self.output, self.split, self.limit, self.shard_rows = output, split, limit, shard_rows
        self.corpus, self.overwrite, self.root = corpus, overwrite, root

    def plan(self) -> Plan:
        """Read the five caption files; one shard per ``shard_rows`` images."""
        self.files = caption_files(self.split, self.root)
        self.caps = read_captions(self.files, self.limit)
        images = len(self.caps[0])
        items = {f"{self.corpus}-{s:05d}": {"shard": s, "start": a,
                                           "stop": min(a + self.shard_rows, images)}
                 for s, a in enumerate(range(0, images, self.shard_rows))}
        self.prints = {key: fingerprint([str(f) for f in self.files], self.split, i["start"],
                                        i["stop"], "k,k+1") for key, i in items.items()}
        return Plan(items, self.prints)

    def claimed(self) -> tuple[dict[str, str], dict]:
        """The caption files; the split, limit, shard size and corpus name."""
        return ({f"--split {self.split} caption {k}": str(f) for k, f in enumerate(self.files, 1)},
                {"split": self.split, "limit": self.limit, "shard_rows": self.shard_rows,
                 "corpus": self.corpus})

    def write(self, key: str, item: dict) -> StageManifest:
        """Write one shard (its parts, then its marker) and return its counts."""
        s3 = self.ctx.storage
        rows, rejects = shard_pairs(self.caps, self.corpus, item["shard"], item["start"],
                                    item["stop"])
        if len(rows):
            write_part(self.output, "data", key, pa.Table.from_pandas(
                rows, schema=OUTPUT_SCHEMA, preserve_index=False), s3)
        if len(rejects):
            write_part(self.output, "rejects", key, pa.Table.from_pandas(
                rejects, schema=REJECT_SCHEMA, preserve_index=False), s3)
        counts = StageManifest(
            rows_in=len(rows) + len(rejects), rows_out=len(rows), rows_rejected=len(rejects),
            hypotheses=len(rows), reasons={str(r): int(n) for r, n in
                                           rejects["reason"].value_counts().items()},
            fingerprint=self.prints[key], stage=STAGE)
        write_marker(self.output, key, counts, s3)
        return counts


def write_caption_pairs(output: str, split: str = "train", limit: int | None = None,
                        shard_rows: int = 5000, corpus: str = CORPUS,
                        overwrite: bool = False, s3: S3Options | None = None,
                        root: Path | None = None,
                        stall_s: float | None = None) -> StageReport:
    """Write the caption pairs of ``split`` (the first ``limit`` images) to ``output``.

    The output is claimed first (:func:`paralib.io.ownership.claim`: not another stage's,
    not other captions' without ``overwrite``, one writer at a time). The shards are written
    in a worker thread: when one takes longer than ``stall_s`` seconds
    (``ray.stall_timeout_s``: an S3 store that stopped answering, a hung network disk) the
    stage fails with :class:`paralib.runtime.StallError` naming the shards that are
    complete; ``None`` waits forever."""
    from paralib.runtime import watch

    t0 = time.perf_counter()
    stage = CaptionPairs(StageContext(storage=s3), output, split, limit, shard_rows, corpus,
                         overwrite, root)
    plan = stage.plan()
    done: list[StageReport] = []

    def shards() -> Iterator[StageManifest]:
        """Each pending shard's counts; the summary last, while the output is still held."""
        with held(stage, plan) as (report, keys):
            for key in keys:
                counts = stage.write(key, plan.items[key])
                report.add(counts)
                yield counts
            done.append(finish(report, s3, t0))

    written: list[StageManifest] = []
    for counts in watch(shards(), stall_s, "captions",
                        lambda: f"{len(written)} of {len(plan.items)} shards written by this run",
                        why="writing its output does not return (an S3 store that accepts "
                        "connections but does not answer, a hung network disk)"):
        written.append(counts)
    return done[0]
