"""``python -m benchmarks NAME``: the one entry point of every benchmark."""

from __future__ import annotations

import subprocess
import sys

from paralib.paths import PROJECT_ROOT


def test_help_lists_every_benchmark_script(load_script, capsys):
    harness = load_script("__main__")
    scripts = {p.stem for p in (PROJECT_ROOT / "benchmarks").glob("*.py")
               if p.stem != "__main__" and "\ndef main(" in p.read_text()}
    assert {"fp16", "quality", "train_speed", "crosslingual_curve"} <= scripts
    assert harness.main(["--help"]) == 0
    listed = {line.split()[0] for line in capsys.readouterr().out.splitlines()
              if line.startswith("  ")}
    assert listed == scripts


def test_unknown_benchmark_exits_2_naming_the_choices(load_script, capsys):
    assert load_script("__main__").main(["nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown benchmark 'nope'" in err and "fp16" in err


def test_runs_a_benchmark_as_a_package_module():
    done = subprocess.run([sys.executable, "-m", "benchmarks", "fp16", "--help"],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage: python -m benchmarks fp16")
    assert "--model NAME=DIR" in done.stdout
