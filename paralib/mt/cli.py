"""``paralib mt train|finish|convert``: translation models (:mod:`paralib.mt.train`)."""

from __future__ import annotations

import argparse
import json

from paralib.commands import Command, Group
from paralib.config import add_config_args, load_config

GROUP = Group("mt", help="translation models", dest="mt_command")


def _add_train(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("train", help="train a Marian model and convert it to CTranslate2")
    add_config_args(p)
    step = p.add_mutually_exclusive_group()
    step.add_argument("--prepare-only", action="store_true",
                      help="stop after the streamed, decontaminated token store "
                           "(<output>/data, <output>/mt-config.yaml for another machine)")
    step.add_argument("--no-convert", action="store_true",
                      help="stop after <output>/hf (no CTranslate2 here); finish it later "
                           "with 'paralib mt finish'")
    return p


def _train(args: argparse.Namespace) -> int:
    from paralib.mt.train import train_mt

    cfg = load_config(args.config, args.overrides).mt
    progress = not args.no_progress
    if args.prepare_only:
        from paralib.mt.prepare import prepare

        print(json.dumps(prepare(cfg, progress)[3], indent=2))
        return 0
    metrics = train_mt(cfg, progress=progress, convert_models=not args.no_convert)
    print(json.dumps({k: v for k, v in metrics.items() if k != "history"}, indent=2))
    return 0


def _add_finish(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("finish",
                              help="convert <output>/hf to CTranslate2 and score the test set")
    add_config_args(p)
    return p


def _finish(args: argparse.Namespace) -> int:
    from paralib.mt.train import convert_and_test

    metrics = convert_and_test(load_config(args.config, args.overrides).mt)
    print(json.dumps({k: v for k, v in metrics.items() if k != "history"}, indent=2))
    return 0


def _add_convert(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("convert", help="convert a Hugging Face seq2seq model to "
                              "CTranslate2")
    p.add_argument("src", help="model folder (config.json, weights, tokenizer files)")
    p.add_argument("dst", help="output folder")
    p.add_argument("--quantization", default="int8", help="int8 (default), float32, float16...")
    return p


def _convert(args: argparse.Namespace) -> int:
    from paralib.mt.convert import convert

    print(f"converted to {convert(args.src, args.dst, args.quantization)}")
    return 0


COMMANDS = (
    Command("mt train", _add_train, _train, "paralib mt train --config configs/mt-de-en.yaml"),
    Command("mt finish", _add_finish, _finish,
            "paralib mt finish --config configs/mt-news-de-en.yaml"),
    Command("mt convert", _add_convert, _convert,
            "paralib mt convert hf-model/ models/xx-en --quantization int8"),
)
