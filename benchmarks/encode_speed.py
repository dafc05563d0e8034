"""Encoding throughput: ``paralib encode`` (Ray Data actors) against the in-process encoder.

The same model (``--model``, default the shipped ``models/paralib-en``) encodes the same
``--n`` (300,000) distinct English sentences of the shared data: the English sides of the
WMT news test sets (every language pair, in file order), then the English sides of the
Tatoeba Challenge test sets, then the verses of the six English Bible versions. They are
written to ``--files`` (8) text files, as a sharded corpus would be.

- **in-process** (the baseline of the target, >= 0.8x): ``paralib.load(model).encode(sentences,
  batch_size=256)`` on the sentences as a list in memory, in this process, torch using every
  core (its default); timed around the ``encode`` call only (reading the files, loading the
  model and writing nothing are left out: the baseline is given its best case).
- **paralib encode**: the Ray Data job (:func:`paralib.encode.pipeline.run`), one actor
  per core (the default), float32 vectors written to Parquet with completion markers. Ray
  is started before the clock starts; the actors' start (loading torch and the model),
  planning, reading, decoding, checking, encoding and writing are all inside the time.
- **in-process, reading and writing** (context, not the target's baseline): the job's own
  per-shard work (:meth:`paralib.encode.actor.EncodeActor.encode_shard`: read, check,
  encode, write the same Parquet parts) over the same files, shard after shard in this
  process, with the model loaded before the clock and torch on every core; no Ray, no
  markers. It is what a user without Ray would run to get the same output, so it is the
  like-for-like comparison; the target keeps the stricter pure-``encode`` baseline.

The in-process run is timed before and after the Ray job, and its rate is the mean of both,
so that a change in the machine's load shows (the JSON keeps both, the 1-minute load
averages around each run and the driver's CPU seconds during the job; with another job on
the 2 cores the numbers mean little, so the script says when the load was high).
The job's rate is also given once its actors are up (:func:`steady_rate`): starting a Ray
Data actor pool (worker processes importing torch and loading the model) is a fixed cost
of a few seconds that a larger corpus spreads thinner.
``OMP_WAIT_POLICY=PASSIVE`` as in ``benchmarks/encode.py``. Writes
``benchmarks/results/encode_speed.json`` (``encode_speed-N.json`` for another ``--n``).

    python -m benchmarks encode_speed [--n 300000] [--files 8] [--dtype float32] [--cycle]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch is loaded

from benchmarks.common import table, write_json
from paralib.paths import data_root, models_root

DEFAULT_N = 300_000
LOADED = 1.5  # a 1-minute load average above this: another job shared the cores


def english_sentences(n: int, cycle: bool = False) -> tuple[list[str], dict[str, int]]:
    """``n`` distinct English sentences and how many each source gave (``cycle``: the
    distinct ones repeated as often as needed, for a corpus larger than the data)."""
    root = data_root()
    bitext = root / "bitext"
    sources = [("wmt-news English sides", sorted((bitext / "wmt-news").glob("*-en/*.en.gz"))),
               ("tatoeba-challenge English sides",
                sorted((bitext / "tatoeba-challenge").glob("*/test.eng.gz"))),
               ("bible-versions verses (text column)",
                sorted((root / "paraphrase" / "bible-versions").glob("*.tsv.gz")))]
    seen: dict[str, None] = {}
    counts: dict[str, int] = {}
    for name, files in sources:
        before = len(seen)
        for path in files:
            with gzip.open(path, "rt", encoding="utf-8") as f:
                for line in f:
                    s = (line.split("\t", 3)[-1] if path.name.endswith(".tsv.gz")
                         else line).strip()
                    if s and len(s) <= 1000:
                        seen.setdefault(s)
            if len(seen) >= n:
                break
        counts[name] = min(len(seen), n) - before
        if len(seen) >= n:
            break
    if len(seen) < n and cycle:
        distinct = list(seen)
        return (distinct * (n // len(distinct) + 1))[:n], {**counts, "repeats": n - len(seen)}
    if len(seen) < n:
        raise SystemExit(f"only {len(seen)} distinct English sentences found; use --n "
                         f"{len(seen)} or less, or --cycle")
    return list(seen)[:n], counts


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line of :func:`main`."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=DEFAULT_N)
    ap.add_argument("--files", type=int, default=8, help="text files the corpus is split into")
    ap.add_argument("--model", default=str(models_root() / "paralib-en"))
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--shard-rows", type=int, default=10_000)
    ap.add_argument("--dtype", default="float32", choices=["float16", "float32"])
    ap.add_argument("--cycle", action="store_true",
                    help="repeat the distinct sentences when --n asks for more")
    ap.add_argument("--quick", action="store_true", help="20,000 sentences")
    return ap.parse_args(argv)


def result_rows(dtype: str, cpus: int, seconds: dict[str, float], rate: dict[str, float]
                ) -> list[dict]:
    """The table's rows: in-process encoding, paralib encode on ``cpus`` actors (and its rate
    once the actors are up), and the in-process run that reads and writes the same Parquet;
    ``seconds`` and ``rate`` by ``in-process``, ``ray``, ``pipeline`` (and ``steady``)."""
    inproc_rate, ray_rate = rate["in-process"], rate["ray"]
    steady, pipeline_rate = rate["steady"], rate["pipeline"]
    threads = f"1 process, torch {encoder_threads()} threads"
    rows = [
        {"system": "in-process paralib.load(...).encode", "workers": threads,
         "seconds": round(seconds["in-process"], 1), "sentences/s": round(inproc_rate),
         "vs in-process": "1.00"},
        {"system": f"paralib encode (Ray Data, {dtype} Parquet)",
         "workers": f"{cpus} actors x 1 thread",
         "seconds": round(seconds["ray"], 1), "sentences/s": round(ray_rate),
         "vs in-process": f"{ray_rate / inproc_rate:.2f}"},
    ]
    rows.append({"system": "  the same, once its actors are up", "workers": rows[-1]["workers"],
                 "seconds": "", "sentences/s": round(steady),
                 "vs in-process": f"{steady / inproc_rate:.2f}"})
    rows.append({"system": "in-process, reading and writing the same Parquet (no Ray)",
                 "workers": threads, "seconds": round(seconds["pipeline"], 1),
                 "sentences/s": round(pipeline_rate),
                 "vs in-process": f"{pipeline_rate / inproc_rate:.2f}"})
    return rows


def write_parts(folder: Path, sents: list[str], files: int) -> None:
    """``sents`` split into ``files`` text files ``part-NN.txt`` of ``folder``, in order."""
    per = -(-len(sents) // files)
    for i in range(files):
        (folder / f"part-{i:02d}.txt").write_text("\n".join(sents[i * per:(i + 1) * per])
                                                   + "\n", encoding="utf-8")


def print_summary(title: str, rows: list[dict], ratio: float, ratio_to_read_write: float,
                  load: list[float]) -> None:
    """The table, the ratio against the goal, and a note when other work loaded the machine."""
    print(title)
    print(table(rows, ["system", "workers", "seconds", "sentences/s", "vs in-process"]))
    print(f"goal: paralib encode >= 0.8x in-process; measured {ratio:.2f}x "
          f"({ratio_to_read_write:.2f}x the in-process run that reads and writes)")
    if max(load) > LOADED:
        print(f"note: the 1-minute load average reached {max(load):.1f} on "
              f"{os.cpu_count()} cores: another job was running; measure again")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.quick:
        args.n = 20_000
    import paralib
    from paralib.config import load_config
    from paralib.encode.pipeline import run as encode
    from paralib.io.context import StageContext
    from paralib.runtime import init_ray

    sents, counts = english_sentences(args.n, args.cycle)
    work = Path(tempfile.mkdtemp(prefix="paralib-encode-speed-"))
    try:
        write_parts(work, sents, args.files)
        encoder = paralib.load(args.model)
        encoder.encode(sents[:500])  # warm-up

        def in_process() -> float:
            t = time.perf_counter()
            encoder.encode(sents, batch_size=args.batch_size)
            return time.perf_counter() - t

        load = [os.getloadavg()[0]]
        first = in_process()
        load.append(os.getloadavg()[0])
        sets = [f"encode.model={args.model}", f"encode.inputs=['{work}/part-*.txt']",
                f"encode.dtype={args.dtype}", f"encode.batch_size={args.batch_size}",
                f"encode.shard_rows={args.shard_rows}"]
        cfg = load_config(None, [*sets, f"encode.output={work}/out"])
        resources = init_ray(cfg.ray)
        time.sleep(2)  # let the freshly started Ray settle (its own start is not timed)
        load.append(os.getloadavg()[0])
        t, wall, cpu = time.perf_counter(), time.time(), time.process_time()
        report = encode(cfg.encode, StageContext.of(cfg, progress=False))
        ray_s = time.perf_counter() - t
        driver_cpu = time.process_time() - cpu
        load.append(os.getloadavg()[0])
        second = in_process()
        load.append(os.getloadavg()[0])
        out_bytes = sum(p.stat().st_size for p in (work / "out" / "data").rglob("*.parquet"))
        steady = steady_rate(work / "out" / "_markers", int(resources.get("CPU", 1)))
        first_marker = min(p.stat().st_mtime for p in (work / "out" / "_markers").glob("*"))
        shutil.rmtree(work / "out")
        pipeline_s = in_process_pipeline(load_config(None, sets).encode, work / "inproc")
        load.append(os.getloadavg()[0])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if report.rows_out != len(sents):
        raise SystemExit(f"paralib encode wrote {report.rows_out} of {len(sents)} sentences: "
                         f"{report.reasons}")
    inproc_rate = len(sents) / ((first + second) / 2)
    ray_rate = len(sents) / ray_s
    pipeline_rate = len(sents) / pipeline_s
    rows = result_rows(args.dtype, int(resources.get("CPU", 0)), {
        "in-process": (first + second) / 2, "ray": ray_s, "pipeline": pipeline_s},
        {"in-process": inproc_rate, "ray": ray_rate, "steady": steady,
         "pipeline": pipeline_rate})
    print_summary(f"{len(sents):,} English sentences in {args.files} files, model "
                  f"{args.model}", rows, ray_rate / inproc_rate, ray_rate / pipeline_rate, load)
    name = "encode_speed" if args.n == DEFAULT_N else f"encode_speed-{args.n}"
    path = write_json(name, {
        "sentences": len(sents), "sources": counts, "files": args.files,
        "model": args.model, "batch_size": args.batch_size, "shard_rows": args.shard_rows,
        "dtype": args.dtype, "in_process_seconds": [round(first, 2), round(second, 2)],
        "ray_seconds": round(ray_s, 2), "ray_stage_report_seconds": round(report.seconds, 2),
        "ray_first_shard_marked_after_s": round(first_marker - wall, 2),
        "ray_driver_cpu_seconds": round(driver_cpu, 2),
        "in_process_read_write_seconds": round(pipeline_s, 2),
        "ray_cluster_cpus": resources.get("CPU"), "output_parquet_bytes": out_bytes,
        "load_average_1min": [round(v, 2) for v in load],
        "load_average_when": ["before in-process 1", "after in-process 1", "before the job",
                              "after the job", "after in-process 2",
                              "after in-process reading and writing"],
        "rows": rows, "ratio": round(ray_rate / inproc_rate, 3),
        "steady_ratio": round(steady / inproc_rate, 3),
        "ratio_to_read_write": round(ray_rate / pipeline_rate, 3)})
    print(f"wrote {path}")


def in_process_pipeline(enc, out: Path) -> float:
    """Seconds for :meth:`EncodeActor.encode_shard` over every shard of ``enc.inputs`` in
    this process (torch on every core), planning included, the model loaded before."""
    from paralib.encode.actor import EncodeActor
    from paralib.encode.read import plan_text_shards

    worker = EncodeActor(enc.model, str(out), enc.dtype, enc.normalize, enc.batch_size,
                         enc.max_chars, threads=0)
    t = time.perf_counter()
    for spec in plan_text_shards(enc.inputs, enc.shard_rows):
        worker.encode_shard(spec)
    seconds = time.perf_counter() - t
    shutil.rmtree(out)
    return seconds


def steady_rate(markers: Path, actors: int) -> float:
    """Sentences a second once every actor is up: from the time the ``actors``-th shard was
    marked complete (each actor has then finished one) to the last marker, over the shards
    marked in between (marker files' modification times)."""
    marks = sorted((p.stat().st_mtime, json.loads(p.read_text())["rows_out"])
                   for p in markers.glob("*.json"))
    k = max(1, min(actors, len(marks) - 1))
    seconds = marks[-1][0] - marks[k - 1][0]
    return sum(n for _, n in marks[k:]) / seconds if seconds > 0 else float("nan")


def encoder_threads() -> int:
    """torch's intra-op threads in this process."""
    import torch

    return torch.get_num_threads()
