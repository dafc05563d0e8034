"""Back-translation speed: plain CTranslate2 vs paralib on Ray Data vs transformers.

Same converted model, same Multi30k German sentences, same beam, same number of threads,
in one run:

(a) ``ctranslate2.Translator.translate_batch`` in one process, its fastest CPU setting here:
    ``inter_threads`` = cores, ``intra_threads`` = 1 (batches translated in parallel; with
    ``intra_threads`` = 2 it ran at less than half the rate),
(b) ``paralib backtranslate`` through Ray Data (actors x 1 thread = cores; Ray already up),
(c) ``transformers`` ``generate`` in float32 with the same beam (torch threads = cores), as a
    user would write it: the sentences in file order, padded batches of ``--hf-batch`` (32);
(c') the same, tuned: sentences sorted by length, batches of 64 (less padding; what CTranslate2
    does internally), reported next to it.

Reports sentences/s and target tokens/s and the ratios, and the peak RSS of (b) (driver,
Ray processes and workers summed) at 1x and 10x the input. Writes
``benchmarks/results/backtranslate.json``.

    python benchmarks/backtranslate.py --model models/de-en --hf-model runs/mt-de-en/hf
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import sentencepiece as spm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import PeakRSS, machine, table, write_json  # noqa: E402

from paralib.config import load_config  # noqa: E402
from paralib.io.shards import read_output  # noqa: E402
from paralib.mt.train import read_text  # noqa: E402
from paralib.paths import PROJECT_ROOT, data_root  # noqa: E402


def target_tokens(model: Path, texts: list[str]) -> int:
    """Number of target sentencepiece tokens of ``texts`` (end token included)."""
    sp = spm.SentencePieceProcessor(model_file=str(model / "target.spm"))
    return sum(len(x) + 1 for x in sp.encode(texts))


def run_ct2(model: Path, sents: list[str], beam: int, threads: int) -> tuple[float, list[str]]:
    import ctranslate2

    tr = ctranslate2.Translator(str(model), device="cpu", intra_threads=1,
                                inter_threads=threads)
    sp = spm.SentencePieceProcessor(model_file=str(model / "source.spm"))
    tsp = spm.SentencePieceProcessor(model_file=str(model / "target.spm"))
    t0 = time.perf_counter()
    res = tr.translate_batch(sp.encode(sents, out_type=str), beam_size=beam,
                             max_batch_size=1024, batch_type="tokens", max_decoding_length=128)
    outs = [tsp.decode(r.hypotheses[0]) for r in res]
    return time.perf_counter() - t0, outs


def run_hf(hf: Path, sents: list[str], beam: int, threads: int, batch: int,
           by_length: bool) -> tuple[float, list[str]]:
    import torch
    from transformers import MarianMTModel, MarianTokenizer

    torch.set_num_threads(threads)
    tok = MarianTokenizer.from_pretrained(hf)
    model = MarianMTModel.from_pretrained(hf).eval()
    order = list(range(len(sents)))
    if by_length:
        order.sort(key=lambda i: len(sents[i]))
    outs: list[str] = [""] * len(sents)
    t0 = time.perf_counter()
    with torch.inference_mode():
        for k in range(0, len(order), batch):
            idx = order[k : k + batch]
            enc = tok([sents[i] for i in idx], return_tensors="pt", padding=True)
            gen = model.generate(**enc, num_beams=beam, max_new_tokens=128)
            for i, text in zip(idx, tok.batch_decode(gen, skip_special_tokens=True),
                               strict=True):
                outs[i] = text
    return time.perf_counter() - t0, outs


def write_inputs(folder: Path, de: list[str], en: list[str]) -> tuple[str, str]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "in.de").write_text("\n".join(de) + "\n")
    (folder / "in.en").write_text("\n".join(en) + "\n")
    return str(folder / "in.de"), str(folder / "in.en")


def run_ray(model: Path, src: str, ref: str, out: Path, beam: int, actors: int,
            shard_rows: int) -> tuple[float, float, list[str]]:
    from paralib.translate.backtranslate import backtranslate

    cfg = load_config(None, [
        f"bitext.inputs=[{{corpus: bench, src_lang: de, src: '{src}', en: '{ref}'}}]",
        f"bitext.shard_rows={shard_rows}", f"backtranslate.model={model}",
        f"backtranslate.output={out}", f"backtranslate.beam_size={beam}",
        "backtranslate.num_hypotheses=1", f"backtranslate.actors={actors}",
        f"backtranslate.min_actors={actors}",
        f"backtranslate.num_cpus_per_actor={1 / actors}", "backtranslate.intra_threads=1",
        "backtranslate.overwrite=true"])
    with PeakRSS() as mem:
        t0 = time.perf_counter()
        backtranslate(cfg, progress=False)
        seconds = time.perf_counter() - t0
    data = read_output(str(out)).to_pandas()
    return seconds, mem.peak_mb, data["trans"].tolist()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(PROJECT_ROOT / "models" / "de-en"))
    ap.add_argument("--hf-model", default=str(PROJECT_ROOT / "runs" / "mt-de-en" / "hf"))
    ap.add_argument("--n", type=int, default=2000, help="sentences (Multi30k German train)")
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--shard-rows", type=int, default=250)
    ap.add_argument("--hf-batch", type=int, default=32)
    args = ap.parse_args()
    model, hf = Path(args.model), Path(args.hf_model)
    if not (hf / "config.json").is_file():
        sys.exit(f"{hf}: no transformers model; train one with "
                 "'paralib mt train --config configs/mt-de-en.yaml' or pass --hf-model")

    base = data_root() / "bitext/multi30k/task1/raw"
    de_all, en_all = read_text(str(base / "train.de.gz")), read_text(str(base / "train.en.gz"))
    de, en = de_all[: args.n], en_all[: args.n]
    rows = []
    load_before = os.getloadavg()
    run_ct2(model, de[:64], args.beam, args.threads)  # warm-up: page the model in
    secs, outs = run_ct2(model, de, args.beam, args.threads)
    rows.append({"system": "(a) ctranslate2 translate_batch", "seconds": secs, "outs": outs})

    import ray

    ray.init(num_cpus=args.threads, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    tmp = Path(tempfile.mkdtemp(prefix="paralib-bench-"))
    try:
        src, ref = write_inputs(tmp / "x1", de, en)
        secs, peak1, outs = run_ray(model, src, ref, tmp / "out1", args.beam, args.threads,
                                    args.shard_rows)
        rows.append({"system": "(b) paralib backtranslate (Ray Data)", "seconds": secs,
                     "outs": outs, "peak_rss_mb": peak1})
        reps = 10 * args.n
        de10 = (de_all * (reps // len(de_all) + 1))[:reps]
        en10 = (en_all * (reps // len(en_all) + 1))[:reps]
        src, ref = write_inputs(tmp / "x10", de10, en10)
        secs10, peak10, _ = run_ray(model, src, ref, tmp / "out10", args.beam, args.threads,
                                    args.shard_rows)
    finally:
        ray.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)

    secs, outs = run_hf(hf, de, args.beam, args.threads, args.hf_batch, by_length=False)
    rows.append({"system": f"(c) transformers generate (float32, batch {args.hf_batch})",
                 "seconds": secs, "outs": outs})
    secs, outs = run_hf(hf, de, args.beam, args.threads, 64, by_length=True)
    rows.append({"system": "(c') transformers generate (float32, by length, batch 64)",
                 "seconds": secs, "outs": outs})
    for r in rows:
        r["sentences_per_s"] = round(len(de) / r["seconds"], 1)
        r["tokens_per_s"] = round(target_tokens(model, r.pop("outs")) / r["seconds"], 1)
        r["seconds"] = round(r["seconds"], 2)
    a, b, c, c_sorted = rows
    result = {
        "machine": machine(),
        "setup": {"model": str(model), "hf_model": str(hf), "sentences": len(de),
                  "beam": args.beam, "threads": args.threads, "shard_rows": args.shard_rows,
                  "ray": f"{args.threads} actors x 1 thread, Ray started before timing",
                  "hf_batch": args.hf_batch,
                  "load_average_before": [round(x, 2) for x in load_before],
                  "load_average_after": [round(x, 2) for x in os.getloadavg()]},
        "rows": rows,
        "ratio_ray_vs_ct2": round(b["sentences_per_s"] / a["sentences_per_s"], 3),
        "ratio_ray_vs_transformers": round(b["sentences_per_s"] / c["sentences_per_s"], 2),
        "ratio_ray_vs_transformers_by_length": round(
            b["sentences_per_s"] / c_sorted["sentences_per_s"], 2),
        "ratio_ct2_vs_transformers": round(a["sentences_per_s"] / c["sentences_per_s"], 2),
        "peak_rss_mb_1x": peak1,
        "peak_rss_mb_10x": peak10,
        "ray_10x_sentences_per_s": round(10 * args.n / secs10, 1),
        "ratio_ray_10x_vs_ct2": round(10 * args.n / secs10 / a["sentences_per_s"], 3),
        "ratio_ray_10x_vs_transformers": round(10 * args.n / secs10 / c["sentences_per_s"], 2),
    }
    print(table(rows, ["system", "seconds", "sentences_per_s", "tokens_per_s", "peak_rss_mb"]))
    print(f"\n(b)/(a) = {result['ratio_ray_vs_ct2']}   (b)/(c) = "
          f"{result['ratio_ray_vs_transformers']}   (b)/(c') = "
          f"{result['ratio_ray_vs_transformers_by_length']}")
    print(f"peak RSS of (b): {peak1} MB at 1x ({args.n} sentences), {peak10} MB at 10x "
          f"({10 * args.n} sentences, {result['ray_10x_sentences_per_s']} sentences/s)")
    print(f"wrote {write_json('backtranslate', result)}")


if __name__ == "__main__":
    main()
