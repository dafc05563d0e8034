"""``paralib captions`` and ``paralib sts-sentences``: corpora for the experiments.

    paralib captions --config configs/captions.yaml        # output/captions/pairs
    paralib score --config configs/captions.yaml           # output/captions/score

    paralib sts-sentences --year 2016                      # output/sts2016/sentences.txt
    paralib pivot --config configs/sts2016-roundtrip.yaml  # output/sts2016-roundtrip

``--config`` supplies the S3 settings and ``bitext.shard_rows`` (images per shard of
``captions``); both commands run in the driver, without Ray.
"""

from __future__ import annotations

import argparse
import json

from paralib.commands import Command
from paralib.config import add_config_args
from paralib.corpora.captions import SPLITS


def _add_captions(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "captions", help="Multi30k task-2 caption pairs in the back-translation schema",
        description="Write Multi30k task-2 caption pairs (caption k with caption k+1 of each "
        "image) as rows id, corpus, src_lang, src, ref, trans, rank, cost for paralib score "
        "(2017 §5.3-5.7).")
    add_config_args(p, example="bitext.shard_rows=2000", progress=False)
    p.add_argument("--output", default="output/captions/pairs",
                   help="output folder, local or s3:// (default: output/captions/pairs)")
    p.add_argument("--split", choices=SPLITS, default="train", help="default: train")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="only the first N images (4 pairs each)")
    p.add_argument("--overwrite", action="store_true",
                   help="delete the output first instead of resuming")
    return p


def _add_sts_sentences(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "sts-sentences", help="the sentences of an STS test year as a lines file",
        description="Write each distinct sentence of an STS year's input files once per line, "
        "the input of paralib pivot for round-trip paraphrases (DCU 2016 §3.2).")
    add_config_args(p, example="bitext.shard_rows=2000", progress=False)
    p.add_argument("--year", type=int, default=2016, choices=range(2012, 2017),
                   help="default: 2016")
    p.add_argument("--output", default=None,
                   help="lines file, local or s3:// (default: output/sts<YEAR>/sentences.txt)")
    p.add_argument("--scored-only", action="store_true",
                   help="only sentences of pairs with a gold score (default: every test "
                   "sentence, as DCU §3.2)")
    return p


def _add_corpora(subparsers) -> argparse.ArgumentParser:
    from paralib.corpora.registry import CORPORA

    p = subparsers.add_parser(
        "corpora", help="list the corpora a config can name, with pair counts per language",
        description="List the corpora under the data root that bitext.corpora can name "
        "(e.g. bitext.corpora: [{name: wmt-news, langs: [de, cs]}]), with pair counts; "
        "naming corpora or --lang lists their languages. Example: paralib corpora wmt-news")
    p.add_argument("names", nargs="*", choices=[[], *sorted(CORPORA)], metavar="NAME",
                   help=f"corpora to list (default: all of {', '.join(sorted(CORPORA))})")
    p.add_argument("--lang", dest="langs", action="append", default=[],
                   help="only this language (any code: de, deu, zho-TW); repeatable")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return p


def run(args: argparse.Namespace) -> int:
    """Run a parsed ``captions``, ``sts-sentences`` or ``corpora`` command line."""
    from paralib.config import load_config

    if args.command == "corpora":
        from paralib.corpora.listing import corpus_counts, format_counts
        from paralib.paths import data_root

        counts = corpus_counts(args.names, data_root(), args.langs or "all")
        if args.json:
            print(json.dumps(counts, indent=2))
        else:
            print(format_counts(counts, per_language=bool(args.names or args.langs)))
        return 0

    from paralib.io.fs import check_s3_paths

    cfg = load_config(args.config, args.overrides)
    s3 = cfg.s3.options()
    output = args.output or f"output/sts{args.year}/sentences.txt"
    # every bucket of the config and of --output, before any work
    check_s3_paths({**cfg.model_dump(), "--output": output}, s3)
    if args.command == "captions":
        from paralib.corpora.captions import write_caption_pairs

        print(write_caption_pairs(output, args.split, args.limit, cfg.bitext.shard_rows,
                                  overwrite=args.overwrite, s3=s3,
                                  stall_s=cfg.ray.stall_timeout_s).text())
        return 0
    from paralib.corpora.sts_sentences import write_sts_sentences

    print(json.dumps(write_sts_sentences(output, args.year, args.scored_only, s3), indent=2))
    return 0


COMMANDS = (
    Command("captions", _add_captions, run, "paralib captions --split train "
            "--output output/captions/pairs", logged=False),
    Command("sts-sentences", _add_sts_sentences, run, "paralib sts-sentences --year 2016 "
            "--output output/sts2016/sentences.txt", logged=False),
    Command("corpora", _add_corpora, run, "paralib corpora", logged=False),
)
