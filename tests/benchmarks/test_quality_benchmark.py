"""``benchmarks/quality.py`` on a tiny subset: every row is measured by the evaluation suite,
the peers are trained on the same pairs, and the table and JSON are written."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from paralib.contracts import ContractError
from paralib.paths import PROJECT_ROOT


def _report(version: int | None = None) -> dict:
    """A saved evaluation report of two models (``m`` complete, ``n`` without Tatoeba fr),
    as paralib wrote it before the contracts (no ``version``) unless ``version`` is given."""
    def model(tatoeba: list[str]) -> dict:
        return {"sets": {f"{lang}-en": {"status": "ok", "xx->en": 90.0, "en->xx": 80.0}
                         for lang in tatoeba}}

    sts = {"years": {y: {"pearson": 60.0 + i} for i, y in enumerate(("2012", "2013", "2014"))},
           "all": {"pearson": 61.5}}
    report = {"data": "d", "suites": ["sts", "stsb", "tatoeba", "bucc"], "seed": 0,
              "models": {"m": {}, "n": {}},
              "tasks": {"sts": {"models": {"m": sts, "n": {"status": "error"}}},
                        "stsb": {"models": {"m": {"sets": {"dev": {"pearson": 75.0},
                                                           "test": {"pearson": 70.0}}}}},
                        "tatoeba": {"models": {"m": model(["de", "fr", "es", "ru"]),
                                               "n": model(["de", "es", "ru"])}},
                        "bucc": {"models": {"m": {"sets": {
                            p: {"test": {"f1": f}} for p, f in (("de-en", 90.0),
                                                                 ("fr-en", 80.0))}}}}}}
    return report if version is None else {"version": version, **report}


def test_rebuild_reads_the_saved_report_through_its_contract(tmp_path, load_script, capsys):
    """``--rebuild``: the columns of every model from the typed report (a missing suite or
    set is a dash, Tatoeba needs all four languages), the saved report left as it was; a
    report of a newer paralib is refused."""
    quality = load_script("quality")
    saved = json.dumps(_report())
    (tmp_path / "quality-report.json").write_text(saved)
    (tmp_path / "quality.json").write_text(json.dumps(
        {"tiny": True, "rows": [], "rates": {"m": {"1": 500.0}}, "notes": {"m": "note"}}))
    quality.main(["--rebuild", "--out", str(tmp_path)])
    result = json.loads((tmp_path / "quality.json").read_text())
    rows = {r["model"]: r for r in result["rows"]}
    m, n = rows["m"], rows["n"]
    assert (m["STS12"], m["STS14"], m["year mean"], m["all-24"]) == (60.0, 62.0, 61.0, 61.5)
    assert math.isnan(m["STS15"]) and (m["STSB dev"], m["STSB test"]) == (75.0, 70.0)
    assert (m["Tatoeba de/fr/es/ru"], m["BUCC F1"], m["sent/s 1 thread"]) == (85.0, 85.0, 500.0)
    assert all(math.isnan(n[c]) for c in ("all-24", "year mean", "STSB dev",
                                           "Tatoeba de/fr/es/ru", "BUCC F1"))
    assert result["tiny"] is True and "| m | 60.0 |" in capsys.readouterr().out
    assert (tmp_path / "quality-report.json").read_text() == saved
    (tmp_path / "quality-report.json").write_text(json.dumps(_report(version=99)))
    with pytest.raises(ContractError):
        quality.main(["--rebuild", "--out", str(tmp_path)])


@pytest.mark.slow
def test_tiny_quality_benchmark(tmp_path, val_pairs):
    shipped = PROJECT_ROOT / "models" / "paralib-en"
    cmd = [sys.executable, "-m", "benchmarks", "quality", "--tiny",
           "--pairs-from", str(val_pairs), "--out", str(tmp_path),
           "--model", f"paralib-en={shipped}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False,
                          cwd=PROJECT_ROOT)
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
