"""SP overlap of a language with English (2019 §4.2, note 10), on made-up and real text."""

from __future__ import annotations

import pytest

from paralib.config import Config
from paralib.experiments.overlap import measure, sp_overlap, used_pieces

ENGLISH = [f"the {a} dog runs to the {b} park with a {c} ball"
           for a in ("small", "big", "brown", "old") for b in ("green", "city", "dark")
           for c in ("red", "blue", "new")]
# the same sentences with every letter moved to Cyrillic: no character in common
CYRILLIC = str.maketrans({chr(ord("a") + i): chr(0x430 + i) for i in range(26)})
OTHER_SCRIPT = [s.translate(CYRILLIC) for s in ENGLISH]


def test_identical_text_overlaps_fully_and_another_script_not_at_all():
    assert sp_overlap(ENGLISH, ENGLISH, vocab_size=60) == 1.0
    assert sp_overlap(ENGLISH, OTHER_SCRIPT, vocab_size=60) == 0.0
    half = ENGLISH[:18] + OTHER_SCRIPT[18:]
    assert 0.0 < sp_overlap(ENGLISH, half, vocab_size=60) < 1.0
    pieces = used_pieces(ENGLISH, vocab_size=60)
    assert pieces and all(isinstance(p, str) for p in pieces)


def xnli(lang: str) -> Config:
    return Config.model_validate({"bitext": {"inputs": [
        {"corpus": f"xnli-{lang}", "src_lang": lang, "format": "xnli",
         "src": f"{{data}}/bitext/xnli/dev-{lang}.tsv", "en": "{data}/bitext/xnli/dev-en.tsv"}]}})


def test_bitext_overlap_of_real_languages():
    options = {"sentences": 1000, "vocab_size": 2000}
    arabic, spanish = (measure("sp_overlap", options, xnli(lang)) for lang in ("ar", "es"))
    assert 0.0 <= arabic < 0.3 and spanish <= 1.0
    assert spanish > 3 * arabic and spanish > arabic + 0.1   # Latin script shares more


def test_unknown_property():
    with pytest.raises(ValueError, match="unknown run property"):
        measure("uriel_distance", {}, Config())
