"""``paralib export --to onnx``: onnxruntime on ``model.onnx`` with the ids of
``tokenizer.json`` gives paralib's vectors (cosine >= 0.9999 on every STS Benchmark test
sentence and the edge cases), with float32 and int8 tables, for the tiny static models and the
shipped paralib-en; models the graph cannot express are refused with one message."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

import paralib
from paralib.export import ExportError, export
from paralib.export.dims import through_int8

pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
pytest.importorskip("sentencepiece")


def _ort_encode(folder, texts: list[str], batch: int = 128) -> np.ndarray:
    """The vectors onnxruntime gives for ``texts`` as a user runs the export (batches padded
    by tokenizer.json itself)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    session = ort.InferenceSession(str(folder / "model.onnx"))
    out = []
    for start in range(0, len(texts), batch):
        enc = tok.encode_batch(texts[start:start + batch])
        feed = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64)}
        out.append(session.run(["sentence_embedding"], feed)[0])
    return np.concatenate(out)


@pytest.fixture(scope="module")
def stsb_sentences(stsb_test) -> list[str]:
    """Every distinct sentence of the STS Benchmark test set."""
    return list(dict.fromkeys(stsb_test.a + stsb_test.b))


def test_onnxruntime_gives_paralibs_vectors(static_kind, tiny_models, texts, stsb_sentences,
                                            cosines, tmp_path):
    done = export(tiny_models[static_kind], tmp_path / "onnx", "onnx")
    assert done.module == "onnx" and (done.out / "model.onnx").is_file()
    sentences = stsb_sentences + texts
    got = _ort_encode(done.out, sentences)
    want = paralib.load(tiny_models[static_kind]).encode(sentences)
    assert got.shape == want.shape
    assert cosines(got, want).min() >= 0.9999
    # padding never leaks in: a sentence gives the same vector alone as in a padded batch
    i = max(range(len(texts)), key=lambda j: len(texts[j]) if len(texts[j]) < 60 else 0)
    alone = _ort_encode(done.out, [texts[i]], batch=1)[0]
    np.testing.assert_allclose(alone, got[len(stsb_sentences) + i], rtol=1e-5, atol=1e-6)
    # an empty sentence is the zero vector, alone or in a batch
    assert not _ort_encode(done.out, [""], batch=1).any()
    config = json.loads((done.out / "config.json").read_text())
    assert config["hidden_dim"] == want.shape[1] and config["table"] == "float32"


def test_int8_graph_gives_the_int8_vectors(tiny_models, texts, stsb_sentences, cosines,
                                           tmp_path):
    import onnx

    source = tiny_models["sp"]
    full = export(source, tmp_path / "float", "onnx").out
    done = export(source, tmp_path / "int8", "onnx", quantize="int8")
    graph = onnx.load(str(done.out / "model.onnx")).graph
    kinds = {i.name: i.data_type for i in graph.initializer}
    assert kinds["table_int8"] == onnx.TensorProto.INT8 and "table" not in kinds
    sentences = stsb_sentences + texts
    want = through_int8(paralib.load(source)).encode(sentences)
    assert cosines(_ort_encode(done.out, sentences), want).min() >= 0.9999
    assert (done.out / "model.onnx").stat().st_size < 0.5 * (full / "model.onnx").stat().st_size


def test_shipped_model_in_onnxruntime(stsb_sentences, cosines, tmp_path):
    from paralib.paths import models_root

    source = models_root() / "paralib-en"
    start = time.perf_counter()
    done = export(source, tmp_path / "paralib-en-onnx", "onnx")
    got = _ort_encode(done.out, stsb_sentences)
    want = paralib.load(source).encode(stsb_sentences)
    assert cosines(got, want).min() >= 0.9999
    assert time.perf_counter() - start < 60
    card = (done.out / "README.md").read_text()
    assert "library_name: onnx" in card and "onnxruntime.InferenceSession" in card


@pytest.mark.parametrize("kind", ["trigram", "lstm", "sp+trigram"])
def test_other_models_are_refused(kind, tiny_models, tmp_path):
    with pytest.raises(ExportError, match="--to onnx cannot express") as e:
        export(tiny_models[kind], tmp_path / "onnx", "onnx")
    assert str(tiny_models[kind]) in str(e.value) and "sp or word" in str(e.value)
    assert not (tmp_path / "onnx").exists()
