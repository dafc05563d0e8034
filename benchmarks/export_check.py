"""How exactly ``paralib export`` carries a model into sentence-transformers and model2vec,
measured on the shipped encoder:

- the lowest cosine between paralib's vector and each export's over every sentence of the STS
  Benchmark test set (and how many of them hold text no sentencepiece piece covers);
- how many Tatoeba sentences of every language (the first ``--tatoeba-lines`` of each file)
  the exported ``tokenizer.json`` gives paralib's ids exactly;
- sentence-transformers' own ``EmbeddingSimilarityEvaluator`` on STSB test beside paralib's
  STSB test Pearson (``paralib evaluate --suite stsb``), and the same suite run on both
  exported folders;
- encoding speed of the three on the speed suite's set (sentences/s; torch on 1 thread,
  the Rust tokeniser without its thread pool; the best of ``--speed-runs`` runs).

    python -m benchmarks export_check [--model models/paralib-en]

Prints a table and writes ``benchmarks/results/export.json``.
"""

from __future__ import annotations

import os

os.environ["TOKENIZERS_PARALLELISM"] = "false"  # one thread, before tokenizers is imported

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import table, write_json

ROOT = Path(__file__).resolve().parent.parent


def min_cosine(a: np.ndarray, b: np.ndarray) -> float:
    """The lowest row cosine of two arrays."""
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    return float(((a * b).sum(1) / np.maximum(na * nb, 1e-30)).min())


def tatoeba_ids(model, folder: Path, data: Path, lines: int) -> dict:
    """Sentences of every Tatoeba file whose exported ids equal paralib's."""
    from tokenizers import Tokenizer

    from paralib.export.hf_tokenizer import convert

    part = model.model.config.parts[0]
    rows = convert(model.model.tokenizers[0], part.max_tokens).rows
    hf = Tokenizer.from_file(str(folder / "tokenizer.json"))
    files = sorted(p for p in (data / "bitext" / "tatoeba").glob("tatoeba.*-eng.*")
                   if not p.name.endswith(".eng"))
    texts = [t for p in files
             for t in p.read_text(encoding="utf-8", errors="replace").splitlines()[:lines]]
    want = [ids[:part.max_tokens] for ids in model.model.tokenizers[0].encode(texts)]
    got = [[int(rows[i]) for i in e.ids] for e in hf.encode_batch(texts,
                                                                 add_special_tokens=False)]
    differ = [t for t, w, g in zip(texts, want, got, strict=True) if w != g]
    return {"sentences": len(texts), "languages": len(files), "identical":
            len(texts) - len(differ), "differing_examples": differ[:5]}


def best_speed(models: dict[str, Any], settings: Any, runs: int) -> dict[str, float]:
    """Sentences per second of each model on one torch thread (the speed suite on
    multi30k-en), the best of ``runs`` runs: other work on the machine only slows a run."""
    import torch

    from paralib.evaluate.run import Evaluation, evaluate
    from paralib.io.context import StageContext

    torch.set_num_threads(1)
    rate = dict.fromkeys(models, 0.0)
    for _ in range(runs):  # the best of a few runs: other work on the machine
        speed = evaluate(Evaluation(models, ["speed"], settings=settings),
                         StageContext(progress=False))
        for n in models:
            sets = speed.tasks["speed"].models[n]["sets"]
            rate[n] = max(rate[n], sets["multi30k-en"]["sentences_per_s"])
    return rate


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=str(ROOT / "models" / "paralib-en"))
    ap.add_argument("--speed-sentences", type=int, default=10_000)
    ap.add_argument("--speed-runs", type=int, default=3)
    ap.add_argument("--tatoeba-lines", type=int, default=300)
    args = ap.parse_args(argv)

    from model2vec import StaticModel
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.evaluation import (
        EmbeddingSimilarityEvaluator,
    )

    import paralib
    from paralib.evaluate.common import Settings
    from paralib.evaluate.encoders import load_model_folder
    from paralib.evaluate.loaders import read_stsb
    from paralib.evaluate.run import Evaluation, evaluate
    from paralib.export import export
    from paralib.io.context import StageContext
    from paralib.models.tokenizers import UNK
    from paralib.paths import data_root

    data, source = data_root(), Path(args.model)
    tmp = Path(tempfile.mkdtemp(prefix="paralib-export-check-"))
    seconds, out = {}, {}
    for target, key in (("sentence-transformers", "st"), ("model2vec", "m2v")):
        t0 = time.perf_counter()
        out[key] = export(source, tmp / key, target).out
        seconds[key] = time.perf_counter() - t0
    enc = paralib.load(source)
    stsb = read_stsb(data, "test")
    sentences = list(dict.fromkeys(stsb.a + stsb.b))
    want = enc.encode(sentences)
    st = SentenceTransformer(str(out["st"]), device="cpu", local_files_only=True)
    m2v = StaticModel.from_pretrained(str(out["m2v"]))
    cos = {"st": min_cosine(st.encode(sentences, batch_size=256), want),
           "m2v": min_cosine(m2v.encode(sentences), want)}
    with_unk = sum(UNK in ids for ids in enc.model.tokenizers[0].encode(sentences))
    evaluator = EmbeddingSimilarityEvaluator(stsb.a, stsb.b, stsb.gold.tolist(),
                                             name="stsb-test", write_csv=False)
    st_pearson = evaluator(st)["stsb-test_pearson_cosine"] * 100
    names = {"paralib": str(source), "sentence-transformers": str(out["st"]),
             "model2vec": str(out["m2v"])}
    models = {n: load_model_folder(p, n) for n, p in names.items()}
    settings = Settings(data=data, speed_sentences=args.speed_sentences)
    report = evaluate(Evaluation(models, ["stsb"], settings=settings), StageContext(progress=False))
    pearson = {n: report.tasks["stsb"].models[n]["sets"]["test"]["pearson"] for n in names}
    rate = best_speed(models, settings, args.speed_runs)
    ids = tatoeba_ids(enc, out["st"], data, args.tatoeba_lines)
    rows = [{"model": "paralib", "min cos (STSB test)": None, "STSB test r": pearson["paralib"],
             "ST evaluator r": None, "sent/s 1 thread": rate["paralib"], "export s": None},
            {"model": "sentence-transformers", "min cos (STSB test)": cos["st"],
             "STSB test r": pearson["sentence-transformers"], "ST evaluator r": st_pearson,
             "sent/s 1 thread": rate["sentence-transformers"], "export s": seconds["st"]},
            {"model": "model2vec", "min cos (STSB test)": cos["m2v"],
             "STSB test r": pearson["model2vec"], "ST evaluator r": None,
             "sent/s 1 thread": rate["model2vec"], "export s": seconds["m2v"]}]
    shown = [{k: "-" if v is None else (f"{v:.7f}" if k.startswith("min cos") else
                                        f"{v:,.2f}") if isinstance(v, float) else v
              for k, v in r.items()} for r in rows]
    print(table(shown, list(rows[0])))
    print(f"STSB test: {len(sentences):,} distinct sentences, {with_unk} with <unk> text; "
          f"Tatoeba: tokenizer.json gives paralib's ids on {ids['identical']:,} of "
          f"{ids['sentences']:,} sentences ({ids['languages']} languages)")
    path = write_json("export", {"model": str(source),
                                 "stsb_test_sentences": len(sentences),
                                 "stsb_test_sentences_with_unk": with_unk, "rows": rows,
                                 "tatoeba_ids": ids, "speed_sentences": args.speed_sentences,
                                 "speed": "torch 1 thread, TOKENIZERS_PARALLELISM=false, "
                                          "the speed suite's batches of 128, best of "
                                          f"{args.speed_runs} runs"})
    print(f"wrote {path}")
