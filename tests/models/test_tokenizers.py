"""Tokenisers: fitted on real text, reserved rows, unknowns, and the save/load round trip."""

from __future__ import annotations

import pickle

import pytest

from paralib.models.tokenizers import PAD, UNK, Tokenizer, TokenizerError, build_tokenizer
from paralib.models.tokenizers.trigram import word_trigrams


@pytest.mark.parametrize("kind,size", [("word", 500), ("trigram", 800), ("sp", 400),
                                       ("morfessor", 500)])
def test_fit_save_load_round_trip(kind, size, en_text, tmp_path):
    tok = build_tokenizer(kind, size).fit(en_text)
    assert tok.size <= size
    assert tok.pieces()[:2] == ["<pad>", "<unk>"]
    sents = ["A man rides a bicycle down the street.", "Zyxqv wvut!", ""]
    ids = tok.encode(sents)
    assert ids[2] == []
    assert all(PAD not in s for s in ids)
    assert all(0 <= i < tok.size for s in ids for i in s)
    tok.save(tmp_path / kind)
    again = Tokenizer.load(tmp_path / kind)
    assert again.encode(sents) == ids
    assert pickle.loads(pickle.dumps(tok)).encode(sents) == ids


def test_word_vocabulary_keeps_most_frequent_and_maps_unknowns(en_text):
    tok = build_tokenizer("word", 10).fit(en_text)
    assert tok.pieces()[2:4] == ["a", "."]  # the two most frequent tokens of the captions
    assert tok.encode(["a qwertyuiop ."]) == [[2, UNK, 3]]


def test_trigrams_have_boundary_marks():
    assert word_trigrams("dog") == ["#do", "dog", "og#"]
    assert word_trigrams("a") == ["#a#"]


def test_sentencepiece_is_shared_across_languages(en_text, data_dir):
    import gzip

    with gzip.open(data_dir / "bitext/multi30k/task1/raw/train.de.gz", "rt") as f:
        de = [next(f).strip() for _ in range(3000)]
    tok = build_tokenizer("sp", 600).fit(en_text + de)
    pieces = set(tok.pieces())
    # one vocabulary holds pieces of both languages
    assert any(p.startswith("▁der") or p == "▁ein" for p in pieces)
    assert "▁the" in pieces


def test_bad_settings_and_files_are_clear_errors(tmp_path):
    with pytest.raises(TokenizerError, match="unknown tokenizer"):
        build_tokenizer("bytes", 100)
    with pytest.raises(TokenizerError, match="model_type"):
        build_tokenizer("sp", 100, model_type="char")
    with pytest.raises(TokenizerError, match="no tokens"):
        build_tokenizer("word", 100).fit(["", "  "])
    with pytest.raises(TokenizerError, match="tokenizer.json"):
        Tokenizer.load(tmp_path)


def test_trigram_ids_are_those_of_its_units_and_follow_a_new_vocabulary(en_text):
    tok = build_tokenizer("trigram", 300)
    sents = en_text[:200] + ["Zyxqv dog!", ""]

    def by_units():
        return [[tok.stoi.get(u, UNK) for u in tok.units(s)] for s in sents]

    tok.fit(en_text)
    assert tok.encode(sents) == by_units()
    assert tok.encode(sents) == by_units()  # the second time from remembered words
    before = tok.encode(sents)
    tok.fit(en_text[:50])  # another vocabulary: remembered ids must not survive it
    assert tok.encode(sents) == by_units() != before


def test_trigram_memory_of_words_starts_over_past_its_bound(en_text, monkeypatch):
    from paralib.models.tokenizers import trigram

    monkeypatch.setattr(trigram, "REMEMBERED_WORDS", 5)
    tok = build_tokenizer("trigram", 300).fit(en_text)
    first = tok.encode(en_text[:30])
    assert len(tok._words) > 5  # one call remembers every word it meets
    assert tok.encode(["a dog"]) == [[tok.stoi.get(u, UNK) for u in tok.units("a dog")]]
    assert len(tok._words) == 2  # started over: only "a" and "dog"
    assert tok.encode(en_text[:30]) == first


def test_morfessor_model_is_text_and_a_planted_pickle_is_never_loaded(en_text, tmp_path):
    """The Morfessor model is saved in Morfessor's segmentation text format; a folder that
    only has a pickle (planted, or from before) is an error that runs nothing."""
    import os

    tok = build_tokenizer("morfessor", 300).fit(en_text[:2000])
    tok.save(tmp_path / "m")
    saved = (tmp_path / "m" / "morfessor.segmentation.txt").read_text()
    assert not any(n.endswith(".pkl") for n in os.listdir(tmp_path / "m"))
    assert len(saved.splitlines()) > 100
    marker = tmp_path / "ran"

    class Planted:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    (tmp_path / "m" / "morfessor.segmentation.txt").unlink()
    (tmp_path / "m" / "morfessor.pkl").write_bytes(pickle.dumps(Planted()))
    with pytest.raises(TokenizerError, match="no longer unpickles"):
        Tokenizer.load(tmp_path / "m")
    assert not marker.exists()
