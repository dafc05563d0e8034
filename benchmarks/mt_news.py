"""sacreBLEU of the shipped X→English models on WMT news and on Multi30k test 2016.

The shipped CTranslate2 models (``models/de-en``, ``models/fr-en``, ``models/cs-en``) were
trained on image captions (Multi30k, plus XNLI and a toy corpus for some). Before they are
retrained on WMT news, this measures each on two test sets, so the new model cards can show
old and new side by side:

(a) WMT news: ``newstest2020`` where ``bitext/wmt-news/<xx>-en/`` has it, otherwise the
    newest ``newstest<year>`` there (``newstestB2020``, a second German reference of
    newstest2020, ``newsdiscusstest2015`` and ``news-test2008`` are not candidates);
(b) Multi30k task 1 ``test_2016_flickr`` (the test set of the model cards).

Decoding is the project's own (:func:`paralib.mt.metrics.decode`: the model's sentencepiece
models, CTranslate2 on the CPU in the model's own compute type, beam ``--beam``, input and
output cut at ``min(128, max_positions - 2)`` pieces as ``paralib mt train`` does), and so is
the score (:func:`paralib.mt.metrics.bleu`: corpus sacreBLEU, 13a tokenisation, one
reference). chrF is sacreBLEU's default chrF. The language of a model comes from its
``paralib.json`` (``src_lang``), else from the folder name ``<xx>-en``.

Prints a table (model, test set, sentences, BLEU, chrF, sentences/s) and writes
``benchmarks/results/mt-news.json`` (``--out``). Sentences/s is decoding only (model loaded).

    OMP_NUM_THREADS=2 python -m benchmarks mt_news

``--limit N`` scores the first N lines of each test set only (a quick check).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path

from benchmarks.common import RESULTS, stamp, table, write_json
from paralib.mt.data import read_text
from paralib.mt.metrics import bleu, decode
from paralib.paths import PROJECT_ROOT, data_root
from paralib.translate.translator import check_model_dir, model_info

PREFERRED_NEWS = "newstest2020"
MULTI30K_TEST = "test_2016_flickr"


def model_language(model: Path) -> tuple[str, str]:
    """Source and target language of a model folder: ``paralib.json``, else ``<xx>-<yy>``."""
    meta = model_info(model)
    if meta.get("src_lang") and meta.get("tgt_lang"):
        return meta["src_lang"], meta["tgt_lang"]
    m = re.fullmatch(r"([a-z]{2,3})-([a-z]{2,3})", model.name)
    if not m:
        raise SystemExit(f"{model}: no paralib.json with src_lang and a folder name not <xx>-en")
    return m.group(1), m.group(2)


def news_set(lang: str) -> tuple[str, Path, Path]:
    """``newstest2020`` for ``lang``→en if present, else the newest ``newstest<year>``."""
    folder = data_root() / "bitext/wmt-news" / f"{lang}-en"
    years = {}
    for src in folder.glob(f"newstest*.{lang}.gz"):
        name = src.name[: -len(f".{lang}.gz")]
        m = re.fullmatch(r"newstest(\d{4})", name)
        if m and (folder / f"{name}.en.gz").is_file():
            years[name] = int(m.group(1))
    if not years:
        raise SystemExit(f"no newstest<year>.{lang}.gz / .en.gz pair in {folder}")
    name = PREFERRED_NEWS if PREFERRED_NEWS in years else max(years, key=years.get)
    return name, folder / f"{name}.{lang}.gz", folder / f"{name}.en.gz"


def multi30k_set(lang: str) -> tuple[str, Path, Path]:
    folder = data_root() / "bitext/multi30k/task1/raw"
    return (f"multi30k {MULTI30K_TEST}", folder / f"{MULTI30K_TEST}.{lang}.gz",
            folder / f"{MULTI30K_TEST}.en.gz")


def rel(path: Path) -> str:
    """``path`` relative to the data root (``{data}/...``) or the project, else as is."""
    for root, tag in ((data_root(), "{data}"), (PROJECT_ROOT, "")):
        try:
            r = path.resolve().relative_to(root)
        except ValueError:
            continue
        return f"{tag}/{r}" if tag else str(r)
    return str(path)


def over_limit(model: Path, sources: list[str], max_length: int) -> int:
    """How many sources have more than ``max_length`` pieces (CTranslate2 cuts them)."""
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(model / "source.spm"))
    return sum(len(p) > max_length for p in sp.encode(sources))


def signature(metric) -> str:
    """sacreBLEU's signature of ``metric`` with one reference (it is known only once scored)."""
    metric.corpus_score(["a b c d"], [["a b c d"]])
    return str(metric.get_signature())


def evaluate(model: Path, name: str, src: Path, ref: Path, args) -> dict:
    import sacrebleu

    sources, refs = read_text(str(src)), read_text(str(ref))
    if len(sources) != len(refs):
        raise SystemExit(f"{src} has {len(sources)} lines but {ref} has {len(refs)}")
    if args.limit:
        sources, refs = sources[: args.limit], refs[: args.limit]
    max_positions = model_info(model).get("model", {}).get("max_positions", 256)
    max_length = min(128, max_positions - 2)  # as paralib.mt.train.evaluate_test_set
    t0 = time.perf_counter()
    hyps, speed = decode(model, sources, args.beam, args.threads, max_length=max_length)
    seconds = time.perf_counter() - t0
    row = {
        "model": rel(model),
        "test_set": name,
        "src": rel(src),
        "ref": rel(ref),
        "sentences": len(sources),
        "bleu": round(bleu(hyps, refs), 2),
        "chrf": round(sacrebleu.corpus_chrf(hyps, [refs]).score, 2),
        "sentences_per_s": round(speed, 2),
        "seconds": round(seconds, 1),  # model load + decoding
        "max_length": max_length,
        "sources_over_max_length": over_limit(model, sources, max_length),
    }
    if name.startswith("multi30k"):  # the card's number, measured on the same test set
        row["card_bleu_int8"] = model_info(model).get("bleu_int8")
    return row


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", type=Path,
                    default=[Path("models/de-en"), Path("models/fr-en"), Path("models/cs-en")])
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2, help="CTranslate2 intra_threads")
    ap.add_argument("--limit", type=int, default=None, help="first N lines of each test set")
    ap.add_argument("--out", type=Path, default=RESULTS / "mt-news.json")
    args = ap.parse_args(argv)

    import sacrebleu

    load_before = os.getloadavg()
    t_all = time.perf_counter()
    rows = []
    for model in args.models:
        model = model if model.is_absolute() or model.exists() else PROJECT_ROOT / model
        check_model_dir(model)
        lang, tgt = model_language(model)
        if tgt != "en":
            raise SystemExit(f"{model}: translates {lang}→{tgt}; only X→en models here")
        for name, src, ref in (news_set(lang), multi30k_set(lang)):
            row = evaluate(model, name, src, ref, args)
            row["src_lang"] = lang
            print(f"{row['model']} {name}: BLEU {row['bleu']} chrF {row['chrf']} "
                  f"({row['sentences']} sentences, {row['seconds']} s)", flush=True)
            rows.append(row)
    total_s = time.perf_counter() - t_all

    result = {
        "setup": {"beam": args.beam, "threads": args.threads, "limit": args.limit,
                  "device": "cpu", "compute_type": "default (the model's own)",
                  "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
                  "cpu_count": os.cpu_count(),
                  "load_average_before": load_before, "load_average_after": os.getloadavg(),
                  "data_root": str(data_root()),
                  "news_rule": f"{PREFERRED_NEWS} if present, else the newest newstest<year>",
                  "bleu": signature(sacrebleu.BLEU()),
                  "chrf": signature(sacrebleu.CHRF()),
                  "seconds_total": round(total_s, 1)},
        "results": rows,
    }
    print()
    print(table(rows, ["model", "test_set", "sentences", "bleu", "chrf", "sentences_per_s",
                       "card_bleu_int8"]))
    out = args.out if args.out.is_absolute() else Path.cwd() / args.out
    if out.resolve().parent == RESULTS and out.suffix == ".json":
        path = write_json(out.stem, result)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(stamp(result), indent=2))
        path = out
    print(f"\n{len(rows)} runs in {total_s:.0f} s; wrote {path}")
