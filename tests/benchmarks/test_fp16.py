"""``benchmarks/fp16.py``: what rounding a model's weights to float16 changes, on part of STS
Benchmark dev, for a float32 encoder trained here on Multi30k captions (the shipped encoders
are float16 already, so rounding them would change nothing)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import paralib
from paralib.corpora.captions import caption_files, read_captions


@pytest.fixture(scope="module")
def en32(tmp_path_factory):
    """A float32 encoder folder: 2,000 caption pairs (two captions of one image), 2 epochs."""
    first, second = read_captions(caption_files("train"), limit=2000)[:2]
    pairs = [(a.decode(), b.decode()) for a, b in zip(first, second, strict=True)]
    folder = tmp_path_factory.mktemp("fp16") / "en32"
    paralib.fit(pairs, folder, epochs=2, dev="none", batch_size=50,
                model={"parts": [{"dim": 64, "vocab_size": 1000}]})
    return folder


def test_rounded_copy_is_float16_exact_and_leaves_the_original(load_script, en32):
    fp16 = load_script("fp16")
    full = paralib.load(en32)
    before = [p.detach().clone() for p in full.model.parameters()]
    half = fp16.rounded(full)
    for orig, now, rounded in zip(before, full.model.parameters(), half.model.parameters(),
                                  strict=True):
        assert torch.equal(orig, now)  # the float32 model is untouched
        assert torch.equal(rounded, rounded.half().float())  # every weight is a float16
        assert not torch.equal(rounded, orig)  # and rounding changed some of them
    sentences = ["A man plays a guitar.", "Someone plays guitar.", "Stocks fell today."]
    assert np.allclose(full.encode(sentences), half.encode(sentences), atol=1e-3)


def test_table_and_json_on_part_of_dev(tmp_path, capsys, load_script, en32):
    fp16 = load_script("fp16")
    out = tmp_path / "fp16"
    fp16.main(["--model", f"en={en32}", "--limit", "80", "--out", str(out)])
    (row,) = json.loads(out.with_suffix(".json").read_text())["rows"]
    assert row["pairs"] == 80 and row["MB fp16"] == pytest.approx(row["MB fp32"] / 2)
    assert 0 < row["max |dcos|"] < 1e-3 and row["mean |dcos|"] <= row["max |dcos|"]
    assert abs(row["dev r fp16"] - row["dev r fp32"]) < 0.1
    assert "dev r fp16" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        fp16.main(["--model", "missing=/nonexistent"])
