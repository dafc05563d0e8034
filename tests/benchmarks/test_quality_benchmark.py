"""``benchmarks/quality.py`` on a tiny subset: every row is measured by the evaluation suite,
the peers are trained on the same pairs, and the table and JSON are written."""

from __future__ import annotations

import json
import math
import subprocess
import sys

from paralib.paths import PROJECT_ROOT


def test_tiny_quality_benchmark(tmp_path, val_pairs):
    shipped = PROJECT_ROOT / "models" / "paralib-en"
    cmd = [sys.executable, str(PROJECT_ROOT / "benchmarks" / "quality.py"), "--tiny",
           "--pairs-from", str(val_pairs), "--out", str(tmp_path),
           "--model", f"paralib-en={shipped}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads((tmp_path / "quality.json").read_text())
    rows = {r["model"]: r for r in result["rows"]}
    assert set(rows) == {"paralib-en", "random-trigram", "paralib (same pairs)",
                         "st-static mnrl", "st-static megabatch"}
    for name, r in rows.items():
        for col in ("all-24", "year mean", "STSB dev", "STSB test", "sent/s 1 thread"):
            assert not math.isnan(r[col]), (name, col)
        assert -100 <= r["all-24"] <= 100
    # the shipped encoder is far from a random one on the same 24 sets
    assert rows["paralib-en"]["all-24"] > rows["random-trigram"]["all-24"] + 3
    table = (tmp_path / "quality.md").read_text()
    assert "| model |" in table and "st-static mnrl" in table and "lr" in table
