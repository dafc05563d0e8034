"""``benchmarks/crosslingual_dev.py``: a candidate's XNLI dev row (both directions averaged;
a language missing makes the mean missing) and the choice by the XNLI dev mean, on the two
shipped models."""

from __future__ import annotations

import json
import math

import pytest

from paralib.contracts import ContractError, EvalReport
from paralib.paths import PROJECT_ROOT


def test_dev_row_averages_directions_and_reads_stsb_dev(tmp_path, load_script):
    dev = load_script("crosslingual_dev")
    (tmp_path / "training.json").write_text(json.dumps(
        {"dev": "stsb-dev", "dev_pearson": 77.5, "pairs": 10, "best_epoch": 3}))
    sets = {f"{lang}-en": {"status": "ok", "xx->en": 80.0 + i, "en->xx": 70.0 + i}
            for i, lang in enumerate(dev.XNLI)}
    report = EvalReport.load({"tasks": {"xnli": {"models": {"m": {"sets": sets}}}}})
    row = dev.dev_row("m", tmp_path, report)
    assert row["xnli ar"] == 75.0 and row["xnli tr"] == 79.0
    assert row["xnli mean"] == pytest.approx(77.0)
    assert (row["stsb dev"], row["pairs"], row["best epoch"]) == (77.5, 10, 3)
    sets.pop("tr-en")
    assert math.isnan(dev.dev_row("m", tmp_path, report)["xnli mean"])


def test_dev_row_reads_training_json_through_its_contract(tmp_path, load_script):
    """No ``training.json``: no STSB dev, pairs or epoch; one of a newer paralib is refused
    (read as a :class:`~paralib.contracts.TrainingSummary`, not a bare dict)."""
    dev = load_script("crosslingual_dev")
    report = EvalReport.load({"tasks": {"xnli": {"models": {"m": {}}}}})
    row = dev.dev_row("m", tmp_path, report)
    assert math.isnan(row["stsb dev"]) and row["pairs"] is None and row["best epoch"] is None
    (tmp_path / "training.json").write_text(json.dumps({"version": 99, "dev": "stsb-dev"}))
    with pytest.raises(ContractError):
        dev.dev_row("m", tmp_path, report)


@pytest.mark.slow
def test_chooses_on_xnli_dev_and_writes_json(tmp_path, capsys, load_script):
    dev = load_script("crosslingual_dev")
    multi, en = PROJECT_ROOT / "models" / "paralib-multi", PROJECT_ROOT / "models" / "paralib-en"
    out = tmp_path / "dev"
    dev.main(["--model", f"multi={multi}", "--model", f"en={en}", "--out", str(out)])
    result = json.loads(out.with_suffix(".json").read_text())
    means = {r["model"]: r["xnli mean"] for r in result["rows"]}
    assert result["chosen"] == max(means, key=means.get)
    assert "chosen on XNLI dev" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        dev.main(["--model", "nofolder=/nonexistent"])
