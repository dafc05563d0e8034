"""Normal forms, tokens and stable hashes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from paralib.decontaminate import (
    bulk_forms,
    eval_sentences,
    hash_strings,
    ngram_hashes,
    normal_form,
    tokens,
    window_hashes,
)

SAME_AS_FLUTE = [
    "A man is playing a flute.",
    "a man is playing a flute",
    "A MAN IS PLAYING A FLUTE!",
    "A man, is playing... a flute?!",
    "  A   man\tis playing\u00a0a flute .\n",  # extra, tab, no-break space, newline
    "«A man» is playing — a flute…",
    "Ａ ｍａｎ ｉｓ ｐｌａｙｉｎｇ ａ ｆｌｕｔｅ．",  # full-width letters and stop
    "A man is playing a \ufb02ute.",  # the "fl" ligature
    "A man is playing a flute.\u0007\x00",  # control characters
]


def test_normal_form_ignores_case_punctuation_space_and_compatibility_forms():
    forms = {normal_form(t) for t in SAME_AS_FLUTE}
    assert forms == {"amanisplayingaflute"}


def test_normal_form_keeps_what_differs():
    base = normal_form("A man is playing a flute.")
    for other in ("A man is playing a guitar.", "A woman is playing a flute.",
                  "A man is playing the flute.", "A man was playing a flute."):
        assert normal_form(other) != base
    # accents are letters (composed and decomposed é agree; é and e do not)
    assert normal_form("Café au lait") == normal_form("cafe\u0301 AU LAIT")
    assert normal_form("Café au lait") != normal_form("Cafe au lait")
    # case folding, not lowercasing: ß is ss; Greek final sigma folds to σ
    assert normal_form("Die Straße ist lang.") == normal_form("DIE STRASSE IST LANG")
    assert normal_form("ΟΔΟΣ") == normal_form("οδος") == normal_form("οδοσ")
    # symbols and digits are kept
    assert normal_form("It costs $5.") != normal_form("It costs 5.")
    assert normal_form("Room 101") != normal_form("Room 102")


def test_empty_and_punctuation_only_normal_forms_are_empty():
    for text in ("", "   ", "...", "?!", "« — »", "\t\n", "\u3002\u3001"):
        assert normal_form(text) == ""


def test_tokens_are_folded_letter_mark_digit_runs():
    assert tokens("Don't STOP—the ﬁne ＣＡＴ, 3.5 km!") == [
        "don", "t", "stop", "the", "fine", "cat", "3", "5", "km"]
    assert tokens("नमस्ते दुनिया") == ["नमस्ते", "दुनिया"]  # vowel signs (marks) stay in
    assert tokens("...") == []


@pytest.mark.slow
def test_bulk_forms_agree_with_per_text_forms_on_eval_sentences(data_dir):
    # every other sentence with a non-ASCII character (all scripts of Tatoeba, BUCC, STS
    # 2017 ...) and every tenth of the others
    texts = [s for i, (_, s) in enumerate(eval_sentences(data_dir))
             if i % (2 if not s.isascii() else 10) == 0]
    assert len(texts) > 80_000
    texts += ["", None, "   ", "?!", "a", "x\ud800y z", "a\u2028b c",
              "Ａ ｆｕｌｌ-ｗｉｄｔｈ ｌｉｎｅ"]
    normal, flat, lengths = bulk_forms(texts)
    plain = [t if isinstance(t, str) else "" for t in texts]
    assert normal == [normal_form(t) for t in plain]
    token_lists = [tokens(t) for t in plain]
    assert lengths.tolist() == [len(t) for t in token_lists]
    assert flat == [w for t in token_lists for w in t]
    normal, flat, lengths = bulk_forms([])
    assert normal == [] and flat == [] and lengths.size == 0


def test_hash_strings_is_deterministic_and_not_salted():
    values = ["amanisplayingaflute", "straße", "猫", ""]
    here = hash_strings(values)
    assert here.dtype == np.uint64 and len(set(here.tolist())) == 4
    assert hash_strings(values[::-1]).tolist() == here.tolist()[::-1]
    assert hash_strings([]).dtype == np.uint64 and hash_strings([]).size == 0
    code = ("import json, sys; from paralib.decontaminate import hash_strings; "
            "print(json.dumps(hash_strings(json.loads(sys.argv[1])).tolist()))")
    for seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code, json.dumps(values)], env=env,
                             capture_output=True, text=True, check=True)
        assert json.loads(out.stdout) == here.tolist()


WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "near", "the",
         "old", "mill"]


def test_ngram_hashes_equal_windows_hash_equally_across_calls_and_orders():
    a = WORDS[:12]  # 12 tokens: 3 windows of 10
    b = ["yesterday", *WORDS[2:12], "again"]  # shares the window WORDS[2:12] with a
    c = WORDS[:9]  # 9 tokens: below min_tokens
    h1, s1 = ngram_hashes([a, b, c], n=10, min_tokens=10)
    h2, s2 = ngram_hashes([c, b, a], n=10, min_tokens=10)
    assert s1.tolist() == [0, 0, 0, 1, 1, 1] and s2.tolist() == [1, 1, 1, 2, 2, 2]
    assert h1.dtype == np.uint64
    ha, hb = h1[s1 == 0], h1[s1 == 1]
    assert ha[2] == hb[1]  # the shared window
    assert len(set(ha.tolist()) & set(hb.tolist())) == 1
    assert sorted(h1.tolist()) == sorted(h2.tolist())
    assert ngram_hashes([a], 10, 10)[0].tolist() == ha.tolist()
    # order inside the window matters
    assert ngram_hashes([a[:10][::-1]], 10, 10)[0][0] != ha[0]


def test_ngram_hashes_skip_short_sentences_and_respect_min_tokens():
    h, s = ngram_hashes([WORDS[:9], [], ["x"] * 3], n=10, min_tokens=10)
    assert h.size == 0 and s.size == 0
    h, s = ngram_hashes([WORDS[:4], WORDS[:5], WORDS[:7]], n=3, min_tokens=5)
    assert s.tolist() == [1, 1, 1, 2, 2, 2, 2, 2]  # 5-3+1 and 7-3+1 windows; 4 < 5 skipped
    # the same windows as hashed from flat token hashes
    flat = hash_strings([w for t in (WORDS[:4], WORDS[:5], WORDS[:7]) for w in t])
    hw, sw = window_hashes(flat, np.array([4, 5, 7]), 3, 5)
    assert hw.tolist() == h.tolist() and sw.tolist() == s.tolist()
    with pytest.raises(ValueError):
        ngram_hashes([WORDS], n=0, min_tokens=0)
