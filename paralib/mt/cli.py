"""``paralib mt train|finish|convert``: translation models (:mod:`paralib.mt.train`)."""

from __future__ import annotations

import argparse
import json

from paralib.commands import Command, Group, configured

GROUP = Group("mt", help="translation models", dest="mt_command")


def _train_options(p: argparse.ArgumentParser) -> None:
    step = p.add_mutually_exclusive_group()
    step.add_argument("--prepare-only", action="store_true",
                      help="stop after the streamed, decontaminated token store "
                           "(<output>/data, <output>/mt-config.yaml for another machine)")
    step.add_argument("--no-convert", action="store_true",
                      help="stop after <output>/hf (no CTranslate2 here); finish it later "
                           "with 'paralib mt finish'")


def _train(cfg, args) -> str:
    from paralib.mt.train import train_mt

    progress = not args.no_progress
    if args.prepare_only:
        from paralib.mt.prepare import prepare

        return json.dumps(prepare(cfg.mt, progress)[3], indent=2)
    metrics = train_mt(cfg.mt, progress=progress, convert_models=not args.no_convert)
    return json.dumps({k: v for k, v in metrics.items() if k != "history"}, indent=2)


def _finish(cfg, args) -> str:
    from paralib.mt.train import convert_and_test

    metrics = convert_and_test(cfg.mt)
    return json.dumps({k: v for k, v in metrics.items() if k != "history"}, indent=2)
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
    configured("mt train", "train a Marian model and convert it to CTranslate2",
               "paralib mt train --config configs/mt-de-en.yaml", _train, options=_train_options),
    configured("mt finish", "convert <output>/hf to CTranslate2 and score the test set",
               "paralib mt finish --config configs/mt-news-de-en.yaml", _finish),
    Command("mt convert", _add_convert, _convert,
            "paralib mt convert hf-model/ models/xx-en --quantization int8"),
)
