"""The ``paralib`` command line: one subcommand per stage, each ``--config FILE --set k=v``.

Jobs under ``jobs/`` call :func:`main` with a fixed subcommand, so that
``ray job submit -- python jobs/backtranslate.py --config X`` is ``paralib backtranslate
--config X`` on a cluster.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from paralib.config import Config, ConfigError, load_config
from paralib.paths import PROJECT_ROOT, DataNotFoundError

QUICKSTART_CONFIG = PROJECT_ROOT / "configs" / "quickstart.yaml"


def _config_args(p: argparse.ArgumentParser, default: Path | None = None) -> None:
    p.add_argument("--config", "-c", default=str(default) if default else None,
                   help="YAML configuration file" + (f" (default: {default})" if default else ""))
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config value, e.g. --set backtranslate.beam_size=8")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="paralib", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("quickstart", help="the embedded default run on ../shared/data")
    _config_args(p, QUICKSTART_CONFIG)

    p = sub.add_parser("backtranslate", help="translate the non-English side into English")
    _config_args(p)

    p = sub.add_parser("pivot", help="round-trip (pivot) paraphrases of English text")
    _config_args(p)

    p = sub.add_parser("paraphrase", help="k-best paraphrases from a paraphrase model")
    _config_args(p)

    p = sub.add_parser(
        "decontaminate", help="the training-ready corpus: checked, decontaminated, grouped",
        description="Read bitext.inputs and bitext.corpora, reject bad lines, remove every pair "
        "sharing a side with an evaluation set, group and de-duplicate, and write "
        "decontaminate.output. Example: paralib decontaminate --config configs/bitext-all.yaml")
    _config_args(p)

    p = sub.add_parser("score", help="add one column per scorer to candidate pairs")
    _config_args(p)

    p = sub.add_parser("select", help="build a training set from scored pairs")
    _config_args(p)

    p = sub.add_parser("analyze", help="write the analysis report of a scored corpus")
    _config_args(p)

    lm = sub.add_parser("lm", help="KenLM language models").add_subparsers(dest="lm_command",
                                                                           required=True)
    _config_args(lm.add_parser("train", help="train 3-gram models on held-out references"))

    clf = sub.add_parser("classifier", help="reference/translation classifiers")
    clf_sub = clf.add_subparsers(dest="clf_command", required=True)
    _config_args(clf_sub.add_parser("train", help="train the AVG and LSTM classifiers"))

    p = sub.add_parser("train", help="train a paraphrastic encoder with Ray Train")
    _config_args(p)
    p.add_argument("--fresh", action="store_true", help="start the run of train.name over "
                   "instead of resuming it (deletes that run folder, which paralib made)")

    p = sub.add_parser("encode", help="embed a text file (one sentence per line) to .npy")
    p.add_argument("--model", required=True, help="trained model folder")
    p.add_argument("--input", required=True, help="text file, one sentence per line (.gz ok)")
    p.add_argument("--output", required=True, help="output .npy file")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--normalize", action="store_true", help="unit-length vectors")

    from paralib.evaluate import cli as evaluate_cli

    evaluate_cli.add_parser(sub)
    from paralib.tune import cli as tune_cli

    tune_cli.add_parser(sub)
    from paralib.experiments import cli as experiment_cli

    experiment_cli.add_parser(sub)
    from paralib.corpora import cli as corpora_cli

    corpora_cli.add_parser(sub)

    p = sub.add_parser("config", help="print the validated configuration as YAML")
    _config_args(p)

    mt = sub.add_parser("mt", help="translation models").add_subparsers(dest="mt_command",
                                                                         required=True)
    p = mt.add_parser("train", help="train a Marian model and convert it to CTranslate2")
    _config_args(p)
    p = mt.add_parser("convert", help="convert a Hugging Face seq2seq model to CTranslate2")
    p.add_argument("src", help="model folder (config.json, weights, tokenizer files)")
    p.add_argument("dst", help="output folder")
    p.add_argument("--quantization", default="int8", help="int8 (default), float32, float16...")
    return parser


def _load(args) -> Config:
    return load_config(args.config, args.overrides)


def run(args) -> int:
    """Dispatch a parsed command line."""
    progress = not getattr(args, "no_progress", False)
    if args.command == "config":
        import yaml

        from paralib.redact import redact

        print(yaml.safe_dump(redact(_load(args).model_dump(mode="json")), sort_keys=False))
        return 0
    if args.command == "quickstart":
        from paralib.quickstart import quickstart

        quickstart(_load(args), progress=progress)
        return 0
    if args.command == "backtranslate":
        from paralib.translate.backtranslate import backtranslate

        print(backtranslate(_load(args), progress=progress).text())
        return 0
    if args.command == "pivot":
        from paralib.translate.pivot import pivot

        print(pivot(_load(args), progress=progress).text())
        return 0
    if args.command == "paraphrase":
        from paralib.translate.paraphrase import paraphrase

        print(paraphrase(_load(args), progress=progress).text())
        return 0
    if args.command == "score":
        from paralib.filters.stage import score

        print(score(_load(args), progress=progress).text())
        return 0
    if args.command == "select":
        from paralib.select import run_select

        cfg = _load(args)
        report = run_select(cfg.select, cfg.s3.options())
        print(json.dumps({k: report[k] for k in ("rows_in", "rows_out", "steps", "files")},
                         indent=2, default=str))
        return 0
    if args.command == "analyze":
        from paralib.analysis.run import run_analyze

        cfg = _load(args)
        print(f"report: {run_analyze(cfg.analyze, cfg.s3.options())}")
        return 0
    if args.command == "lm":
        from paralib.lm.run import run_lm

        cfg = _load(args)
        print(json.dumps(run_lm(cfg.lm, cfg.s3.options()), indent=2))
        return 0
    if args.command == "classifier":
        from paralib.classifier.run import run_classifier

        cfg = _load(args)
        print(json.dumps(run_classifier(cfg.classifier, cfg.s3.options()), indent=2))
        return 0
    if args.command == "train":
        from paralib.train.run import train

        summary = train(_load(args), progress=progress, fresh=args.fresh)
        print(json.dumps({k: v for k, v in summary.items() if k != "history"}, indent=2))
        return 0
    if args.command == "evaluate":
        from paralib.evaluate.cli import run as run_evaluate

        return run_evaluate(args)
    if args.command == "experiment":
        from paralib.experiments import cli as experiment_cli

        return experiment_cli.run(args)
    if args.command == "decontaminate":
        from paralib.decontaminate.stage import decontaminate, per_eval_set

        report = decontaminate(_load(args), progress=progress)
        print(report.text())
        print("removed per evaluation set: " + (", ".join(
            f"{k} {v}" for k, v in per_eval_set(report.reasons).items()) or "none"))
        return 0
    if args.command in ("captions", "sts-sentences", "corpora"):
        from paralib.corpora import cli as corpora_cli

        return corpora_cli.run(args)
    if args.command == "tune":
        from paralib.tune.cli import run as run_tune

        return run_tune(args)
    if args.command == "encode":
        from paralib.models.encode_file import encode_file

        print(json.dumps(encode_file(args.model, args.input, args.output, args.batch_size,
                                     args.normalize), indent=2))
        return 0
    if args.command == "mt" and args.mt_command == "train":
        from paralib.mt.train import train_mt

        metrics = train_mt(_load(args).mt, progress=progress)
        print(json.dumps({k: v for k, v in metrics.items() if k != "history"}, indent=2))
        return 0
    if args.command == "mt" and args.mt_command == "convert":
        from paralib.mt.convert import convert

        print(f"converted to {convert(args.src, args.dst, args.quantization)}")
        return 0
    raise AssertionError(f"unhandled command {args.command}")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``paralib`` console script; returns the exit status."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    from paralib.redact import RedactingFilter

    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactingFilter())
    args = build_parser().parse_args(argv)
    from paralib.cluster.errors import ClusterAddressError
    from paralib.filters.base import ScorerError
    from paralib.io.bitext import BitextError
    from paralib.models.errors import ModelFolderError, ModelLoadError
    from paralib.mt.convert import ConversionError
    from paralib.select.steps import SelectError
    from paralib.train.identity import RunIdentityError
    from paralib.train.sources import SourceError

    try:
        return run(args)
    except (ConfigError, BitextError, ConversionError, DataNotFoundError, ScorerError,
            SelectError, FileNotFoundError, ModelLoadError, ModelFolderError, SourceError,
            RunIdentityError, ClusterAddressError) as exc:
        from paralib.redact import redact_text

        print(f"paralib: error: {redact_text(str(exc))}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
