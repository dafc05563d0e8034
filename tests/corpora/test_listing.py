"""``paralib corpora``: pair counts of the multi-parallel corpora (verses both sides have),
and a language no corpus has is an error naming the known ones."""

from __future__ import annotations

import json

from paralib.cli import main


def test_bible_counts_are_the_verses_both_translations_have(capsys):
    assert main(["corpora", "bibles", "--lang", "ara", "--lang", "ukr", "--json"]) == 0
    # data/README.md: 30,817 Arabic and 18,219 Ukrainian verse pairs with eng-webp (of
    # 41,899 lines each); ukr has two translations
    assert json.loads(capsys.readouterr().out) == {"bibles": {"ar": 30817, "uk": 18219}}


def test_un_and_pud_list_their_languages(capsys):
    assert main(["corpora", "un-testsets", "pud", "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["un-testsets"] == dict.fromkeys(["ar", "es", "fr", "ru", "zh"], 8000)
    assert counts["pud"] == dict.fromkeys(["ar", "de", "es", "fr", "hi", "ru", "tr", "zh"], 1000)


def test_an_unknown_language_is_an_error_listing_the_known_ones(capsys):
    assert main(["corpora", "--lang", "zzz"]) == 2
    err = capsys.readouterr().err
    assert "no corpus under" in err and "has language(s) zzz; known (" in err
    assert ", ar, " in err and ", de, " in err and ", zh, " in err


def test_a_language_some_corpora_have_lists_only_those(capsys):
    assert main(["corpora", "--lang", "hin", "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["pud"] == {"hi": 1000} and "un-testsets" not in counts
    assert all(set(per) == {"hi"} for per in counts.values())
