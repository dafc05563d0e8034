"""int8 tables: per-row symmetric rounding, and ``paralib.load`` of a folder with int8 tables
(``paralib export --to paralib --quantize int8``) gives the rounded model's vectors; int8
tables without their scales are one message, never wrong vectors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from safetensors import safe_open

import paralib
from paralib.models.errors import ModelLoadError
from paralib.models.quantized import SCALES, dequantized, quantize_rows


def test_rows_round_to_within_half_a_step():
    torch.manual_seed(0)
    table = torch.randn(50, 12) * torch.logspace(-3, 1, 50)[:, None]
    table[7] = 0.0
    q, scale = quantize_rows(table)
    assert q.dtype == torch.int8 and scale.shape == (50,)
    assert int(q.abs().max()) == 127 and int(q.min()) >= -127
    back = dequantized(q, scale)
    assert not back[7].any() and torch.isfinite(back).all()
    err = (back - table).abs().amax(1)
    assert (err <= scale / 2 + 1e-7).all()
    # every row keeps its own scale: small rows are not rounded to zero
    assert (back.abs().amax(1)[table.abs().amax(1) > 0] > 0).all()


@pytest.fixture(scope="module")
def source(tmp_path_factory, en_text):
    """A tiny untrained SP averaging model folder (16 dimensions)."""
    pytest.importorskip("sentencepiece")
    from paralib.models import ModelConfig, ParaphraseModel, fit_tokenizers, save_model

    cfg = ModelConfig(parts=[{"name": "sp", "vocab_size": 300, "dim": 16}])
    torch.manual_seed(0)
    model = ParaphraseModel(cfg, fit_tokenizers(cfg, en_text[:1000]))
    model.initialise()
    return save_model(model.eval(), tmp_path_factory.mktemp("q") / "sp", ("en",), {}, "#\n")


@pytest.fixture(scope="module")
def int8_folder(source, tmp_path_factory):
    from paralib.export import export

    return export(source, tmp_path_factory.mktemp("q") / "int8", "paralib",
                  quantize="int8").out


def test_load_reads_int8_tables_back(int8_folder, source):
    from paralib.export.dims import through_int8

    with safe_open(str(int8_folder / "model.safetensors"), framework="pt") as f:
        assert f.get_slice("parts.0.embedding.weight").get_dtype() == "I8"
    texts = ["A man plays a guitar.", "", "Someone is playing the guitar on stage."]
    want = through_int8(paralib.load(source)).encode(texts)
    np.testing.assert_array_equal(paralib.load(int8_folder).encode(texts), want)
    assert (int8_folder / "model.safetensors").stat().st_size < \
        0.4 * (source / "model.safetensors").stat().st_size


def test_int8_tables_without_scales_are_refused(int8_folder, tmp_path):
    import shutil

    broken = shutil.copytree(int8_folder, tmp_path / "broken")
    (broken / SCALES).unlink()
    with pytest.raises(ModelLoadError, match=SCALES) as e:
        paralib.load(broken)
    assert str(broken) in str(e.value)
