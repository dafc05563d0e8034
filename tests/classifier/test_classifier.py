"""Reference/translation classifier (2017 §5.6.1) on real back-translations of Multi30k."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest
import torch

from paralib.classifier import load_classifier, split_sizes, train_classifier

N_REFS = 600


@pytest.fixture(scope="module")
def backtranslated(tiny_mt, m30k) -> pd.DataFrame:
    """k-best back-translations (k=3) of Multi30k sentences the tiny model did not train on."""
    from paralib.translate.translator import Translator

    with gzip.open(m30k["train_de"], "rt") as f:
        de = f.read().splitlines()[5000:5000 + N_REFS]
    with gzip.open(m30k["train_en"], "rt") as f:
        en = f.read().splitlines()[5000:5000 + N_REFS]
    tr = Translator(tiny_mt / "ct2-int8", device="cpu", intra_threads=1)
    kbest = tr.translate(de, beam_size=3, num_hypotheses=3, max_decoding_length=60)
    return pd.DataFrame([
        {"id": i, "corpus": "m30k", "src_lang": "de", "src": s, "ref": r, "trans": h.text,
         "rank": k, "cost": h.cost}
        for i, (s, r, hyps) in enumerate(zip(de, en, kbest, strict=True))
        for k, h in enumerate(hyps)
    ])


def _train(df, out, l2_grid=(0.0,), **kw):
    torch.set_num_threads(1)
    return train_classifier(df, out, l2_grid=l2_grid, epochs=10, max_fraction=1.0, threads=1, **kw)


def test_split_sizes_follow_the_paper_and_shrink_proportionally():
    assert split_sizes(200_000, 0.5) == (40_000, 5_000, 5_000)
    assert split_sizes(1_000, 1.0) == (800, 100, 100)
    assert split_sizes(29_000, 0.25) == (5_800, 725, 725)


@pytest.mark.slow
def test_classifier_beats_chance_on_back_translations(backtranslated, tmp_path):
    m = _train(backtranslated, tmp_path / "clf", negatives=("random",),
               l2_grid=(1e-5, 0.0), encoders=("lstm", "avg"))
    assert m["split"] == {"train": 480, "dev": 60, "test": 60}
    for enc in ("avg", "lstm"):
        test = m["models"][enc]["test"]
        assert test["acc"] > 0.75, (enc, test)
        assert test["acc"] == pytest.approx((test["acc_ref"] + test["acc_trans"]) / 2)
        assert [g["l2"] for g in m["models"][enc]["grid"]] == [1e-5, 0.0]
        assert (tmp_path / "clf" / enc / "model.pt").is_file()
    saved = json.loads((tmp_path / "clf" / "metrics.json").read_text())
    assert saved["best"] in ("avg", "lstm")
    heldout = pd.read_parquet(tmp_path / "clf" / "heldout.parquet")
    assert len(heldout) == 600 and heldout["id"].is_unique

    clf = load_classifier(tmp_path / "clf")  # the best encoder on dev
    refs = backtranslated["ref"].drop_duplicates().tolist()
    p_ref = clf.predict_proba(refs)
    p_trans = clf.predict_proba(backtranslated["trans"].tolist())
    assert p_ref.mean() > p_trans.mean() + 0.3


def test_classifier_is_at_chance_when_negatives_are_references(backtranslated, tmp_path):
    """Control: 'translations' that are other references cannot be told apart."""
    refs = backtranslated.drop_duplicates("id")[["id", "ref"]].reset_index(drop=True)
    fake = refs.assign(trans=np.roll(refs["ref"].to_numpy(), 7))
    m = _train(fake, tmp_path / "control", encoders=("avg",), negatives=("random",))
    assert m["models"]["avg"]["test"]["acc"] < 0.7


def test_scorer_gives_p_ref(backtranslated, tmp_path):
    from paralib.filters.base import Direction, ScorerError
    from paralib.filters.classifier import ClassifierScorer

    m = _train(backtranslated, tmp_path / "clf", encoders=("avg",), negatives=("hardest",))
    assert m["models"]["avg"]["negative"] == "hardest"
    scorer = ClassifierScorer(model=str(tmp_path / "clf"))
    assert scorer.direction is Direction.CLEAN_HIGH and scorer.needs_actor
    scorer.setup()
    batch = backtranslated.head(50)
    out = scorer.score(batch)
    assert list(out.columns) == ["p_ref"] and out.index.equals(batch.index)
    assert ((out["p_ref"] >= 0) & (out["p_ref"] <= 1)).all()
    with pytest.raises(ScorerError, match="not a reference classifier"):
        ClassifierScorer(model=str(tmp_path / "nothing")).setup()


def test_lstm_sentence_vector_is_the_last_state_of_each_sentence():
    """The LSTM classifier's vector is PyTorch's final packed hidden state (an empty sentence
    runs one padding step), whichever kernel runs the recurrence."""
    from torch.nn.utils.rnn import pack_padded_sequence

    from paralib.classifier.model import NetConfig, RefClassifierNet

    torch.manual_seed(0)
    net = RefClassifierNet(NetConfig(encoder="lstm", vocab_size=50, dim=8, hidden=6))
    lengths = torch.tensor([9, 3, 1, 0, 5, 9])
    ids = torch.randint(1, 50, (6, 9)).masked_fill(torch.arange(9) >= lengths[:, None], 0)
    packed = pack_padded_sequence(net.emb(ids), lengths.clamp(min=1), batch_first=True,
                                  enforce_sorted=False)
    _, (last, _) = net.lstm(packed)
    torch.testing.assert_close(net.encode(ids, lengths), last[-1])
