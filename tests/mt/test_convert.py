"""The CTranslate2 conversion reproduces `transformers` outputs, thanks to a zero <pad> row."""

from __future__ import annotations

import shutil

import pytest
import torch

from paralib.mt.convert import ConversionError, convert
from paralib.translate.translator import Translator

transformers = pytest.importorskip("transformers")


def hf_greedy(model_dir, texts, max_new):
    tok = transformers.MarianTokenizer.from_pretrained(model_dir)
    model = transformers.MarianMTModel.from_pretrained(model_dir).eval()
    enc = tok(texts, return_tensors="pt", padding=True)
    with torch.no_grad():
        out = model.generate(**enc, num_beams=1, do_sample=False, max_new_tokens=max_new,
                             forced_eos_token_id=None, bad_words_ids=None)
    return tok.batch_decode(out, skip_special_tokens=True)


@pytest.fixture(scope="module")
def sentences(m30k):
    from paralib.mt.data import read_text

    return read_text(m30k["val_de"])[:40]


def test_ct2_matches_transformers(tiny_mt, sentences):
    expected = hf_greedy(tiny_mt / "hf", sentences, 30)
    tr = Translator(tiny_mt / "ct2-float32", device="cpu", intra_threads=1)
    got = [h[0].text for h in tr.translate(sentences, beam_size=1, max_decoding_length=30)]
    assert got == expected


def test_nonzero_pad_row_breaks_the_match(tiny_mt, sentences, tmp_path):
    """Negative control: the equality above depends on the zero decoder-start embedding."""
    hf = tmp_path / "hf"
    shutil.copytree(tiny_mt / "hf", hf)
    model = transformers.MarianMTModel.from_pretrained(hf)
    with torch.no_grad():
        model.model.shared.weight[model.config.pad_token_id].normal_(0, 1.0)
    model.save_pretrained(hf)
    expected = hf_greedy(hf, sentences, 30)
    tr = Translator(convert(hf, tmp_path / "ct2", "float32"), device="cpu", intra_threads=1)
    got = [h[0].text for h in tr.translate(sentences, beam_size=1, max_decoding_length=30)]
    assert got != expected


def test_cost_is_mean_nll_per_token(tiny_mt, sentences):
    tr = Translator(tiny_mt / "ct2-int8", device="cpu", intra_threads=1)
    for max_len in (8, 60):  # cut hypotheses (no end token) and finished ones
        kbest = tr.translate(sentences[:10], beam_size=4, num_hypotheses=3,
                             max_decoding_length=max_len)
        for src, hyps in zip(sentences[:10], kbest, strict=True):
            assert len(hyps) == 3
            assert [h.cost for h in hyps] == sorted(h.cost for h in hyps)
            pieces = [tr.tgt_sp.encode(h.text, out_type=str) for h in hyps]
            res = tr.translator.score_batch(tr.tokenize([src] * 3), pieces)
            for h, r in zip(hyps, res, strict=True):
                lp = r.log_probs if h.tokens == len(r.log_probs) else r.log_probs[:-1]
                assert h.cost == pytest.approx(-sum(lp) / len(lp), rel=1e-3, abs=1e-3)


def test_convert_rejects_non_model(tmp_path):
    with pytest.raises(ConversionError, match="no config.json"):
        convert(tmp_path, tmp_path / "out")
