"""``paralib mine SRC TGT``: translation pairs between two monolingual corpora.

    paralib mine news.de.txt news.en.txt --src-lang de --tgt-lang en --output output/mine
    paralib mine output/encode-de output/encode-en --threshold 1.06 --index hnsw
    paralib mine --config FILE [--set mine.k=8]

SRC and TGT are ``paralib encode`` outputs, Parquet files of their columns, or text files
(encoded first with the ``encode`` section's model, or ``--model``). The flags are shortcuts
for the ``mine`` section (``--set`` overrides them). The pairs are read by ``paralib select``
(e.g. a bound on ``margin``) and by ``paralib train`` as a ``corpus`` source.
"""

from __future__ import annotations

import argparse

from paralib.commands import Command, StageContext
from paralib.config import add_config_args
from paralib.encode.cli import flag_overrides


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``mine`` subcommand to an argparse ``add_subparsers()`` object."""
    p = subparsers.add_parser(
        "mine", help="translation pairs between two monolingual corpora (margin-scored "
        "nearest neighbours)", description=__doc__.splitlines()[0])
    p.add_argument("src", nargs="?", help="source side: encode output, Parquet or text "
                   "(mine.src)")
    p.add_argument("tgt", nargs="?", help="target side, as SRC (mine.tgt)")
    add_config_args(p, example="mine.k=8")
    p.add_argument("--model", help="model folder that encodes text inputs (encode.model)")
    p.add_argument("--src-lang", help="language of SRC (mine.src_lang)")
    p.add_argument("--tgt-lang", help="language of TGT (mine.tgt_lang)")
    p.add_argument("--output", help="output folder (mine.output)")
    p.add_argument("--index", choices=["auto", "flat", "ivf", "hnsw"],
                   help="faiss index (mine.index; auto: exact below mine.exact_below)")
    p.add_argument("--k", type=int, help="neighbours of the margin (mine.k, default 4)")
    p.add_argument("--threshold", type=float,
                   help="keep pairs with at least this margin; the rest go to rejects/")
    p.add_argument("--overwrite", action="store_true",
                   help="delete what an earlier run wrote to the output folder")
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``paralib mine``; returns the exit status."""
    from paralib.config import load_config
    from paralib.mine.stage import run as mine

    sets = flag_overrides({
        "mine.src": args.src, "mine.tgt": args.tgt, "encode.model": args.model,
        "mine.src_lang": args.src_lang, "mine.tgt_lang": args.tgt_lang,
        "mine.output": args.output, "mine.index": args.index, "mine.k": args.k,
        "mine.threshold": args.threshold, "mine.overwrite": args.overwrite})
    cfg = load_config(args.config, sets + args.overrides)
    print(mine(cfg.mine, StageContext.of(cfg, progress=not args.no_progress)).text())
    return 0


COMMANDS = (Command("mine", add_parser, run,
                    "paralib mine output/encode-de output/encode-en --output output/mine"),)
