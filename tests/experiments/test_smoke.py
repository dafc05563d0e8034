"""Two experiments end to end at their smoke size: real data, real training (in process, tiny
encoders, one epoch), real evaluation, a results section and a plot; then a rerun that reuses
every run, and the command line."""

from __future__ import annotations

import argparse
import gzip
import json
import re

import pandas as pd
import pytest
import yaml

from paralib.cli import main
from paralib.experiments import cli, run_experiment
from paralib.experiments.book import section_names
from paralib.experiments.spec import EXPERIMENTS_DIR
from paralib.paths import data_root


@pytest.fixture(scope="module")
def mega(tmp_path_factory):
    out = tmp_path_factory.mktemp("experiments")
    return out, run_experiment("mega-batching", size="smoke", out=out, echo=lambda _: None)


@pytest.mark.slow
def test_mega_batching_smoke_end_to_end(mega):
    out, result = mega
    assert result.failed == [] and len(result.records) == 9
    assert all(r.status == "ok" for r in result.records.values())
    word = result.records["WORD M=20"]
    # 500 caption pairs, less those that share a side with an evaluation set or repeat
    assert word.train.pairs + word.train.rejected == 500
    assert word.train.pairs > 450 and word.train.best_epoch == 1
    assert 0 < word.results["sts17"]["sets"]["en-en"]["pearson"] < 100
    assert (out / "mega-batching/smoke/runs/LSTM-M-40/model/config.json").is_file()
    cells = result.table.cells
    assert all(cells[(r, c)].ours is not None for r in result.table.rows
               for c in result.table.columns)
    text = result.results.read_text()
    assert result.results == out / "mega-batching/smoke/RESULTS.md"
    assert section_names(text) == ["mega-batching"]
    assert "| M=40 | 84.1 |" in text and "paralib experiment mega-batching --smoke" in text
    assert "Wall time here:" in text and "for 9 run(s) made in this invocation" in text
    assert result.plot is not None and result.plot.stat().st_size > 10_000
    assert "](plots/mega-batching.png)" in text


def test_rerun_reuses_every_run(mega):
    out, first = mega
    again = run_experiment("mega-batching", size="smoke", out=out, echo=lambda _: None)
    assert all(r.reused for r in again.records.values())
    assert again.seconds < first.seconds
    assert {k: c.ours for k, c in again.table.cells.items()} == \
        {k: c.ours for k, c in first.table.cells.items()}
    assert "the 9 run(s) took" in again.results.read_text()
    assert "reused them all" in again.results.read_text()
    assert section_names(again.results.read_text()) == ["mega-batching"]


def _scored_pairs(folder) -> None:
    """A stand-in for the quickstart's scored back-translations: two captions of one image
    as reference and 'translation', with the columns selection reads."""
    base = data_root() / "bitext/multi30k/task2/raw"
    with gzip.open(base / "train.1.en.gz", "rt") as a, gzip.open(base / "train.2.en.gz",
                                                                  "rt") as b:
        refs = [next(a).strip() for _ in range(600)]
        hyps = [next(b).strip() for _ in range(600)]
    same = [int(r == h) for r, h in zip(refs, hyps, strict=True)]
    df = pd.DataFrame({"corpus": "multi30k-de", "id": range(600), "ref": refs, "trans": hyps,
                       "rank": 0, "identical": same})
    part = folder / "data" / "multi30k-de-0"
    part.mkdir(parents=True)
    df.to_parquet(part / "part-0.parquet", index=False)
    # a finished stage output: its summary is written last (paralib.io.shards refuses Parquet
    # parts without a completion marker)
    (folder / "_summary.json").write_text(json.dumps({"stage": "score", "rows_out": len(df)}))


@pytest.mark.slow
def test_bitext_vs_backtranslation_smoke(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # relative inputs (output/quickstart/score) resolve here
    out = tmp_path / "exp"
    first = run_experiment("bitext-vs-backtranslation", size="smoke", out=out,
                           echo=lambda _: None)
    missing = {n: r for n, r in first.records.items() if r.status == "missing"}
    assert sorted(missing) == sorted(f"{m} back-translated" for m in
                                     ("BLSTM-SP (20k)", "SP (20k)", "WORD", "TRIGRAM"))
    assert all("output/quickstart/score" in r.message and "paralib quickstart" in
               r.message for r in missing.values())
    sp = first.records["SP (20k) bitext 2N"]
    assert sp.status == "ok" and sp.train.pairs == 400
    assert sp.train.bilingual is True and sp.train.languages == ["de", "en"]
    assert "missing input" in first.results.read_text()

    _scored_pairs(tmp_path / "output/quickstart/score")
    second = run_experiment("bitext-vs-backtranslation", size="smoke", out=out,
                            echo=lambda _: None)
    assert second.failed == []
    bt = second.records["SP (20k) back-translated"]
    assert bt.status == "ok" and not bt.reused
    assert bt.selection["rows_out"] == 200
    assert bt.train.pairs + bt.train.rejected == 200 and bt.train.pairs > 180
    assert bt.train.bilingual is False
    assert second.records["SP (20k) bitext 2N"].reused
    assert second.table.cells[("SP (20k)", "en-en")].ours is not None
    record = json.loads((out / "bitext-vs-backtranslation/smoke/runs/SP-20k-back-translated/"
                                "run.json").read_text())
    assert record["results"]["sts"]["all"]["datasets"] == 24


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paralib")
    cli.add_parser(parser.add_subparsers(dest="command", required=True))
    return parser


def test_cli_parses_and_lists(capsys):
    args = _parser().parse_args(["experiment", "mega-batching", "--smoke", "--out", "/x"])
    assert (args.name, args.smoke, args.out, args.size) == ("mega-batching", True, "/x", "full")
    args = _parser().parse_args(["experiment", "encoders", "--size", "small"])
    assert args.size == "small" and not args.smoke and args.overrides == []
    args = _parser().parse_args(["experiment", "noise", "--set", "train.workers=2", "--set",
                                 "train.lr=0.01"])
    assert args.overrides == ["train.workers=2", "train.lr=0.01"] and not args.no_progress
    with pytest.raises(SystemExit):  # the runs' configs come from the experiment
        _parser().parse_args(["experiment", "noise", "--config", "c.yaml"])
    assert cli.run(_parser().parse_args(["experiment", "--list"])) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 15 and lines[6].split()[:2] == ["7", "mega-batching"]
    states = [re.sub(r" \(runs kept: (small|full) \d+/\d+(, full \d+/\d+)?\)$", "", line)
              for line in lines]
    assert states[6].endswith("runnable")
    assert all(state.endswith(" runnable") or " not yet runnable: needs " in state
               for state in states)


def test_cli_errors(capsys, tmp_path):
    # each error is one message through the command line, with its hint (exit status 2)
    assert main(["experiment"]) == 2
    assert "paralib: error: give an experiment NAME or --list" in capsys.readouterr().err
    assert main(["experiment", "no-such-thing"]) == 2
    assert "no experiment 'no-such-thing'" in capsys.readouterr().err
    assert main(["experiment", "mega-batching", "--set", "train.epochs"]) == 2
    assert "--set expects key=value, got 'train.epochs'" in capsys.readouterr().err
    assert main(["experiment", "mega-batching", "--smoke", "--out", str(tmp_path), "--set",
                 "train.epochz=1"]) == 2
    err = capsys.readouterr().err
    assert "--set train.epochz makes an invalid config" in err
    assert "train.epochz: unknown key" in err
    assert not (tmp_path / "mega-batching").exists()  # nothing ran
    tree = yaml.safe_load((EXPERIMENTS_DIR / "folds.yaml").read_text())
    tree["needs"] = [{"todo": "a capability paralib lacks", "why": "to test the message"}]
    path = tmp_path / "folds.yaml"
    path.write_text(yaml.safe_dump(tree, allow_unicode=True))
    assert main(["experiment", str(path), "--smoke", "--out", str(tmp_path)]) == 2
    assert "experiment folds is not yet runnable: needs a capability paralib lacks (to test " \
        "the message)" in capsys.readouterr().err
