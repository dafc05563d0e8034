"""The subcommand registry: every stage's cli module is listed, each command once, and a
configured command loads the config and prints what its stage returns."""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from paralib import cli
from paralib.commands import Command, StageContext, configured
from paralib.config import load_config

ROOT = Path(cli.__file__).parent


def test_every_stage_cli_module_is_a_source():
    modules = {f"paralib.{p.parent.name}.cli" for p in ROOT.glob("*/cli.py")}
    assert modules <= set(cli.SOURCES), modules - set(cli.SOURCES)
    for name in modules:
        commands = importlib.import_module(name).COMMANDS
        assert commands and all(isinstance(c, Command) for c in commands), name


def test_commands_are_named_once_and_groups_declared():
    names = list(cli.COMMANDS)
    assert len(names) == len(set(names)) >= 24
    for name in names:
        first, _, rest = name.partition(" ")
        assert not rest or first in cli.GROUPS, name
    assert {"quickstart", "backtranslate", "pivot", "paraphrase", "decontaminate",
                          "score", "select", "analyze", "lm", "classifier", "train", "encode",
                          "mine", "evaluate", "tune", "experiment", "mt"} == cli.LOGGED


def test_configured_loads_the_config_and_prints_the_result(capsys, tmp_path):
    seen = {}

    def call(cfg, args):
        seen["size"] = cfg.select.size
        return "done" if args.say else None

    command = configured("thing", "a test command", "paralib thing", call,
                         options=lambda p: p.add_argument("--say", action="store_true"))
    parser = argparse.ArgumentParser()
    command.add(parser.add_subparsers(dest="command"))
    assert command.run(parser.parse_args(["thing", "--set", "select.size=7", "--say"])) == 0
    assert seen == {"size": 7} and capsys.readouterr().out == "done\n"
    assert command.run(parser.parse_args(["thing"])) == 0
    assert capsys.readouterr().out == ""


def test_stage_context_of_a_config():
    cfg = load_config(None, ["s3.endpoint_url=http://127.0.0.1:9000"])
    ctx = StageContext.of(cfg, progress=False)
    assert ctx.storage == cfg.s3.options() and ctx.config == cfg.model_dump()
    assert ctx.progress is False and ctx.log.name == "paralib" and ctx.ray == cfg.ray
