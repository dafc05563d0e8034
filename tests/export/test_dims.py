"""``--dims N`` keeps the first N dimensions of paralib's vectors (every part of a sum, the first
tables of a concatenation) in every target; ``--quantize int8`` gives the int8 vectors in
paralib and model2vec; an option a model cannot take is one message naming the option, the
model and what it has (exit 2 on the command line), and nothing is written."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import paralib
from paralib.export import ExportError, export
from paralib.export.dims import through_int8, truncate
from paralib.models import ModelConfig, ParaphraseModel, fit_tokenizers, save_model

pytest.importorskip("sentencepiece")

SENTENCES = ["A man plays a guitar.", "Someone is playing the guitar.", "",
             "The stock market fell sharply today.", "zxqv qqqq"]


@pytest.fixture(scope="module")
def concat_model(tmp_path_factory, en_text):
    """A tiny sp (16) + trigram (16) model whose parts are concatenated (32 dimensions)."""
    cfg = ModelConfig(parts=[{"name": "sp", "vocab_size": 300, "dim": 16},
                             {"name": "trigram", "vocab_size": 400, "dim": 16}],
                      combine="concat")
    torch.manual_seed(3)
    model = ParaphraseModel(cfg, fit_tokenizers(cfg, en_text[:1000]))
    model.initialise()
    return save_model(model.eval(), tmp_path_factory.mktemp("concat") / "m", ("en",), {}, "#\n")


@pytest.mark.parametrize(("kind", "dims"), [("sp", 5), ("word", 16), ("sp+trigram", 7)])
def test_paralib_folder_keeps_the_first_dims(kind, dims, tiny_models, tmp_path):
    done = export(tiny_models[kind], tmp_path / "out", "paralib", dims=dims)
    assert done.dim == dims
    full = paralib.load(tiny_models[kind]).encode(SENTENCES)
    np.testing.assert_allclose(paralib.load(done.out).encode(SENTENCES), full[:, :dims],
                               rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dims", [10, 16, 20, 32])
def test_concatenated_parts_keep_the_first_dims(dims, concat_model):
    full = paralib.load(concat_model)
    cut = truncate(full, dims)
    assert cut.dim == dims and len(cut.model.parts) == (1 if dims <= 16 else 2)
    np.testing.assert_allclose(cut.encode(SENTENCES), full.encode(SENTENCES)[:, :dims],
                               rtol=1e-6, atol=1e-7)


def test_model2vec_and_sentence_transformers_take_dims(tiny_models, texts, tmp_path):
    pytest.importorskip("model2vec")
    st = pytest.importorskip("sentence_transformers")
    from model2vec import StaticModel

    source = tiny_models["sp"]
    want = paralib.load(source).encode(texts[:200])[:, :8]
    m2v = StaticModel.from_pretrained(str(export(source, tmp_path / "m2v", "model2vec",
                                                 dims=8).out))
    np.testing.assert_allclose(m2v.encode(texts[:200]), want, rtol=1e-5, atol=1e-6)
    model = st.SentenceTransformer(str(export(source, tmp_path / "st", "sentence-transformers",
                                              dims=8).out), device="cpu")
    np.testing.assert_allclose(model.encode(texts[:200]), want, rtol=1e-5, atol=1e-6)


def test_int8_in_model2vec_is_the_int8_model(tiny_models, texts, cosines, tmp_path):
    pytest.importorskip("model2vec")
    from model2vec import StaticModel

    source = tiny_models["word"]
    done = export(source, tmp_path / "m2v", "model2vec", quantize="int8")
    model = StaticModel.from_pretrained(str(done.out))
    assert model.embedding.dtype == np.int8
    got = model.encode(texts[:200])
    want = through_int8(paralib.load(source)).encode(texts[:200])
    assert cosines(got, want).min() >= 0.9999


def _one_line_error(capsys, *argv: str) -> str:
    from paralib.cli import main

    assert main(["export", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("paralib: error: ") and "Traceback" not in err
    return err.splitlines()[0]


@pytest.mark.parametrize(("kind", "options", "says"), [
    ("sp", ["--to", "onnx", "--dims", "17"], ["--dims 17", "has 16 dimensions", "1 to 16"]),
    ("sp", ["--to", "paralib", "--dims", "0"], ["--dims 0", "has 16 dimensions"]),
    ("lstm", ["--to", "paralib", "--quantize", "int8"],
     ["--quantize int8", "lstm(", "recurrent", "tables only"]),
    ("gran", ["--to", "sentence-transformers", "--dims", "8"],
     ["--dims 8", "gran(", "recurrent", "no slice of a table"]),
    ("sp", ["--to", "sentence-transformers", "--quantize", "int8"],
     ["--quantize int8", "float32 tables only", "--to onnx, model2vec or paralib"]),
])
def test_an_option_the_model_cannot_take_is_one_message(kind, options, says, tiny_models,
                                                        tmp_path, capsys):
    out = tmp_path / "out"
    line = _one_line_error(capsys, str(tiny_models[kind]), str(out), *options)
    assert all(s in line for s in says) and str(tiny_models[kind]) in line, line
    assert not out.exists()
    with pytest.raises(ExportError):
        export(tiny_models[kind], out, options[1],
               dims=int(options[3]) if options[2] == "--dims" else None,
               quantize=options[3] if options[2] == "--quantize" else None)


def test_a_paralib_export_is_replaced_by_the_next_export(tiny_models, tmp_path):
    from paralib.export.run import EXPORT_MARKER
    from paralib.models.folder import MARKER

    out = export(tiny_models["sp"], tmp_path / "small", "paralib", dims=4).out
    assert (out / EXPORT_MARKER).is_file() and not (out / MARKER).exists()
    again = export(tiny_models["sp"], out, "paralib", dims=6)
    assert paralib.load(again.out).dim == 6
