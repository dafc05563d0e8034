"""The model folder: save, ``paralib.load``, encode, similarity, ``paralib encode``, errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import paralib
from paralib.cli import main
from paralib.models import ModelConfig, ModelLoadError, ParaphraseModel, fit_tokenizers, save_model


def _save(en_text, folder, parts):
    cfg = ModelConfig(parts=parts)
    torch.manual_seed(0)
    model = ParaphraseModel(cfg, fit_tokenizers(cfg, en_text))
    model.initialise()
    save_model(model.eval(), folder, ("en",), {"epoch": 1}, "# card\n")
    return model


def test_load_encode_round_trip(en_text, tmp_path):
    parts = [{"name": "sp", "vocab_size": 300, "dim": 16},
             {"name": "gran", "vocab_size": 300, "dim": 16}]
    model = _save(en_text, tmp_path / "m", parts)
    enc = paralib.load(tmp_path / "m")
    texts = ["A dog runs.", "", "Two women are sitting on a bench in the park."]
    got = enc.encode(texts, batch_size=2)
    with torch.no_grad():
        want = model.embed(texts).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    unit = enc.encode(texts, normalize=True)
    np.testing.assert_allclose(np.linalg.norm(unit[[0, 2]], axis=1), 1.0, rtol=1e-5)
    sim = enc.similarity_pairwise(["A dog runs.", "A dog runs."],
                                  ["A dog runs.", "Two women sit."])
    assert sim[0] == pytest.approx(1.0, abs=1e-5) and sim[1] < sim[0]
    matrix = enc.similarity(["A dog runs.", "A dog runs."], ["A dog runs.", "Two women sit."])
    np.testing.assert_allclose(np.diag(matrix), sim, rtol=1e-5, atol=1e-6)
    assert enc.languages == ("en",)
    assert {"config.json", "model.safetensors", "README.md"} <= {p.name for p in
                                                                  (tmp_path / "m").iterdir()}


def test_incomplete_folder_and_foreign_weights(en_text, tmp_path):
    with pytest.raises(ModelLoadError, match="neither a folder nor a shipped model"):
        paralib.load(tmp_path / "nothing")
    _save(en_text, tmp_path / "a", [{"name": "sp", "vocab_size": 300, "dim": 16}])
    (tmp_path / "a" / "model.safetensors").unlink()
    with pytest.raises(ModelLoadError, match="model.safetensors is missing"):
        paralib.load(tmp_path / "a")
    # weights of an LSTM under the config of an SP model
    _save(en_text, tmp_path / "b", [{"name": "sp", "vocab_size": 300, "dim": 16}])
    _save(en_text, tmp_path / "c", [{"name": "lstm", "vocab_size": 300, "dim": 16}])
    (tmp_path / "b" / "model.safetensors").write_bytes(
        (tmp_path / "c" / "model.safetensors").read_bytes())
    with pytest.raises(ModelLoadError, match="different encoder"):
        paralib.load(tmp_path / "b")
    cfg = json.loads((tmp_path / "c" / "config.json").read_text())
    cfg["format"] = "other"
    (tmp_path / "c" / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelLoadError, match="format"):
        paralib.load(tmp_path / "c")


def test_encode_command_writes_npy(en_text, tmp_path, capsys):
    _save(en_text, tmp_path / "m", [{"name": "sp", "vocab_size": 300, "dim": 16}])
    src = tmp_path / "in.txt"
    src.write_text("A dog runs.\n\nTwo men talk.\n")
    out = tmp_path / "out.npy"
    assert main(["encode", "--model", str(tmp_path / "m"), "--input", str(src),
                 "--output", str(out)]) == 0
    vecs = np.load(out)
    assert vecs.shape == (3, 16) and not vecs[1].any() and vecs[0].any()
    summary = json.loads(capsys.readouterr().out)
    assert summary["sentences"] == 3 and summary["empty_lines"] == 1
    assert main(["encode", "--model", str(tmp_path / "none"), "--input", str(src),
                 "--output", str(out)]) == 2
