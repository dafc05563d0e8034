"""``benchmarks/crosslingual_curve.py``: the log-linear fit and the pairs a target needs, and a
``--smoke`` run on a tiny German-English subset that trains, scores with the evaluation suites
sts17 and tatoeba, fits and writes its JSON."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from paralib.paths import PROJECT_ROOT

SCRIPT = ["-m", "benchmarks", "crosslingual_curve"]  # run from PROJECT_ROOT


def test_fit_recovers_a_line_and_the_pairs_a_target_needs(load_script):
    curve = load_script("crosslingual_curve")
    pairs = [1_000, 2_000, 4_000, 8_000]
    got = curve.fit_curve(pairs, [20 + 5 * math.log2(p) for p in pairs], 90.0)
    assert got["a"] == pytest.approx(20) and got["b"] == pytest.approx(5)
    assert got["r2"] == pytest.approx(1)
    assert got["pairs_needed"] == pytest.approx(2 ** 14)  # 20 + 5 * 14 = 90


def test_fit_without_a_rising_slope_never_reaches_the_target(load_script):
    curve = load_script("crosslingual_curve")
    flat = curve.fit_curve([100, 200, 400], [30.0, 30.0, 30.0], 60.0)
    assert flat["pairs_needed"] == math.inf and flat["r2"] == 1.0
    falling = curve.fit_curve([100, 200, 400], [40.0, 35.0, float("nan")], 60.0)
    assert falling["points"] == 2 and falling["pairs_needed"] == math.inf
    assert curve.fit_curve([100], [40.0], 60.0)["pairs_needed"] is None


def test_anneal_reaches_the_largest_megabatch_after_15_percent(load_script):
    curve = load_script("crosslingual_curve")
    assert curve.anneal_for(1_898_000) == 150  # paralib-multi: 18,980 mini-batches
    assert curve.anneal_for(50) == 1


@pytest.mark.slow
def test_smoke_run_writes_runs_and_fits(tmp_path, val_pairs):
    out = tmp_path / "curve.json"
    cmd = [sys.executable, *SCRIPT, "--smoke", "--langs", "de", "--data",
           str(val_pairs), "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False,
                          cwd=PROJECT_ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    # the harness's header: what ran, where, and the load before and after
    assert result["benchmark"] == "crosslingual_curve"
    assert result["command"].startswith("python -m benchmarks crosslingual_curve --smoke")
    assert len(result["load_average"]["before"]) == len(result["load_average"]["after"]) == 3
    assert result["machine"]["cores"] >= 1
    runs = result["runs"]
    assert [(r["lang"], r["fraction"], r["pairs"]) for r in runs] == [("de", 0.5, 300),
                                                                      ("de", 1.0, 600)]
    for r in runs:
        assert 1 <= r["best_epoch"] <= r["epochs"] == len(r["history"])
        assert -100 <= r["sts17"] <= 100 and "de-en" in r["sts17_sets"]
        assert 0 <= r["tatoeba"] <= 100
        assert r["tatoeba"] == pytest.approx((r["tatoeba_xx_en"] + r["tatoeba_en_xx"]) / 2)
    assert runs[0]["epochs"] == 2 * runs[1]["epochs"]  # the same pairs seen by every run
    fits = {f["metric"]: f for f in result["fits"]}
    assert set(fits) == {"sts17", "tatoeba"} and fits["tatoeba"]["target_applies"]
    assert all(f["points"] == 2 and f["pairs_available"] == 600 for f in fits.values())
    assert "pairs needed" in done.stdout and "STS17 xx-en" in done.stdout
    # two invocations' JSONs merge into the same result (fits made again from all runs)
    parts = []
    for i, run in enumerate(runs):
        parts.append(tmp_path / f"part{i}.json")
        parts[-1].write_text(json.dumps({**result, "runs": [run]}))
    merged = tmp_path / "merged.json"
    done = subprocess.run([sys.executable, *SCRIPT, "--merge", *map(str, parts), "--out",
                           str(merged)], capture_output=True, text=True, timeout=300,
                          check=False, cwd=PROJECT_ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    both = json.loads(merged.read_text())
    assert [r["part"] for r in both["runs"]] == [0, 1]
    assert both["fits"] == result["fits"] and len(both["parts"]) == 2
    twice = subprocess.run([sys.executable, *SCRIPT, "--merge", str(parts[0]),
                            str(parts[0]), "--out", str(tmp_path / "no.json")],
                           capture_output=True, text=True, timeout=300, check=False,
                           cwd=PROJECT_ROOT)
    assert twice.returncode != 0 and "more than one part" in twice.stderr
