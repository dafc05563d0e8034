"""One language-code scheme: ISO 639-1, ISO 639-3 and corpus variants map to one BCP-47 tag."""

from __future__ import annotations

import pytest

from paralib.corpora.langs import LanguageError, canonical, matches, scripts


@pytest.mark.parametrize(("code", "tag"), [
    ("de", "de"), ("deu", "de"), ("ces", "cs"), ("arb", "ar"), ("cmn", "zh"),
    ("zho-TW", "zh-TW"), ("srp-Cyrl", "sr-Cyrl"), ("fra-CA", "fr-CA"), ("pt-BR", "pt-BR"),
    ("es-LA", "es-419"), ("eng", "en"), ("pes", "fa"),
])
def test_codes_of_every_corpus_map_to_one_tag(code, tag):
    assert canonical(code) == tag


def test_a_language_without_region_selects_its_variants():
    assert matches("zh", "zho-TW") and matches("deu", "de") and matches("de", "deu")
    assert not matches("zh-TW", "zh-CN") and not matches("de", "nl")


def test_a_malformed_code_is_named():
    with pytest.raises(LanguageError, match="'x!y' is not a language code"):
        canonical("x!y")


def test_scripts_follow_the_language_and_an_explicit_script():
    assert scripts("rus") == {"Cyrl"}
    assert scripts("jpn") >= {"Hira", "Kana", "Hani"}
    assert scripts("srp-Latn") == {"Latn"}
    assert "Latn" in scripts("deu")
