"""``paralib encode``: sentence vectors of monolingual text.

    paralib encode --config FILE [--set encode.dtype=float16]       # the Ray Data job
    paralib encode --model DIR --input 'news/*.de.gz' --lang de --output out/enc
    paralib encode --model DIR --input FILE.txt --output vectors.npy  # one file, in-process

The flags are shortcuts for the ``encode`` section (``--set`` overrides them); an output
ending in ``.npy`` keeps the single-file behaviour: every line of one ``--input`` file
encoded in this process into one matrix, row i being line i (empty lines as zero vectors).
"""

from __future__ import annotations

import argparse
import json

from paralib.commands import Command, StageContext
from paralib.config import add_config_args
from paralib.errors import ConfigurationError


def flag_overrides(values: dict[str, object]) -> list[str]:
    """``--set`` items (``key=JSON``; JSON is YAML) of the flags that were given."""
    return [f"{key}={json.dumps(v)}" for key, v in values.items()
            if v is not None and v is not False]


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``encode`` subcommand to an argparse ``add_subparsers()`` object."""
    p = subparsers.add_parser(
        "encode", help="sentence vectors of text files (a Ray Data job; or one file to .npy)",
        description=__doc__.splitlines()[0], epilog="Example: paralib encode --model "
        "models/paralib-en --input 'data/*.txt' --output output/encode --dtype float16")
    add_config_args(p, example="encode.dtype=float16")
    p.add_argument("--model", help="trained model folder, local or s3:// (encode.model)")
    p.add_argument("--input", nargs="+", action="extend", metavar="PATH",
                   help="text files or globs, one sentence a line, local or s3://, .gz ok "
                   "(encode.inputs; repeatable)")
    p.add_argument("--lang", help="language of the --input files (default: en)")
    p.add_argument("--output", help="output folder (encode.output), or a .npy file")
    p.add_argument("--dtype", choices=["float16", "float32"], help="stored vector type")
    p.add_argument("--batch-size", type=int, help="sentences per encoder call (default 256)")
    p.add_argument("--normalize", action="store_true", help="unit-length vectors")
    p.add_argument("--actors", type=int, help="encoding actors (default: one per CPU core, "
                   "or one per GPU)")
    p.add_argument("--overwrite", action="store_true",
                   help="delete what an earlier run of this stage wrote to the output folder "
                   "(the files its marker lists; never another stage's output or a user's "
                   "file), or replace an existing .npy output")
    return p


def check_inputs(patterns: list[str]) -> None:
    """Refuse a local ``--input`` that matches no file, naming the flag (an ``s3://`` one
    is checked by the stage, after its bucket)."""
    from paralib.io.fs import expand_glob, is_s3

    for pattern in [p for p in patterns if not is_s3(p)]:
        try:
            expand_glob(pattern)
        except FileNotFoundError as exc:
            raise InputFlagError(f"--input {pattern}: {exc}; expected a text file, or a glob "
                                 "that matches text files") from None


class InputFlagError(ConfigurationError, FileNotFoundError):
    """An ``--input`` of ``paralib encode`` that names no file."""


def _npy(args: argparse.Namespace) -> int:
    from paralib.encode.npy import encode_npy

    if args.config or args.overrides or not args.model or len(args.input or []) != 1:
        raise ConfigurationError(
            f"paralib encode --output {args.output}: a .npy output takes --model DIR and "
            "exactly one --input FILE, and no --config or --set (an output folder runs the "
            "Ray Data job instead)")
    check_inputs(args.input)
    print(json.dumps(encode_npy(args.model, args.input[0], args.output,
                                args.batch_size or 256, args.normalize, args.overwrite),
                     indent=2))
    return 0


def run(args: argparse.Namespace) -> int:
    """Run ``paralib encode``; returns the exit status."""
    if args.output and args.output.endswith(".npy"):
        return _npy(args)
    from paralib.config import load_config
    from paralib.encode.pipeline import run as encode

    inputs = None
    if args.input:
        inputs = [{"path": p, **({"lang": args.lang} if args.lang else {})} for p in args.input]
    elif args.lang:
        raise ConfigurationError("paralib encode: --lang names the language of --input files; "
                                 "give --input too, or set the inputs' lang in the config")
    sets = flag_overrides({
        "encode.model": args.model, "encode.inputs": inputs, "encode.output": args.output,
        "encode.dtype": args.dtype, "encode.batch_size": args.batch_size,
        "encode.normalize": args.normalize, "encode.actors": args.actors,
        "encode.overwrite": args.overwrite})
    cfg = load_config(args.config, sets + args.overrides)
    if args.input:  # a missing bucket is named first, as the stage does
        from paralib.io.fs import check_s3_paths

        check_s3_paths(cfg.model_dump(), cfg.s3.options())
        check_inputs(args.input)
    print(encode(cfg.encode, StageContext.of(cfg, progress=not args.no_progress)).text())
    return 0


COMMANDS = (Command("encode", add_parser, run, "paralib encode --model models/paralib-en "
                    "--input 'news/*.de.gz' --lang de --output output/encode-de"),)
