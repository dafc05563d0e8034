"""paralib's SP and WORD tokenisers as ``tokenizers`` tokenisers: the same ids for text of many
scripts (Greek final sigma, Turkish dotted I, Hindi vowel signs, Japanese, unknown
characters), the same cut at ``max_tokens``, and never the unknown token model2vec drops."""

from __future__ import annotations

import json
import re

import pytest

from paralib.models.tokenizers import UNK, build_tokenizer

pytest.importorskip("tokenizers")  # the optional extra 'peers'
pytest.importorskip("transformers")

LANGS = ("ell", "rus", "ara", "hin", "jpn", "tur", "deu", "vie", "kor", "heb")
EXTRA = ["ΟΔΟΣ ΣΟΦΟΣ. ΑΣ' Σ ΑΣΑ", "İSTANBUL Iğdır", "emoji 🤖🤖 x🤖y", "", "   ",
         "a\u2581b \u2581! \ue000 \ue001x", "tab\tnew\nline\x1cfs\u00a0nbsp", "<pad> <unk>",
         "snake_case 12³ ½ don't", "w " * 60]


@pytest.fixture(scope="session")
def multilingual(data_dir, en_text):
    """Tatoeba sentences of ten languages and English: ``(fit, test)``, disjoint."""
    fit, test = list(en_text[:500]), list(en_text[500:600]) + EXTRA
    for lang in LANGS:
        path = data_dir / "bitext" / "tatoeba" / f"tatoeba.{lang}-eng.{lang}"
        lines = path.read_text(encoding="utf-8").splitlines()
        fit += lines[:150]
        test += lines[150:300]
    return fit, test


def _ids(converted, texts):
    return [[int(converted.rows[i]) for i in e.ids]
            for e in converted.tokenizer.encode_batch(texts, add_special_tokens=False)]


@pytest.mark.parametrize("kind,params", [("sp", {}), ("sp", {"model_type": "bpe"}),
                                         ("sp", {"lowercase": False}), ("word", {})])
def test_same_ids_as_paralib(kind, params, multilingual):
    from paralib.export.hf_tokenizer import convert

    fit, test = multilingual
    tok = build_tokenizer(kind, 1500, **params).fit(fit)
    want = tok.encode(test)
    assert sum(UNK in ids for ids in want) >= 20  # unknown text is part of the test
    for cut in (200, 7):
        converted = convert(tok, cut)
        got = _ids(converted, test)
        bad = [(t, w[:cut], g) for t, w, g in zip(test, want, got, strict=True)
               if w[:cut] != g]
        assert not bad, bad[:3]
        # model2vec drops the tokeniser's unknown id: SP's never comes out, WORD has none
        model = json.loads(converted.tokenizer.to_str())["model"]
        raw = converted.tokenizer.encode_batch(test, add_special_tokens=False)
        if kind == "sp":
            assert all(UNK not in e.ids for e in raw)
        else:
            assert model["unk_token"] is None


def test_lowercase_is_pythons(multilingual):
    from tokenizers import normalizers

    from paralib.export.hf_tokenizer import lowercase

    lower = normalizers.Sequence(lowercase())
    texts = multilingual[1] + ["ΣΑΣ", "ΑΣ'.", "Α\u00adΣ", "ΣΑ Σ", "İ", "ẞ", "ǅ"]
    assert [lower.normalize_str(t) for t in texts] == [t.lower() for t in texts]


def test_python_classes_match_re():
    from tokenizers import Regex, pre_tokenizers

    from paralib.export.hf_tokenizer import python_class

    split = pre_tokenizers.Split(Regex(python_class(r"\w") + "+"), "isolated")
    text = "hello_wörld 12³ ½ हिन्दी ٣٤ a\u0301b x‿y"
    words = [w for w, _ in split.pre_tokenize_str(text)]
    assert [w for w in words if re.fullmatch(r"\w+", w)] == re.findall(r"\w+", text)
