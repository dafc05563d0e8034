"""KenLM 3-gram training on held-out references and the perplexity scorer (2017 §5.6)."""

from __future__ import annotations

import gzip
import math
import random
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paralib.filters import ScorerError, get_scorer
from paralib.lm import (
    KenLMNotFoundError,
    find_kenlm_binary,
    hold_out_references,
    kenlm_tools_available,
    train_lm,
)
from paralib.lm.train import train_lms
from paralib.text import detokenized

kenlm = pytest.importorskip("kenlm")


needs_binaries = pytest.mark.skipif(not kenlm_tools_available(),
                                    reason="lmplz/build_binary missing: run scripts/build_kenlm.sh")


def _lines(path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


@pytest.fixture(scope="module")
def train_pairs(m30k) -> pd.DataFrame:
    """Multi30k training references as candidate pairs (two hypotheses per reference)."""
    ref = _lines(m30k["train_en"])[:8000]
    ids = [f"m30k:0:{i + 1}" for i in range(len(ref))]
    one = pd.DataFrame({"id": ids, "corpus": "m30k", "src_lang": "de", "ref": ref,
                        "trans": ref})
    two = one.assign(id=[i + "#1" for i in ids], trans=ref[1:] + ref[:1])
    return pd.concat([one, two], ignore_index=True)


@pytest.fixture(scope="module")
def lm_model(train_pairs, tmp_path_factory) -> Path:
    if not kenlm_tools_available():
        pytest.skip("lmplz/build_binary missing: run scripts/build_kenlm.sh")
    held = hold_out_references(train_pairs, n=40_000, max_fraction=0.25, seed=0)
    return train_lm(held.ref.tolist(), tmp_path_factory.mktemp("lm"))


def test_hold_out_picks_distinct_references_with_all_their_ids(train_pairs):
    held = hold_out_references(train_pairs, n=40_000, max_fraction=0.25, seed=0)
    distinct = train_pairs.ref.nunique()
    assert len(held) == int(distinct * 0.25)  # small corpus: fewer than the paper's 40,000
    assert held.ref.is_unique
    sizes = held.ids.map(len)
    assert sizes.min() >= 2  # both hypotheses of a held-out reference leave the mining pool
    assert held.iloc[0].ids == train_pairs[train_pairs.ref == held.iloc[0].ref].id.tolist()
    assert len(hold_out_references(train_pairs, n=100)) == 100
    again = hold_out_references(train_pairs, n=100, seed=0)
    assert again.ref.tolist() == hold_out_references(train_pairs, n=100, seed=0).ref.tolist()
    assert set(again.ref) != set(hold_out_references(train_pairs, n=100, seed=1).ref)


def test_hold_out_is_per_corpus_and_language(train_pairs):
    two = pd.concat([train_pairs, train_pairs.head(400).assign(corpus="other")])
    held = hold_out_references(two, n=40_000, max_fraction=0.25)
    counts = held.groupby("corpus").size().to_dict()
    assert counts["other"] == 100  # 400 distinct references x 0.25
    with pytest.raises(ValueError, match="src_lang"):
        hold_out_references(train_pairs.drop(columns=["src_lang"]))


@needs_binaries
def test_fluent_references_have_lower_perplexity_than_shuffled(lm_model, m30k):
    card = lm_model.with_suffix(".json").read_text()
    assert '"order": 3' in card
    val = _lines(m30k["val_en"])[:500]
    rng = random.Random(0)
    shuffled = []
    for s in val:
        words = s.split()
        rng.shuffle(words)
        shuffled.append(" ".join(words))
    sc = get_scorer("lm", model=str(lm_model))
    fluent = sc.score(pd.DataFrame({"ref": val, "trans": val})).lm_ppl.to_numpy()
    broken = sc.score(pd.DataFrame({"ref": val, "trans": shuffled})).lm_ppl.to_numpy()
    assert np.isfinite(fluent).all() and np.isfinite(broken).all()
    assert np.median(fluent) * 3 < np.median(broken)
    changed = np.array([a != b for a, b in zip(val, shuffled, strict=True)])
    assert (fluent[changed] < broken[changed]).mean() > 0.9


@needs_binaries
def test_perplexity_matches_kenlm_by_hand(lm_model):
    model = kenlm.Model(str(lm_model))
    text = "Two dogs are playing in the snow."
    tokens = "two dogs are playing in the snow ."
    log10 = sum(p for p, _, _ in model.full_scores(tokens, bos=True, eos=True))  # 9 events
    out = get_scorer("lm", model=str(lm_model)).score(pd.DataFrame({"ref": [text],
                                                                     "trans": [text]}))
    assert out.lm_ppl[0] == pytest.approx(10 ** (-log10 / 9))
    assert out.lm_oov[0] == 0


@needs_binaries
def test_unseen_text_gets_finite_perplexity_or_reason(lm_model):
    batch = pd.DataFrame({"ref": ["A dog.", "A dog.", "A dog."],
                          "trans": ["Zorbulax qwyth dog.", "", "!!!"]})
    sc = get_scorer("lm", model=str(lm_model))
    assert sc.invalid(batch).tolist() == ["", "empty trans", ""]
    out = sc.score(batch)
    assert math.isfinite(out.lm_ppl[0]) and out.lm_oov[0] == 2
    assert np.isnan(out.lm_ppl[1])
    assert math.isfinite(out.lm_ppl[2])


@needs_binaries
def test_small_corpus_needs_discount_fallback(m30k, tmp_path):
    texts = _lines(m30k["val_en"])[:30]
    corpus = tmp_path / "small.txt"
    corpus.write_text("\n".join(detokenized(texts)) + "\n")
    plain = subprocess.run([str(find_kenlm_binary("lmplz")), "-o", "3", "-S", "10%", "-T",
                            str(tmp_path)], stdin=corpus.open("rb"), capture_output=True)
    assert plain.returncode != 0 and b"discount_fallback" in plain.stderr
    model = train_lm(texts, tmp_path / "out", name="small")
    assert model.is_file() and kenlm.Model(str(model)).order == 3


@needs_binaries
def test_one_model_per_corpus(train_pairs, tmp_path):
    two = pd.concat([train_pairs.head(3000), train_pairs.head(3000).assign(corpus="copy")])
    folder = train_lms(hold_out_references(two, max_fraction=0.5), tmp_path / "lms")
    assert sorted(p.name for p in folder.glob("*.bin")) == ["copy-de.bin", "m30k-de.bin"]
    sc = get_scorer("lm", model=str(folder))
    batch = pd.DataFrame({"ref": ["a dog ."] * 3, "trans": ["A dog runs."] * 3,
                          "corpus": ["m30k", "copy", "unknown"], "src_lang": "de"})
    assert sc.invalid(batch).tolist() == ["", "", "no language model for corpus=unknown, "
                                                 "src_lang=de"]
    out = sc.score(batch)
    assert np.isfinite(out.lm_ppl[:2]).all() and np.isnan(out.lm_ppl[2])
    with pytest.raises(ScorerError, match="corpus"):
        sc.score(batch.drop(columns=["corpus"]))


def test_missing_binaries_name_where_paralib_looked(monkeypatch, tmp_path):
    monkeypatch.setenv("PARALIB_KENLM_BIN", str(tmp_path / "bin"))
    monkeypatch.setenv("PARALIB_KENLM_DIR", str(tmp_path / "kenlm"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(KenLMNotFoundError) as err:
        train_lm(["a dog ."], tmp_path / "out")
    msg = str(err.value)
    assert "lmplz" in msg and str(tmp_path / "bin") in msg and str(tmp_path / "kenlm" / "bin") \
        in msg and "scripts/build_kenlm.sh" in msg


def test_missing_model_and_column(tmp_path):
    sc = get_scorer("lm", model=str(tmp_path / "none.bin"))
    with pytest.raises(ScorerError, match="none.bin"):
        sc.score(pd.DataFrame({"ref": ["a"], "trans": ["a"]}))
    with pytest.raises(ScorerError, match="trans"):
        sc.score(pd.DataFrame({"ref": ["a"]}))
