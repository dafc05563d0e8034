"""The README's main command, on a small slice, and every shipped config file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from paralib.cli import main
from paralib.config import load_config
from paralib.paths import PROJECT_ROOT

CONFIGS = sorted((PROJECT_ROOT / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_configs_validate(path: Path):
    load_config(path)


def test_quickstart_on_a_slice(ray_session, tiny_mt, m30k, tmp_path, capsys):
    code = main(["quickstart", "--no-progress",
                 "--set", f"backtranslate.model={tiny_mt}/ct2-int8",
                 "--set", f"backtranslate.output={tmp_path}/bt",
                 "--set", "backtranslate.max_decoding_length=40",
                 "--set", "bitext.shard_rows=100",
                 "--set", f"bitext.inputs=[{{corpus: m30k, src_lang: de, "
                          f"src: '{m30k['train_de']}', en: '{m30k['train_en']}', limit: 200}}]"])
    assert code == 0
    out = capsys.readouterr().out
    assert "rows_in=200 = rows_out=200 + rows_rejected=0; 800 candidate pairs" in out
    assert "some candidate paraphrases" in out
    assert "Two young, White males are outside near many bushes. |||" in out


def test_backtranslation_needs_neither_torch_nor_transformers():
    code = ("import sys, paralib.cli, paralib.translate.backtranslate, "
            "paralib.translate.translator; "
            "bad = [m for m in ('torch', 'transformers') if m in sys.modules]; "
            "print(*bad); sys.exit(1 if bad else 0)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
