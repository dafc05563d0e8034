"""``paralib export``: a model folder as a sentence-transformers or model2vec folder.

    paralib export models/paralib-en output/paralib-en-st --to sentence-transformers

``--to model2vec`` takes the static models only (one averaging part over sp or word tokens);
``--to sentence-transformers`` takes every model (a ``StaticEmbedding`` where it can, else
paralib's own module, which loads with ``trust_remote_code=True``).
"""

from __future__ import annotations

import argparse
import json

from paralib.commands import Command
from paralib.export.run import TARGETS


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``export`` subcommand to an argparse ``add_subparsers()`` object."""
    p = subparsers.add_parser(
        "export", help="export a model folder for sentence-transformers or model2vec",
        description=__doc__.splitlines()[0])
    p.add_argument("model", metavar="MODEL", help="a paralib model folder")
    p.add_argument("out", metavar="OUT", help="the folder to write (an existing one is "
                   "replaced only when an earlier paralib export wrote it)")
    p.add_argument("--to", required=True, choices=TARGETS, help="the library to load it with")
    p.add_argument("--name", default=None, help="the model's name in the card and its row of "
                   "--quality (default: MODEL's folder name)")
    p.add_argument("--quality", default=None, help="the benchmarks/quality.py results whose "
                   "row gives the card's model-index (default: "
                   "benchmarks/results/quality.json)")
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``paralib export``; returns the exit status. A bad MODEL or OUT raises its
    :class:`~paralib.errors.ParalibError` (printed by the command line)."""
    from paralib.export.run import export

    done = export(args.model, args.out, args.to, name=args.name, quality=args.quality)
    load = (f"model2vec.StaticModel.from_pretrained({str(done.out)!r})"
            if done.target == "model2vec" else
            f"sentence_transformers.SentenceTransformer({str(done.out)!r}"
            + (", trust_remote_code=True)" if done.module == "ParalibModule" else ")"))
    print(json.dumps({"out": str(done.out), "target": done.target, "module": done.module,
                      "name": done.name, "dim": done.dim, "load": load}, indent=2))
    return 0


COMMANDS = (Command("export", add_parser, run, "paralib export models/paralib-en "
                    "output/paralib-en-st --to sentence-transformers", logged=False),)
