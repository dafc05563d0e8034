"""``paralib backtranslate``, ``paralib pivot`` and ``paralib paraphrase``: candidate pairs.

Each reads ``bitext.inputs`` (and ``bitext.corpora``) and writes translated or paraphrased
candidates with Ray Data (:mod:`paralib.translate.pipeline`); the summary is printed.
"""

from __future__ import annotations

import argparse

from paralib.commands import Command
from paralib.config import add_config_args, load_config


def _adder(name: str, help: str):
    def add(subparsers) -> argparse.ArgumentParser:
        p = subparsers.add_parser(name, help=help)
        add_config_args(p)
        return p
    return add


def _backtranslate(args: argparse.Namespace) -> int:
    from paralib.translate.backtranslate import backtranslate

    print(backtranslate(load_config(args.config, args.overrides),
                        progress=not args.no_progress).text())
    return 0


def _pivot(args: argparse.Namespace) -> int:
    from paralib.translate.pivot import pivot

    print(pivot(load_config(args.config, args.overrides), progress=not args.no_progress).text())
    return 0


def _paraphrase(args: argparse.Namespace) -> int:
    from paralib.translate.paraphrase import paraphrase

    print(paraphrase(load_config(args.config, args.overrides),
                     progress=not args.no_progress).text())
    return 0


COMMANDS = (
    Command("backtranslate", _adder("backtranslate", "translate the non-English side into "
                                    "English"), _backtranslate,
            "paralib backtranslate --config configs/bt-fr.yaml"),
    Command("pivot", _adder("pivot", "round-trip (pivot) paraphrases of English text"), _pivot,
            "paralib pivot --config configs/sts2016-roundtrip.yaml"),
    Command("paraphrase", _adder("paraphrase", "k-best paraphrases from a paraphrase model"),
            _paraphrase, "paralib paraphrase --config configs/paraphrase.yaml"),
)
