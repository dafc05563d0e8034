"""The joint vocabulary is what MarianTokenizer (and so CTranslate2's converter) reads."""

from __future__ import annotations

import pytest


def test_marian_tokenizer_gives_the_same_ids(tiny_mt):
    transformers = pytest.importorskip("transformers")
    from paralib.mt.vocab import JointVocab

    tok = transformers.MarianTokenizer.from_pretrained(tiny_mt / "hf")
    vocab = JointVocab(tiny_mt / "vocab" / "source.spm")
    texts = ["Ein Mann fährt Fahrrad.", "Zwei Hunde spielen im Schnee!"]
    assert tok(texts)["input_ids"] == vocab.encode(texts, max_len=100)
    assert tok.pad_token_id == vocab.pad_id == vocab.size - 1
    assert tok.eos_token_id == vocab.eos_id == 0
    assert vocab.decode(vocab.encode(texts, 100)[0]) == texts[0]
