"""The card of an export with ``--dims`` or ``--quantize``: the weight sizes and the STS
Benchmark test scores of the source and of the export, as measured independently here, and a
``model-index`` of the export's own score, not the source's."""

from __future__ import annotations

import numpy as np
import pytest

import paralib
from paralib.evaluate.metrics import correlations
from paralib.export import export
from paralib.export.card import front_matter
from paralib.export.dims import through_int8, truncate

pytest.importorskip("sentencepiece")


def _r(model, stsb) -> float:
    return correlations(model.similarity_pairwise(stsb.a, stsb.b), np.asarray(stsb.gold))


@pytest.mark.parametrize("target", ["paralib", "onnx"])
def test_card_gives_measured_size_and_scores(target, tiny_models, stsb_test, tmp_path):
    pytest.importorskip("onnx")
    source = tiny_models["sp"]
    done = export(source, tmp_path / "out", target, dims=8, quantize="int8")
    full = paralib.load(source)
    before, after = _r(full, stsb_test), _r(through_int8(truncate(full, 8)), stsb_test)
    assert done.measured.source.pearson == pytest.approx(before["pearson"])
    assert done.measured.export.spearman == pytest.approx(after["spearman"])
    card = (done.out / "README.md").read_text()
    weights = done.out / ("model.onnx" if target == "onnx" else "model.safetensors")
    size = weights.stat().st_size + sum(p.stat().st_size for p in done.out.glob("*.safetensors")
                                        if p != weights)
    assert done.measured.export.weight_bytes == size
    assert f"| weight files (bytes) | {(source / 'model.safetensors').stat().st_size:,} | " \
        f"{size:,} |" in card
    assert f"| STSB test Pearson's r x 100 | {before['pearson']:.2f} | " \
        f"{after['pearson']:.2f} |" in card
    assert "| dimensions | 16 | 8 |" in card and "--dims 8 --quantize int8" in card
    (result,) = front_matter(done.out / "README.md")["model-index"][0]["results"]
    assert result["dataset"]["split"] == "test"
    assert result["metrics"][0]["value"] == round(after["pearson"], 2)


def test_card_without_data_says_so(tiny_models, tmp_path, monkeypatch):
    monkeypatch.setenv("PARALIB_DATA", str(tmp_path / "no-data"))
    (tmp_path / "no-data").mkdir()
    done = export(tiny_models["word"], tmp_path / "out", "paralib", dims=4)
    assert done.measured.export.pearson is None and done.measured.missing
    card = (done.out / "README.md").read_text()
    assert "was not found, so neither model was scored" in card
    assert "model-index" not in front_matter(done.out / "README.md")
