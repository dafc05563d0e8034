"""Back-translation speed: plain CTranslate2 vs paralib on Ray Data vs transformers.

Same converted model, same Multi30k German sentences (``--n``, 20,000), same beam, same
number of threads, in one run:

(a) ``ctranslate2.Translator.translate_batch`` in one process, its fastest CPU setting here:
    ``inter_threads`` = cores, ``intra_threads`` = 1 (batches translated in parallel; with
    ``intra_threads`` = 2 it ran at less than half the rate),
(b) ``paralib backtranslate`` through Ray Data (actors x 1 thread = cores; Ray started before
    timing; two shards per actor), its actors reading and writing their own shards
    (``fuse_io``, the default); (b') the same with read and write tasks around the actor pool,
(c) ``transformers`` ``generate`` in float32 with the same beam (torch threads = cores), as a
    user would write it: the sentences in file order, padded batches of ``--hf-batch`` (32);
(c') the same, tuned: sentences sorted by length, batches of 64 (less padding; what CTranslate2
    does internally), reported next to it.

(a), (b) and (c) also run on the first ``--n-small`` (2,000) sentences, where a job's start
(actor processes, model load, Ray Data's own actors) weighs most: (b) twice, as the first job
of the Ray session and as the next one; (c)'s rate there is that of its first batches.

Reports sentences/s and target tokens/s and the ratios, the start-up seconds of (b), and its
peak RSS (driver, Ray processes and workers summed) on the small input (1x) and on ``--n``
(10x by default). Writes ``benchmarks/results/backtranslate.json``.

    python -m benchmarks backtranslate --model models/de-en --hf-model runs/mt-de-en/hf

With ``--device cuda``, (a) translates on the GPU and (b) runs ``--actors-per-gpu`` actors
sharing it (both with CTranslate2's ``auto`` compute type and ``--batch-tokens``);
``--skip-transformers`` leaves out (c) and (c'), ``--name`` names the results file.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sentencepiece as spm

from benchmarks.common import PeakRSS, table, write_json
from paralib.config import BitextConfig, load_config
from paralib.io.shards import read_output
from paralib.mt.data import read_text
from paralib.paths import PROJECT_ROOT, data_root


def target_tokens(model: Path, texts: list[str]) -> int:
    """Number of target sentencepiece tokens of ``texts`` (end token included)."""
    sp = spm.SentencePieceProcessor(model_file=str(model / "target.spm"))
    return sum(len(x) + 1 for x in sp.encode(texts))


def run_ct2(model: Path, sents: list[str], beam: int, threads: int, device: str = "cpu",
            batch_tokens: int = 1024) -> tuple[float, list[str]]:
    import ctranslate2

    # compute type "auto", as paralib's actors use: int8 on this CPU, int8_float16 on a GPU
    tr = ctranslate2.Translator(str(model), device=device, compute_type="auto",
                                intra_threads=1,
                                inter_threads=threads if device == "cpu" else 1)
    sp = spm.SentencePieceProcessor(model_file=str(model / "source.spm"))
    tsp = spm.SentencePieceProcessor(model_file=str(model / "target.spm"))
    t0 = time.perf_counter()
    res = tr.translate_batch(sp.encode(sents, out_type=str), beam_size=beam,
                             max_batch_size=batch_tokens, batch_type="tokens",
                             max_decoding_length=128)
    outs = [tsp.decode(r.hypotheses[0]) for r in res]
    return time.perf_counter() - t0, outs


def run_hf(hf: Path, sents: list[str], beam: int, threads: int, batch: int,
           by_length: bool, split: int = 0) -> tuple[float, list[str], tuple[int, float] | None]:
    """Translate ``sents`` with ``generate``. In file order also returns ``(k, seconds)``: the
    first whole batches holding at least ``split`` sentences were done after ``seconds``."""
    import torch
    from transformers import MarianMTModel, MarianTokenizer

    torch.set_num_threads(threads)
    tok = MarianTokenizer.from_pretrained(hf)
    model = MarianMTModel.from_pretrained(hf).eval()
    order = list(range(len(sents)))
    if by_length:
        order.sort(key=lambda i: len(sents[i]))
    outs: list[str] = [""] * len(sents)
    at_split = None
    t0 = time.perf_counter()
    with torch.inference_mode():
        for k in range(0, len(order), batch):
            if not by_length and split and at_split is None and k >= split:
                at_split = (k, time.perf_counter() - t0)
            idx = order[k : k + batch]
            enc = tok([sents[i] for i in idx], return_tensors="pt", padding=True)
            gen = model.generate(**enc, num_beams=beam, max_new_tokens=128)
            for i, text in zip(idx, tok.batch_decode(gen, skip_special_tokens=True),
                               strict=True):
                outs[i] = text
    seconds = time.perf_counter() - t0
    if split and not by_length and at_split is None:  # split >= the last batch's start
        at_split = (len(order), seconds)
    return seconds, outs, at_split


def write_inputs(folder: Path, de: list[str], en: list[str]) -> tuple[str, str]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "in.de").write_text("\n".join(de) + "\n")
    (folder / "in.en").write_text("\n".join(en) + "\n")
    return str(folder / "in.de"), str(folder / "in.en")


def run_ray(model: Path, src: str, ref: str, out: Path, beam: int, actors: int,
            shard_rows: int, device: str = "cpu", batch_tokens: int = 1024,
            fuse_io: bool = True) -> tuple[float, float, list[str]]:
    from paralib.io.context import StageContext
    from paralib.translate.backtranslate import run as backtranslate

    cfg = load_config(None, [f"backtranslate.device={device}",
                             f"backtranslate.actors_per_gpu={actors if device == 'cuda' else 1}",
                             f"backtranslate.batch_size={batch_tokens}",
        f"bitext.inputs=[{{corpus: bench, src_lang: de, src: '{src}', en: '{ref}'}}]",
        f"bitext.shard_rows={shard_rows}", f"backtranslate.model={model}",
        f"backtranslate.output={out}", f"backtranslate.beam_size={beam}",
        "backtranslate.num_hypotheses=1", f"backtranslate.actors={actors}",
        f"backtranslate.min_actors={actors}",
        f"backtranslate.num_cpus_per_actor={1 / actors}", "backtranslate.intra_threads=1",
        "backtranslate.overwrite=true", f"backtranslate.fuse_io={str(fuse_io).lower()}"])
    with PeakRSS() as mem:
        t0 = time.perf_counter()
        backtranslate(cfg.backtranslate, StageContext.of(cfg, progress=False))
        seconds = time.perf_counter() - t0
    data = read_output(str(out)).to_pandas()
    return seconds, mem.peak_mb, data["trans"].tolist()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line of :func:`main`."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(PROJECT_ROOT / "models" / "de-en"))
    ap.add_argument("--hf-model", default=str(PROJECT_ROOT / "runs" / "mt-de-en" / "hf"))
    ap.add_argument("--n", type=int, default=20000,
                    help="sentences every system translates (Multi30k German train)")
    ap.add_argument("--n-small", type=int, default=2000,
                    help="the first sentences, for the start-up-bound rows and the 1x memory run")
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--shard-rows", type=int, default=None,
                    help="rows per shard of (b); default: two shards per actor, at most "
                         "paralib's default (bitext.shard_rows)")
    ap.add_argument("--hf-batch", type=int, default=32)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                    help="cuda: (a) translates on the GPU and (b) runs one GPU actor")
    ap.add_argument("--batch-tokens", type=int, default=1024,
                    help="CTranslate2's max_batch_size in tokens, for (a) and (b) alike")
    ap.add_argument("--actors-per-gpu", type=int, default=1,
                    help="with --device cuda: actors sharing the GPU in (b)")
    ap.add_argument("--skip-transformers", action="store_true",
                    help="leave out (c) and (c') (no transformers model at hand)")
    ap.add_argument("--name", default="backtranslate",
                    help="results file: benchmarks/results/NAME.json")
    return ap.parse_args(argv)


def finish_rows(rows: list[dict], model: Path) -> None:
    """Each row's rates (sentences and target tokens per second) in place of its outputs."""
    for r in rows:
        r["sentences_per_s"] = round(r["sentences"] / r["seconds"], 1)
        r["tokens_per_s"] = round(target_tokens(model, r.pop("outs")) / r["seconds"], 1)
        r["seconds"] = round(r["seconds"], 2)


def ratio(x: dict | None, y: dict | None) -> float | None:
    """How many times faster row ``x`` is than row ``y`` (None when either is missing)."""
    return round(x["sentences_per_s"] / y["sentences_per_s"], 3) if x and y else None


def summarise(args: argparse.Namespace, rows: list[dict], row: dict[str, dict | None],
              run: dict[str, Any]) -> dict[str, Any]:
    """The results file: the setup, every row, and the ratios between the systems' rows
    (``row``: each system's row by its letter, ``None`` for one left out)."""
    a, a_small, b, b_cold = row["a"], row["a_small"], row["b"], row["b_cold"]
    b_warm, b_chain, c, c_small, c_sorted = (row["b_warm"], row["b_chain"], row["c"],
                                             row["c_small"], row["c_sorted"])
    small, actors, k = args.n_small, run["actors"], run["k"]
    # start-up cost of a job: its time beyond translating at the pipeline's steady rate
    steady = args.n / b["seconds"]
    ray_text = (f"{actors} actors x 1 thread" if args.device == "cpu" else
                f"{actors} actor(s) sharing the GPU") + ", Ray started before timing"
    result = {
        "setup": {"model": run["model"],
                  "hf_model": None if args.skip_transformers else run["hf"],
                  "sentences": args.n, "sentences_small": small, "beam": args.beam,
                  "threads": args.threads, "device": args.device,
                  "batch_tokens": args.batch_tokens,
                  "shard_rows": run["shard_rows"],
                  "ray": ray_text, "hf_batch": args.hf_batch,
                  "transformers_small": (f"file-order rate over its first {k} sentences"
                                         if k else None),
                  "load_average_before": [round(x, 2) for x in run["load_before"]],
                  "load_average_after": [round(x, 2) for x in os.getloadavg()]},
        "rows": rows,
        "ratio_ray_vs_ct2": ratio(b, a),
        "ratio_ray_chained_vs_ct2": ratio(b_chain, a),
        "ratio_ray_vs_transformers": ratio(b, c),
        "ratio_ray_vs_transformers_by_length": ratio(b, c_sorted),
        "ratio_ct2_vs_transformers": ratio(a, c),
        "small": {
            "ratio_ray_first_job_vs_ct2": ratio(b_cold, a_small),
            "ratio_ray_next_job_vs_ct2": ratio(b_warm, a_small),
            "ratio_ray_first_job_vs_transformers": ratio(b_cold, c_small),
            "ratio_ray_next_job_vs_transformers": ratio(b_warm, c_small),
            "start_s_first_job": round(b_cold["seconds"] - small / steady, 2),
            "start_s_next_job": round(b_warm["seconds"] - small / steady, 2),
        },
        "peak_rss_mb_1x": run["peak1"],
        "peak_rss_mb_10x": run["peak10"],
        "input_10x_over_1x": round(args.n / small, 2),
    }
    return result


def print_summary(rows: list[dict], result: dict[str, Any], n: int, small: int) -> None:
    """The table of rows and the ratios, as the results file has them."""
    print(table(rows, ["system", "sentences", "seconds", "sentences_per_s", "tokens_per_s",
                       "peak_rss_mb"]))
    print(f"\n{n} sentences: (b)/(a) = {result['ratio_ray_vs_ct2']}   (b')/(a) = "
          f"{result['ratio_ray_chained_vs_ct2']}   (b)/(c) = "
          f"{result['ratio_ray_vs_transformers']}   (b)/(c') = "
          f"{result['ratio_ray_vs_transformers_by_length']}")
    sm = result["small"]
    print(f"{small} sentences: (b)/(a) = {sm['ratio_ray_first_job_vs_ct2']} (first job), "
          f"{sm['ratio_ray_next_job_vs_ct2']} (next job); (b)/(c) = "
          f"{sm['ratio_ray_first_job_vs_transformers']}, "
          f"{sm['ratio_ray_next_job_vs_transformers']}; start-up "
          f"{sm['start_s_first_job']} s and {sm['start_s_next_job']} s")
    print(f"peak RSS of (b): {result['peak_rss_mb_1x']} MB at 1x ({small} sentences), "
          f"{result['peak_rss_mb_10x']} MB at {result['input_10x_over_1x']}x ({n} sentences)")


def ray_rows(model: Path, de: list[str], en: list[str], args: argparse.Namespace,
             actors: int, shard_rows: Callable[[int], int], add: Callable[..., dict],
             ct2: dict[str, Any]) -> tuple[dict, dict, dict, dict, float, float]:
    """The rows of (b) and (b'): paralib backtranslate's first and next job on the first
    ``--n-small`` sentences, then on all of them, fused and chained; and the peak RSS at 1x
    and 10x."""
    import ray

    small = args.n_small
    ray.init(num_cpus=args.threads, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    tmp = Path(tempfile.mkdtemp(prefix="paralib-bench-"))
    try:
        src, ref = write_inputs(tmp / "small", de[:small], en[:small])
        secs, peak1, outs = run_ray(model, src, ref, tmp / "out1", args.beam, actors,
                                    shard_rows(small), **ct2)
        b_cold = add("(b) paralib backtranslate, first job of the Ray session", small, secs,
                     outs, peak_rss_mb=peak1)
        secs, peak, outs = run_ray(model, src, ref, tmp / "out2", args.beam, actors,
                                   shard_rows(small), **ct2)
        b_warm = add("(b) paralib backtranslate, next job", small, secs, outs,
                     peak_rss_mb=peak)
        src, ref = write_inputs(tmp / "all", de, en)
        secs, peak10, outs = run_ray(model, src, ref, tmp / "out10", args.beam, actors,
                                     shard_rows(args.n), **ct2)
        b = add("(b) paralib backtranslate, next job", args.n, secs, outs, peak_rss_mb=peak10)
        secs, peak, outs = run_ray(model, src, ref, tmp / "out10c", args.beam, actors,
                                   shard_rows(args.n), **ct2, fuse_io=False)
        b_chain = add("(b') the same, read tasks -> actors -> write tasks (fuse_io false)",
                      args.n, secs, outs, peak_rss_mb=peak)
    finally:
        ray.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    return b_cold, b_warm, b, b_chain, peak1, peak10


def hf_rows(hf: Path, de: list[str], args: argparse.Namespace, add: Callable[..., dict]
            ) -> tuple[dict | None, dict | None, dict | None, int]:
    """The rows of (c) and (c'): transformers' generate in file order (also at its first
    ``--n-small`` sentences) and by length; and how many sentences the small rate covers
    (``None`` rows and 0 with ``--skip-transformers``)."""
    small = args.n_small
    c = c_small = c_sorted = None
    k = 0
    if not args.skip_transformers:
        secs, outs, (k, at_k) = run_hf(hf, de, args.beam, args.threads, args.hf_batch,
                                       by_length=False, split=small)
        c_name = f"(c) transformers generate (float32, batch {args.hf_batch})"
        c_small = add(c_name, k, at_k, outs[:k])
        c = add(c_name, args.n, secs, outs)
        secs, outs, _ = run_hf(hf, de, args.beam, args.threads, 64, by_length=True)
        c_sorted = add("(c') transformers generate (float32, by length, batch 64)", args.n,
                       secs, outs)
    return c, c_small, c_sorted, k


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    model, hf = Path(args.model), Path(args.hf_model)
    if not args.skip_transformers and not (hf / "config.json").is_file():
        sys.exit(f"{hf}: no transformers model; train one with "
                 "'paralib mt train --config configs/mt-de-en.yaml', pass --hf-model, or "
                 "--skip-transformers")
    actors = args.threads if args.device == "cpu" else args.actors_per_gpu
    if not 0 < args.n_small <= args.n:
        sys.exit(f"--n-small ({args.n_small}) must be in 1..--n ({args.n})")

    base = data_root() / "bitext/multi30k/task1/raw"
    de_all, en_all = read_text(str(base / "train.de.gz")), read_text(str(base / "train.en.gz"))
    reps = args.n // len(de_all) + 1
    de, en = (de_all * reps)[: args.n], (en_all * reps)[: args.n]
    small = args.n_small
    rows = []
    default_shard = BitextConfig().shard_rows

    def shard_rows(n: int) -> int:
        """Two shards per actor (CTranslate2 sorts each actor's call by length: larger calls
        pad less), never more rows than paralib's default shard."""
        return args.shard_rows or min(default_shard, -(-n // (2 * actors)))

    def add(system: str, n: int, seconds: float, outs: list[str], **extra) -> dict:
        row = {"system": system, "sentences": n, "seconds": seconds, "outs": outs, **extra}
        rows.append(row)
        return row

    load_before = os.getloadavg()
    ct2 = {"device": args.device, "batch_tokens": args.batch_tokens}
    run_ct2(model, de[:64], args.beam, args.threads, **ct2)  # warm-up: page the model in
    secs, outs = run_ct2(model, de[:small], args.beam, args.threads, **ct2)
    a_small = add("(a) ctranslate2 translate_batch", small, secs, outs)
    secs, outs = run_ct2(model, de, args.beam, args.threads, **ct2)
    a = add("(a) ctranslate2 translate_batch", args.n, secs, outs)

    b_cold, b_warm, b, b_chain, peak1, peak10 = ray_rows(model, de, en, args, actors,
                                                         shard_rows, add, ct2)

    c, c_small, c_sorted, k = hf_rows(hf, de, args, add)
    finish_rows(rows, model)
    result = summarise(args, rows, {"a": a, "a_small": a_small, "b": b, "b_cold": b_cold,
                                    "b_warm": b_warm, "b_chain": b_chain, "c": c,
                                    "c_small": c_small, "c_sorted": c_sorted},
                       {"model": str(model), "hf": str(hf), "actors": actors, "k": k,
                        "shard_rows": {str(small): shard_rows(small),
                                       str(args.n): shard_rows(args.n)},
                        "load_before": load_before, "peak1": peak1, "peak10": peak10})
    print_summary(rows, result, args.n, small)
    print(f"wrote {write_json(args.name, result)}")
