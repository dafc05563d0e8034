"""The README's main command, on a small slice, and every shipped config file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from paralib.cli import main
from paralib.config import load_config
from paralib.io.shards import read_output
from paralib.paths import PROJECT_ROOT

CONFIGS = sorted((PROJECT_ROOT / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_configs_validate(path: Path):
    load_config(path)


def test_quickstart_on_a_slice(ray_session, tiny_mt, m30k, tmp_path, capsys):
    """The whole main job, every stage, on 300 sentences with the tiny model."""
    text = (PROJECT_ROOT / "configs" / "quickstart.yaml").read_text()
    cfg = tmp_path / "quickstart.yaml"
    cfg.write_text(text.replace("output/quickstart", str(tmp_path / "qs")))
    code = main(["quickstart", "--no-progress", "--config", str(cfg),
                 "--set", f"backtranslate.model={tiny_mt}/ct2-int8",
                 "--set", "backtranslate.max_decoding_length=40",
                 "--set", "bitext.shard_rows=100",
                 "--set", f"bitext.inputs=[{{corpus: m30k, src_lang: de, "
                          f"src: '{m30k['train_de']}', en: '{m30k['train_en']}', limit: 300}}]",
                 "--set", "classifier.epochs=2", "--set", "classifier.encoders=[avg]",
                 "--set", "select.size=40",
                 "--set", "select.bounds=[{column: len_trans, lower: 1, upper: 100}]",
                 "--set", "train.epochs=1", "--set", "train.cpus_per_worker=0.5",
                 "--set", "train.model.parts=[{name: sp, vocab_size: 200, dim: 32}]"])
    assert code == 0
    out = capsys.readouterr().out
    assert "rows_in=300 = rows_out=300 + rows_rejected=0; 1200 candidate pairs" in out
    assert "Two young, White males are outside near many bushes. |||" in out
    assert "classifier avg: test accuracy" in out
    assert "selected 40 pairs" in out
    assert "STS Benchmark Pearson x100 of the quickstart model: dev" in out
    assert "random-trigram" in out and "glove" in out  # the baselines' rows
    assert "paralib-en (shipped)" in out  # the shipped encoder beside the new one
    for name in ("backtranslate/_summary.json", "score/_summary.json", "lm/lms.json",
                 "classifier/metrics.json", "select/pairs.parquet", "select/selection.json",
                 "analysis/report.html", "analysis/report.json", "model/model.safetensors",
                 "model/training.png", "evaluate/report.html", "evaluate/report.json"):
        assert (tmp_path / "qs" / name).is_file(), name
    scored = read_output(str(tmp_path / "qs" / "score")).to_pandas()
    for col in ("len_trans", "cost", "overlap1", "bleu", "lm_ppl", "p_ref", "para_score"):
        assert scored[col].notna().all(), col


def test_backtranslation_needs_neither_torch_nor_transformers():
    code = ("import sys, paralib.cli, paralib.translate.backtranslate, "
            "paralib.translate.translator, paralib.config; paralib.config.Config(); "
            "bad = [m for m in ('torch', 'transformers') if m in sys.modules]; "
            "print(*bad); sys.exit(1 if bad else 0)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
