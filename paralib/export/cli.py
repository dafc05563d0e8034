"""``paralib export``: a model folder as a sentence-transformers, model2vec, ONNX or paralib folder.

    paralib export models/paralib-en output/paralib-en-st --to sentence-transformers
    paralib export models/paralib-en output/paralib-en-onnx --to onnx --quantize int8
    paralib export models/paralib-en output/paralib-en-128 --to paralib --dims 128

``--to model2vec`` takes the static models only (one averaging part over sp or word tokens);
``--to sentence-transformers`` takes every model (a ``StaticEmbedding`` where it can, else
paralib's own module, which loads with ``trust_remote_code=True``). ``--to onnx`` (the static
models) writes ``model.onnx`` and ``tokenizer.json`` for onnxruntime; ``--to paralib`` a
paralib model folder. ``--dims N`` keeps the first N dimensions and ``--quantize int8`` stores
the tables as int8 (averaging models); the card gives what they cost, measured.
"""

from __future__ import annotations

import argparse
import json

from paralib.commands import Command
from paralib.export.run import QUANTIZE, TARGETS


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``export`` subcommand to an argparse ``add_subparsers()`` object."""
    p = subparsers.add_parser(
        "export", help="export a model folder for sentence-transformers, model2vec, "
        "onnxruntime or paralib (smaller: --dims, --quantize int8)",
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
    p.add_argument("--dims", type=int, default=None, metavar="N", help="keep the first N "
                   "dimensions of the vectors (averaging models; default: all)")
    p.add_argument("--quantize", choices=QUANTIZE, default=None, help="store the embedding "
                   "tables as int8 rows with a float32 scale each (averaging models; --to onnx, "
                   "model2vec or paralib)")
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``paralib export``; returns the exit status. A bad MODEL or OUT raises its
    :class:`~paralib.errors.ParalibError` (printed by the command line)."""
    from paralib.export.run import export

    done = export(args.model, args.out, args.to, name=args.name, quality=args.quality,
                  dims=args.dims, quantize=args.quantize)
    out = str(done.out)
    load = {"model2vec": f"model2vec.StaticModel.from_pretrained({out!r})",
            "onnx": f"onnxruntime.InferenceSession({out + '/model.onnx'!r})",
            "paralib": f"paralib.load({out!r})"}.get(
        done.target, f"sentence_transformers.SentenceTransformer({out!r}"
        + (", trust_remote_code=True)" if done.module == "ParalibModule" else ")"))
    record = {"out": out, "target": done.target, "module": done.module, "name": done.name,
              "dim": done.dim, "quantize": done.quantize, "load": load}
    if done.measured is not None:
        m = done.measured
        record["measured"] = {
            "weight_bytes": [m.source.weight_bytes, m.export.weight_bytes],
            "stsb_test_pearson": [m.source.pearson, m.export.pearson],
            "stsb_test_spearman": [m.source.spearman, m.export.spearman]}
    print(json.dumps(record, indent=2))
    return 0


COMMANDS = (Command("export", add_parser, run, "paralib export models/paralib-en "
                    "output/paralib-en-st --to sentence-transformers", logged=False),)
