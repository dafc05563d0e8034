"""``paralib export --to model2vec``: SP and WORD averaging load in model2vec's
``StaticModel`` with paralib's vectors (unknown text and long text included); the shipped
model on the whole STS Benchmark test set; every other encoder is refused with one message."""

from __future__ import annotations

import json

import numpy as np
import pytest

import paralib
from paralib.export import ExportError, export

pytest.importorskip("sentence_transformers")  # the optional extra 'peers'
pytest.importorskip("model2vec")


def _m2v(folder):
    from model2vec import StaticModel

    return StaticModel.from_pretrained(str(folder))


def test_static_models_match_in_model2vec(static_kind, tiny_models, texts, tmp_path):
    done = export(tiny_models[static_kind], tmp_path / "m2v", "model2vec")
    assert done.module == "StaticModel"
    model = _m2v(done.out)
    part = json.loads((tiny_models[static_kind] / "config.json").read_text())["model"]
    assert model.max_length == part["parts"][0]["max_tokens"] and not model.normalize
    # model2vec cuts a text at max_length x its median token length in characters before it
    # tokenises (the card says so): every text within that is paralib's exactly
    kept = [t for t in texts if len(t) <= model.max_length * model.median_token_length]
    assert len(kept) > 100 and "" in kept
    want = paralib.load(tiny_models[static_kind]).encode(kept)
    np.testing.assert_allclose(model.encode(kept), want, rtol=1e-5, atol=1e-6)
    # texts with unknown words or characters average the <unk> row in, as paralib does
    tok = paralib.load(tiny_models[static_kind]).model.tokenizers[0]
    assert sum(1 in ids for ids in tok.encode(kept)) >= 10


def test_shipped_model_matches_on_the_whole_stsb_test_set(shipped_exports, stsb_test,
                                                           cosines):
    sentences = list(dict.fromkeys(stsb_test.a + stsb_test.b))
    want = paralib.load(shipped_exports["source"]).encode(sentences)
    got = _m2v(shipped_exports["m2v"]).encode(sentences)
    assert cosines(got, want).min() >= 0.9999


def test_model2vec_folder_loads_in_sentence_transformers_too(shipped_exports, stsb_test):
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(shipped_exports["m2v"]), device="cpu", local_files_only=True)
    sentences = stsb_test.a[:200]
    np.testing.assert_allclose(st.encode(sentences), _m2v(shipped_exports["m2v"]).encode(
        sentences), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind,reason", [("lstm", "'lstm' is recurrent"),
                                         ("trigram", "'trigram' tokens"),
                                         ("sp+trigram", "2 parts")])
def test_model2vec_refuses_what_it_cannot_express(kind, reason, tiny_models, tmp_path):
    with pytest.raises(ExportError) as err:
        export(tiny_models[kind], tmp_path / "m2v", "model2vec")
    message = str(err.value)
    assert str(tiny_models[kind]) in message and reason in message
    assert "sp or word tokens" in message and "--to sentence-transformers" in message
    assert not any(tmp_path.iterdir())  # nothing written
