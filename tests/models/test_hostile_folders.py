"""Model folders changed by hand or by someone else: every tampered file is one user error
(exit 2) that names the file, the field and what was expected; no path leads out of the
folder; a size in config.json is checked against the weights' header before anything is
allocated."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import paralib
from paralib.cli import main
from paralib.models import ModelLoadError


@pytest.fixture(scope="module")
def pristine(en_text, tmp_path_factory) -> Path:
    """A small two-part model folder (averaged SP pieces, an LSTM over TRIGRAM tokens),
    written once."""
    import torch

    from paralib.models import ModelConfig, ParaphraseModel, fit_tokenizers, save_model

    cfg = ModelConfig(parts=[{"name": "sp", "vocab_size": 300, "dim": 16},
                             {"name": "lstm", "tokens": "trigram", "vocab_size": 400, "dim": 8}])
    torch.manual_seed(0)
    model = ParaphraseModel(cfg, fit_tokenizers(cfg, en_text[:1000]))
    model.initialise()
    return save_model(model.eval(), tmp_path_factory.mktemp("pristine") / "m", ("en",),
                      {"epoch": 1}, "# card\n")


@pytest.fixture
def folder(pristine, tmp_path) -> Path:
    """A copy of the pristine folder to tamper with."""
    return Path(shutil.copytree(pristine, tmp_path / "m"))


def _edit_json(path: Path, change) -> None:
    value = json.loads(path.read_text())
    value = change(value)
    path.write_text(json.dumps(value))


def _set(keys: tuple, new):
    def change(value):
        inner = value
        for k in keys[:-1]:
            inner = inner[k]
        inner[keys[-1]] = new
        return value
    return change


# (what is tampered, file, change, words the one-line message must hold)
TAMPERED = {
    "config-a-list": ("config.json", lambda v: [v], ["config.json", "JSON list",
                                                      "expected an object"]),
    "unknown-tokenizer-param": ("tokenizers/0/tokenizer.json",
                                _set(("params", "bogus"), 1),
                                ["tokenizers/0/tokenizer.json", "params.bogus is an unknown key",
                                 "takes model_type, lowercase, character_coverage"]),
    "tokenizer-vocab-size-lots": ("tokenizers/1/tokenizer.json", _set(("vocab_size",), "lots"),
                                  ["tokenizers/1/tokenizer.json is invalid", "in vocab_size",
                                   "valid integer", "'lots'"]),
    "config-vocab-size-lots": ("config.json", _set(("model", "parts", 0, "vocab_size"), "lots"),
                               ["config.json is invalid", "in model.parts.0.vocab_size",
                                "valid integer", "'lots'"]),
    "languages-5": ("config.json", _set(("languages",), 5),
                    ["config.json is invalid", "in languages", "valid list", "got 5"]),
    "dim-1e9": ("config.json", _set(("model", "parts", 0, "dim"), 1e9),
                ["config.json", "model.parts.0.dim is 1000000000", "parts.0.embedding.weight",
                 "16]"]),
    "tokenizers-not-one-per-part": ("config.json", _set(("tokenizers",), ["0"]),
                                    ["config.json", "tokenizers", "one per part"]),
    "truncated-tokenizer-json": ("tokenizers/1/tokenizer.json", None,
                                 ["tokenizers/1/tokenizer.json is not valid JSON"]),
}


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_tampered_folder_is_one_user_error(case, folder, capsys):
    name, change, words = TAMPERED[case]
    path = folder / name
    if change is None:
        path.write_text(path.read_text()[:20])
    else:
        _edit_json(path, change)
    with pytest.raises(ModelLoadError) as err:
        paralib.load(folder)
    message = str(err.value)
    assert "\n" not in message
    for word in words:
        assert word in message
    # the command line: one message, exit 2, no "internal error"
    assert main(["evaluate", "--model", str(folder), "--suite", "sts", "--out",
                 str(folder.parent / "out")]) == 2
    printed = capsys.readouterr().err
    assert f"paralib: error: {message}" in printed
    assert "internal error" not in printed and "Traceback" not in printed


def _spy_builds(monkeypatch) -> list[str]:
    """The device every ParaphraseModel is built on, recorded while a test runs."""
    import torch

    from paralib.models.model import ParaphraseModel

    devices: list[str] = []
    real_init = ParaphraseModel.__init__

    def init(self, *args, **kwargs):
        devices.append(torch.empty(0).device.type)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(ParaphraseModel, "__init__", init)
    return devices


@pytest.mark.parametrize("value", [30000, 10 ** 12])
def test_dim_is_checked_against_the_weights_header_before_allocating(value, folder, monkeypatch):
    _edit_json(folder / "config.json", _set(("model", "parts", 1, "dim"), value))
    devices = _spy_builds(monkeypatch)
    with pytest.raises(ModelLoadError) as err:
        paralib.load(folder)
    message = str(err.value)
    assert f"{folder / 'config.json'}: model.parts.1.dim is {value}" in message
    assert "parts.1.embedding.weight of shape [" in message and "8]" in message
    assert devices == []  # refused before any model was built


@pytest.mark.parametrize("value", [3000, 10 ** 12])
def test_hidden_is_checked_before_allocating(value, folder, monkeypatch):
    _edit_json(folder / "config.json", _set(("model", "parts", 1, "hidden"), value))
    devices = _spy_builds(monkeypatch)
    with pytest.raises(ModelLoadError) as err:
        paralib.load(folder)
    message = str(err.value)
    assert str(folder / "config.json") in message and "model.parts.1" in message
    assert f"hidden {value}" in message
    assert all(d == "meta" for d in devices), devices  # nothing was built for real


def test_a_pristine_folder_still_loads(pristine, monkeypatch):
    devices = _spy_builds(monkeypatch)
    enc = paralib.load(pristine)
    assert enc.encode(["A dog runs."]).shape == (1, 24)
    assert devices == ["meta", "cpu"]


def _outside_copy(folder: Path, tmp_path: Path) -> Path:
    """A valid copy of tokenizer 0 outside the model folder."""
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(folder / "tokenizers" / "0", elsewhere)
    return elsewhere


@pytest.mark.parametrize("how", ["dotdot", "absolute"])
def test_tokenizer_entries_stay_inside_the_folder(how, folder, tmp_path):
    elsewhere = _outside_copy(folder, tmp_path)
    entry = "../../elsewhere" if how == "dotdot" else str(elsewhere)
    assert (folder / "tokenizers" / entry).resolve() == elsewhere.resolve()
    _edit_json(folder / "config.json", _set(("tokenizers", 0), entry))
    with pytest.raises(ModelLoadError, match=r"tokenizers\[0\] = .*outside the model folder"):
        paralib.load(folder)


def test_symlinks_out_of_the_folder_are_refused(folder, tmp_path):
    elsewhere = _outside_copy(folder, tmp_path)
    shutil.rmtree(folder / "tokenizers" / "0")
    os.symlink(elsewhere, folder / "tokenizers" / "0")
    with pytest.raises(ModelLoadError, match=r"tokenizers\[0\] = '0'.*outside"):
        paralib.load(folder)
    (folder / "tokenizers" / "0").unlink()
    shutil.copytree(elsewhere, folder / "tokenizers" / "0")
    paralib.load(folder)  # restored: loads
    vocab = folder / "tokenizers" / "1" / "vocab.txt"
    shutil.copy(vocab, tmp_path / "vocab.txt")
    vocab.unlink()
    os.symlink(tmp_path / "vocab.txt", vocab)
    with pytest.raises(ModelLoadError, match=r"tokenizers\[1\] = '1' \(vocab.txt\).*outside"):
        paralib.load(folder)
    weights = folder / "model.safetensors"
    shutil.move(weights, tmp_path / "w.safetensors")
    os.symlink(tmp_path / "w.safetensors", weights)
    vocab.unlink()
    shutil.copy(tmp_path / "vocab.txt", vocab)
    with pytest.raises(ModelLoadError, match=r"model.safetensors leads to .*outside"):
        paralib.load(folder)
