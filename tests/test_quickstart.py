"""The README's main command, on a small slice, and every shipped config file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from paralib.config import load_config
from paralib.io.shards import read_output
from paralib.paths import PROJECT_ROOT

CONFIGS = sorted((PROJECT_ROOT / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_configs_validate(path: Path):
    load_config(path)


# What Ray prints when its logs reach the terminal: worker prefixes, Ray's log format,
# the core worker's C++ lines, ANSI colours, Ray Data's and Ray Train's progress lines.
RAY_LINE = re.compile(r"\((pid|raylet|TrainController|RayTrainWorker|SplitCoordinator|"
                      r"DatasetManager)[ =]|\b(INFO|WARNING|ERROR) [\w.]+\.py:\d+ --|"
                      r"core_worker|\x1b\[|Running Dataset|execution finished in")


@pytest.mark.slow
def test_quickstart_on_a_slice(tiny_mt, m30k, tmp_path, run_logs):
    """The whole main job, every stage, on 300 sentences with the tiny model, as a user runs
    it (its own process, its own embedded Ray): quiet by default, no Ray log line on the
    terminal, at most about 60 lines, the log folder named at the end."""
    text = (PROJECT_ROOT / "configs" / "quickstart.yaml").read_text()
    cfg = tmp_path / "quickstart.yaml"
    cfg.write_text(text.replace("output/quickstart", str(tmp_path / "qs")))
    args = ["quickstart", "--config", str(cfg),
            "--set", f"backtranslate.model={tiny_mt}/ct2-int8",
            "--set", "backtranslate.max_decoding_length=40",
            "--set", "bitext.shard_rows=100",
            "--set", f"bitext.inputs=[{{corpus: m30k, src_lang: de, "
                     f"src: '{m30k['train_de']}', en: '{m30k['train_en']}', limit: 300}}]",
            "--set", "classifier.epochs=2", "--set", "classifier.encoders=[avg]",
            "--set", "select.size=40",
            "--set", "select.bounds=[{column: len_trans, lower: 1, upper: 100}]",
            "--set", "train.epochs=1", "--set", "train.cpus_per_worker=0.5",
            "--set", "train.model.parts=[{name: sp, vocab_size: 200, dim: 32}]"]
    env = {**os.environ, "PARALIB_LOG_DIR": str(tmp_path / "logs"), "RAY_ADDRESS": ""}
    proc = subprocess.run([sys.executable, "-m", "paralib", *args], capture_output=True,
                          env=env, timeout=900)  # bytes: text mode would turn \r into \n
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 0, err[-3000:]
    terminal = (out + err).rstrip("\n").split("\n")  # a bar redrawn with \r is one line
    ray_lines = [line for line in terminal if RAY_LINE.search(line)]
    assert not ray_lines, ray_lines[:5]
    assert len(terminal) <= 60, "\n".join(terminal)
    logs = list((tmp_path / "logs").glob("quickstart-*/paralib.log"))
    assert len(logs) == 1 and f"log: {logs[0]}" in err
    assert "Started a local Ray instance" in logs[0].read_text()  # Ray's lines went there
    assert any((logs[0].parent / "ray").glob("worker-*"))  # and the workers' logs
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
