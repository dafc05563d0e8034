"""The shared tokeniser and the vectorised n-gram match counts (2017 §5.5-5.7)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from paralib import text
from paralib.filters import get_scorer
from paralib.filters import tokenize as tk


def _ngrams(tokens: list[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def test_tokenize_lowercases_and_splits_punctuation():
    assert text.tokenize("A dog's ball... Café\u00a0OK!") == [
        "a", "dog", "'", "s", "ball", "...", "café", "ok", "!"]
    assert text.tokenize("") == [] and text.tokenize("   ") == []
    assert text.tokenize_all(["Two men.", None]) == [["two", "men", "."], []]
    assert text.detokenized(["  A  red\tcar,fast "]) == ["a red car , fast"]


def test_columns_follow_the_one_rule_in_arrow_and_in_python():
    ascii_ = [chr(c) for c in range(128)]  # Arrow's path: every pair of ASCII characters
    texts = [f"A{c}{d}b {c}" for c in ascii_ for d in ascii_]
    texts += ["", "  ", "\x1c\x0b", " a\x1f ", "İstanbul ΟΔΟΣ.", "a\u1c89b"]
    assert text.tokenize_all(texts) == [text.tokenize(t) for t in texts]
    assert text.tokenize_all(["İ"]) == [["i", "\u0307"]] and text.tokenize("ΟΣ") == ["ος"]


def test_matches_agree_with_counters_on_real_pairs(m30k_pairs):
    toks = tk.encode_pairs(m30k_pairs.ref, m30k_pairs.trans)
    refs, hyps = text.tokenize_all(m30k_pairs.ref), text.tokenize_all(m30k_pairs.trans)
    assert toks.lengths["ref"].tolist() == [len(t) for t in refs]
    for n in (1, 2, 3, 4):
        want = [sum((_ngrams(r, n) & _ngrams(h, n)).values()) for r, h in zip(refs, hyps,
                                                                              strict=True)]
        assert toks.matches(n).tolist() == want
        assert toks.totals("trans", n).tolist() == [max(len(h) - n + 1, 0) for h in hyps]


def test_dense_fallback_gives_the_same_counts(m30k_pairs, monkeypatch):
    packed = tk.encode_pairs(m30k_pairs.ref, m30k_pairs.trans)
    want = [packed.matches(n) for n in (1, 2, 3, 4)]
    monkeypatch.setattr(tk, "_KEY_BITS", 16)  # force the factorised n-gram ids
    dense = tk.encode_pairs(m30k_pairs.ref, m30k_pairs.trans)
    for n, w in zip((1, 2, 3, 4), want, strict=True):
        np.testing.assert_array_equal(dense.matches(n), w)
    assert dense._gram_ids(4)[1] < packed._gram_ids(4)[1]


def test_pair_tokens_is_cached_per_batch_object(m30k_pairs):
    cache = tk.BatchCache()  # owned by the caller (a scoring actor)
    batch = m30k_pairs.head(50).copy()
    first = tk.pair_tokens(batch, cache)
    assert tk.pair_tokens(batch, cache) is first
    other = batch.copy()
    other.loc[0, "trans"] = "something else entirely"
    assert tk.pair_tokens(other, cache) is not first
    assert tk.pair_tokens(other, cache).lengths["trans"][0] == 3


def test_without_a_cache_nothing_is_kept(m30k_pairs):
    batch = m30k_pairs.head(20).copy()
    assert tk.pair_tokens(batch) is not tk.pair_tokens(batch)
    assert not [k for k, v in vars(tk).items() if isinstance(v, (dict, list, set))
                and not k.startswith("__")], "module-level mutable state"


def test_a_scoring_actor_shares_one_tokenisation(m30k_pairs):
    from paralib.filters.stage import ScoreActor

    actor = ScoreActor([{"type": "length"}, {"type": "overlap"}, {"type": "bleu"}])
    assert len({id(sc.tokens) for sc in actor.scorers}) == 1
    batch = m30k_pairs.head(30).copy()
    actor(batch)
    assert actor.scorers[0].tokens.value is not None
    alone = [get_scorer("length"), get_scorer("bleu")]
    assert alone[0].tokens is not alone[1].tokens  # each scorer on its own: its own cache


def test_empty_and_missing_texts_have_no_tokens():
    toks = tk.encode_pairs(pd.Series(["a b", "", None]), pd.Series([" ", "c", "a b"]))
    assert toks.lengths["ref"].tolist() == [2, 0, 0]
    assert toks.lengths["trans"].tolist() == [0, 1, 2]
    assert toks.matches(1).tolist() == [0, 0, 0]


def test_row_subset_reuses_tokens_and_matches_fresh(m30k_pairs):
    cache = tk.BatchCache()  # owned by the caller (a scoring actor)
    batch = m30k_pairs.head(300).copy()
    full = tk.pair_tokens(batch, cache)
    full.matches(2)
    ok = np.ones(len(batch), dtype=bool)
    ok[[0, 17, 150, 299]] = False
    good = batch[ok].copy()  # what the scoring stage scores after invalid()
    sub = tk.pair_tokens(good, cache)
    fresh = tk.encode_pairs(good.ref, good.trans)
    assert sub is not full and len(sub.vocab) == len(full.vocab) > len(fresh.vocab)
    for n in (1, 2, 3, 4):
        np.testing.assert_array_equal(sub.matches(n), fresh.matches(n))
    np.testing.assert_array_equal(sub.lengths["trans"], fresh.lengths["trans"])
    assert sub.joined["trans"].to_pylist() == fresh.joined["trans"].to_pylist()
    # reordered or edited rows are not a subset: tokenised afresh
    tk.pair_tokens(batch, cache)
    shuffled = batch.iloc[::-1]
    assert tk.pair_tokens(shuffled, cache).lengths["ref"][0] == full.lengths["ref"][-1]
    tk.pair_tokens(batch, cache)
    edited = batch[ok].copy()
    edited.iloc[0, edited.columns.get_loc("trans")] = "a b c d e f g h i j k l"
    assert tk.pair_tokens(edited, cache).lengths["trans"][0] == 12


def test_edit_of_any_row_is_seen(m30k_pairs):
    cache = tk.BatchCache()  # owned by the caller (a scoring actor)
    batch = m30k_pairs.head(200).copy()
    before = tk.pair_tokens(batch, cache).lengths["trans"][123]
    batch.iloc[123, batch.columns.get_loc("trans")] = "one two"  # in place, not a probe row
    assert tk.pair_tokens(batch, cache).lengths["trans"][123] == 2 != before


def test_tokens_never_hold_whitespace_and_do_not_depend_on_earlier_calls(m30k_pairs):
    # pyarrow 26's utf8_split_whitespace, given texts ending in a space, sometimes kept that
    # space in the last token of the last text, depending on earlier calls; this loop showed it
    refs, caps = m30k_pairs.ref.tolist(), m30k_pairs.trans.to_numpy(dtype=object)
    for n in (40, 41, 100, 7, 333):
        first = text.tokenize_all(refs[:n])
        for k in range(10):
            text.tokenize_all(refs)
            text.tokenize_all(list(np.roll(caps, k)))
            again = text.tokenize_all(refs[:n])
            assert again == first
            assert all(t and " " not in t for sent in again for t in sent)
    assert text.tokenize_all(refs[:40])[39][-3:] == ["nylon", "fabric", "."]
