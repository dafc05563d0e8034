"""The ``paralib`` command line: one subcommand per stage, each ``--config FILE --set k=v``.

Jobs under ``jobs/`` call :func:`main` with a fixed subcommand, so that
``ray job submit -- python jobs/backtranslate.py --config X`` is ``paralib backtranslate
--config X`` on a cluster.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from paralib.config import Config, add_config_args, load_config
from paralib.console import (
    configure,
    default_log_root,
    keep_ray_logs,
    log_to_file,
    reset,
    run_log_dir,
)
from paralib.paths import PROJECT_ROOT

QUICKSTART_CONFIG = PROJECT_ROOT / "configs" / "quickstart.yaml"
# Commands that run stages get a log folder (<log root>/<command>-<time>/paralib.log).
LOGGED = {"quickstart", "backtranslate", "pivot", "paraphrase", "decontaminate", "score",
          "select", "analyze", "lm", "classifier", "train", "encode", "mine", "evaluate", "tune",
          "experiment", "mt"}
# One example command line per subcommand, shown at the end of its --help.
EXAMPLES = {
    "quickstart": "paralib quickstart",
    "backtranslate": "paralib backtranslate --config configs/bt-fr.yaml",
    "pivot": "paralib pivot --config configs/sts2016-roundtrip.yaml",
    "paraphrase": "paralib paraphrase --config configs/paraphrase.yaml",
    "decontaminate": "paralib decontaminate --config configs/bitext-all.yaml",
    "score": "paralib score --config configs/quickstart.yaml",
    "select": "paralib select --config configs/quickstart.yaml --set select.size=20000",
    "analyze": "paralib analyze --config configs/quickstart.yaml",
    "lm train": "paralib lm train --config configs/quickstart.yaml",
    "classifier train": "paralib classifier train --config configs/quickstart.yaml",
    "train": "paralib train --config configs/paralib-en.yaml",
    "encode": ("paralib encode --model models/paralib-en --input 'news/*.de.gz' --lang de "
               "--output output/encode-de"),
    "mine": "paralib mine output/encode-de output/encode-en --output output/mine",
    "export": "paralib export models/paralib-en output/paralib-en-st --to sentence-transformers",
    "evaluate": "paralib evaluate --model models/paralib-en --baseline glove --suite sts",
    "tune": "paralib tune --space tune/spaces/learning-rate.yaml --config configs/train-sp.yaml",
    "experiment": "paralib experiment encoders --size smoke",
    "captions": "paralib captions --split train --output output/captions/pairs",
    "sts-sentences": "paralib sts-sentences --year 2016 --output output/sts2016/sentences.txt",
    "corpora": "paralib corpora",
    "config": "paralib config --config configs/quickstart.yaml --set train.epochs=2",
    "mt train": "paralib mt train --config configs/mt-de-en.yaml",
    "mt convert": "paralib mt convert hf-model/ models/xx-en --quantization int8",
    "mt finish": "paralib mt finish --config configs/mt-news-de-en.yaml",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="paralib", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("quickstart", help="the embedded default run on ../shared/data")
    add_config_args(p, QUICKSTART_CONFIG)

    p = sub.add_parser("backtranslate", help="translate the non-English side into English")
    add_config_args(p)

    p = sub.add_parser("pivot", help="round-trip (pivot) paraphrases of English text")
    add_config_args(p)

    p = sub.add_parser("paraphrase", help="k-best paraphrases from a paraphrase model")
    add_config_args(p)

    p = sub.add_parser(
        "decontaminate", help="the training-ready corpus: checked, decontaminated, grouped",
        description="Read bitext.inputs and bitext.corpora, reject bad lines, remove every pair "
        "sharing a side with an evaluation set, group and de-duplicate, and write "
        "decontaminate.output. Example: paralib decontaminate --config configs/bitext-all.yaml")
    add_config_args(p)

    p = sub.add_parser("score", help="add one column per scorer to candidate pairs")
    add_config_args(p)

    p = sub.add_parser("select", help="build a training set from scored pairs")
    add_config_args(p)

    p = sub.add_parser("analyze", help="write the analysis report of a scored corpus")
    add_config_args(p)

    lm = sub.add_parser("lm", help="KenLM language models").add_subparsers(dest="lm_command",
                                                                           required=True)
    add_config_args(lm.add_parser("train", help="train 3-gram models on held-out references"))

    clf = sub.add_parser("classifier", help="reference/translation classifiers")
    clf_sub = clf.add_subparsers(dest="clf_command", required=True)
    add_config_args(clf_sub.add_parser("train", help="train the AVG and LSTM classifiers"))

    p = sub.add_parser("train", help="train a paraphrastic encoder with Ray Train")
    add_config_args(p)
    p.add_argument("--fresh", action="store_true", help="start the run of train.name over "
                   "instead of resuming it (deletes that run folder, which paralib made)")

    from paralib.encode import cli as encode_cli
    from paralib.mine import cli as mine_cli

    encode_cli.add_parser(sub)
    mine_cli.add_parser(sub)

    from paralib.evaluate import cli as evaluate_cli

    evaluate_cli.add_parser(sub)
    from paralib.tune import cli as tune_cli

    tune_cli.add_parser(sub)
    from paralib.experiments import cli as experiment_cli

    experiment_cli.add_parser(sub)
    from paralib.corpora import cli as corpora_cli

    corpora_cli.add_parser(sub)
    from paralib.export import cli as export_cli

    export_cli.add_parser(sub)

    p = sub.add_parser("config", help="print the validated configuration as YAML")
    add_config_args(p)

    mt = sub.add_parser("mt", help="translation models").add_subparsers(dest="mt_command",
                                                                         required=True)
    p = mt.add_parser("train", help="train a Marian model and convert it to CTranslate2")
    add_config_args(p)
    step = p.add_mutually_exclusive_group()
    step.add_argument("--prepare-only", action="store_true",
                      help="stop after the streamed, decontaminated token store "
                           "(<output>/data, <output>/mt-config.yaml for another machine)")
    step.add_argument("--no-convert", action="store_true",
                      help="stop after <output>/hf (no CTranslate2 here); finish it later "
                           "with 'paralib mt finish'")
    p = mt.add_parser("finish", help="convert <output>/hf to CTranslate2 and score the test set")
    add_config_args(p)
    p = mt.add_parser("convert", help="convert a Hugging Face seq2seq model to CTranslate2")
    p.add_argument("src", help="model folder (config.json, weights, tokenizer files)")
    p.add_argument("dst", help="output folder")
    p.add_argument("--quantization", default="int8", help="int8 (default), float32, float16...")
    for path, leaf in leaf_parsers(parser):
        _finish(leaf, " ".join(path))
    return parser


def leaf_parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
                 ) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every runnable subcommand's parser with its command path (``("mt", "train")``)."""
    for action in parser._actions:  # argparse lists sub-parsers only on this action
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            out = []
            for name, sub in action.choices.items():
                if not sub.description:
                    sub.description = helps.get(name)
                out += leaf_parsers(sub, path + (name,))
            return out
    return [(path, parser)]


def _finish(p: argparse.ArgumentParser, command: str) -> None:
    """Add the options every subcommand shares and its example."""
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    if command in EXAMPLES:
        p.epilog = f"example:\n  {EXAMPLES[command]}"
    group = p.add_argument_group("output")
    group.add_argument("--verbose", "-v", action="store_true", default=False,
                       help="show Ray's logs and INFO lines on the terminal, and the traceback "
                       "of an error")
    group.add_argument("--log-dir", default=None, metavar="DIR",
                       help="where each run's log folder is made (default: $PARALIB_LOG_DIR "
                       "or output/logs)")


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
        report = run_select(cfg.select, cfg.s3.options(), cfg.model_dump())
        print(json.dumps({k: report[k] for k in ("rows_in", "rows_out", "steps", "files")},
                         indent=2, default=str))
        return 0
    if args.command == "analyze":
        from paralib.analysis.run import run_analyze

        cfg = _load(args)
        print(f"report: {run_analyze(cfg.analyze, cfg.s3.options(), cfg.model_dump())}")
        return 0
    if args.command == "lm":
        from paralib.lm.run import run_lm

        cfg = _load(args)
        print(json.dumps(run_lm(cfg.lm, cfg.s3.options(), cfg.model_dump()), indent=2))
        return 0
    if args.command == "classifier":
        from paralib.classifier.run import run_classifier

        cfg = _load(args)
        print(json.dumps(run_classifier(cfg.classifier, cfg.s3.options(), cfg.model_dump()),
                         indent=2))
        return 0
    if args.command == "train":
        from paralib.train.run import train

        summary = train(_load(args), progress=progress, fresh=args.fresh)
        print(json.dumps({k: v for k, v in summary.dump().items() if k != "history"}, indent=2))
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
    if args.command == "export":
        from paralib.export import cli as export_cli

        return export_cli.run(args)
    if args.command == "tune":
        from paralib.tune.cli import run as run_tune

        return run_tune(args)
    if args.command == "encode":
        from paralib.encode.cli import run as run_encode

        return run_encode(args)
    if args.command == "mine":
        from paralib.mine.cli import run as run_mine

        return run_mine(args)
    if args.command == "mt" and args.mt_command == "train":
        from paralib.mt.train import train_mt

        cfg = _load(args).mt
        if args.prepare_only:
            from paralib.mt.prepare import prepare

            info = prepare(cfg, progress)[3]
            print(json.dumps(info, indent=2))
            return 0
        metrics = train_mt(cfg, progress=progress, convert_models=not args.no_convert)
        print(json.dumps({k: v for k, v in metrics.items() if k != "history"}, indent=2))
        return 0
    if args.command == "mt" and args.mt_command == "finish":
        from paralib.mt.train import convert_and_test

        metrics = convert_and_test(_load(args).mt)
        print(json.dumps({k: v for k, v in metrics.items() if k != "history"}, indent=2))
        return 0
    if args.command == "mt" and args.mt_command == "convert":
        from paralib.mt.convert import convert

        print(f"converted to {convert(args.src, args.dst, args.quantization)}")
        return 0
    raise AssertionError(f"unhandled command {args.command}")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``paralib`` console script; returns the exit status.

    Quiet by default (:mod:`paralib.console`): logs go to a run log folder named at the end;
    an error the user can act on (:class:`~paralib.errors.ParalibError`, or a missing or
    unreadable file) prints one message with a hint; anything else is a bug, printed as one
    line with its traceback in the log (on the terminal with ``--verbose``)."""
    args = build_parser().parse_args(argv)
    verbose = getattr(args, "verbose", False)
    log_dir = None
    if args.command in LOGGED:
        log_dir = run_log_dir(getattr(args, "log_dir", None) or default_log_root(),
                              args.command)
    console = configure(verbose, log_dir)
    try:
        return run(args)
    except KeyboardInterrupt:
        print("paralib: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        return _report_error(exc, verbose, console.log_file)
    finally:
        ray_logs = keep_ray_logs()
        if console.log_file is not None and not verbose:
            where = f" (Ray's logs: {ray_logs})" if ray_logs else ""
            print(f"log: {console.log_file}{where}", file=sys.stderr)
        reset()


def _report_error(exc: Exception, verbose: bool, log_file: Path | None) -> int:
    """Print ``exc`` as one message and return the exit status (see :func:`main`)."""
    from paralib.errors import user_error
    from paralib.redact import redact_text

    err = user_error(exc)
    if err is None and isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError,
                                        NotADirectoryError)):
        err = exc
    if verbose and err is None:
        raise exc
    log_to_file("paralib failed", exc)
    if err is not None:
        hint = getattr(err, "hint", "")
        print(f"paralib: error: {redact_text(str(err))}", file=sys.stderr)
        if hint:
            print(f"  hint: {hint}", file=sys.stderr)
        return getattr(err, "exit_code", 2)
    where = f"; the traceback is in {log_file}" if log_file else ""
    print(f"paralib: internal error (a bug in paralib, please report it): "
          f"{type(exc).__name__}: {redact_text(str(exc))}{where}; --verbose shows it",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
