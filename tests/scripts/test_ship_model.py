"""``scripts/ship_model.py``: float16 weights that ``paralib.load`` reads back, the card's
weights line from ``benchmarks/fp16.py``'s row, and which sentences the card says the
vocabulary was fitted on."""

from __future__ import annotations

import importlib.util
import json
import shutil
from types import ModuleType

import numpy as np
import pytest
from safetensors import safe_open

import paralib
from paralib.paths import PROJECT_ROOT


@pytest.fixture(scope="module")
def ship() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "ship_model", PROJECT_ROOT / "scripts" / "ship_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_half_weights_load_back_as_nearly_the_same_encoder(tmp_path, ship):
    folder = tmp_path / "en"
    shutil.copytree(PROJECT_ROOT / "models" / "paralib-en", folder)
    ship.half_weights(folder)
    with safe_open(str(folder / "model.safetensors"), "pt") as f:
        assert {f.get_slice(k).get_dtype() for k in f.keys()} == {"F16"}  # noqa: SIM118
    full, half = paralib.load(PROJECT_ROOT / "models" / "paralib-en"), paralib.load(folder)
    sentences = ["A man plays a guitar.", "Someone plays guitar.", ""]
    got = half.encode(sentences)
    assert got.dtype == np.float32 and np.allclose(full.encode(sentences), got, atol=1e-3)


def test_fp16_line_quotes_the_measured_row_or_stops(tmp_path, ship):
    report = tmp_path / "fp16.json"
    report.write_text(json.dumps({"rows": [
        {"model": "m", "MB fp16": 48.8, "MB fp32": 97.6, "dev r fp32": 81.764,
         "dev r fp16": 81.761, "max |dcos|": 3.57e-5, "mean |dcos|": 6.7e-6}]}))
    line = ship.fp16_line("m", report)
    assert "float16" in line and "81.76 to 81.76" in line and "3.6e-05" in line
    with pytest.raises(SystemExit, match="no row for other"):
        ship.fp16_line("other", report)


@pytest.mark.parametrize(("sample", "pairs", "says"), [
    (2_000_000, 242_135, "shared by the 7 languages"),
    (500_000, 1_441_865, "English sides of its first 500,000 training pairs"),
    (2_000_000, 1_511_104, "every English side and 488,896 of the other sides"),
])
def test_vocabulary_sentence_says_what_the_sample_covered(ship, sample, pairs, says):
    assert says in ship.vocabulary_sentence({"sp"}, sample, pairs, 7)
    assert ship.vocabulary_sentence({"word", "trigram"}, sample, pairs, 7).startswith(
        "its trigram and word vocabularies are")


def test_vocabulary_sentence_of_a_sample_by_language(ship):
    said = ship.vocabulary_sentence({"sp"}, 2_000_000, 499_214, 13, "language")
    assert "2,000,000 distinct sentences spread evenly over the 13 languages" in said


def test_the_card_names_the_corpora_their_terms_and_the_mix(ship):
    multi = ship.corpus_names(PROJECT_ROOT / "configs" / "paralib-multi.yaml")
    assert multi[0] == "wmt-news" and multi[-3:] == ["bibles", "un-testsets", "pud"]
    english = ship.corpus_names(PROJECT_ROOT / "configs" / "paralib-en.yaml")
    assert english[-1] == "multi30k" and "bibles" not in english
    assert set(multi + english) <= set(ship.TERMS)
    lines = ship.training_mix({"mix": {"bibles": {"ar": 3, "de": 1}, "pud": {"tr": 4}}},
                              PROJECT_ROOT / "configs" / "paralib-multi.yaml")
    assert lines == ["- mix (pairs per corpus and language):",
                     "- bibles: 4 pairs (50.0%): ar 3, de 1", "- pud: 4 pairs (50.0%): tr 4"]


def test_the_card_reproduces_back_translated_sources_with_their_three_stages(ship):
    config = PROJECT_ROOT / "configs" / "paralib-en-bt.yaml"
    commands = ship.made_commands(config)
    assert commands[0] == "paralib decontaminate --config configs/bitext-all.yaml"
    assert commands[1:4] == [f"paralib {stage} --config configs/bt-scale-de.yaml"
                             for stage in ("backtranslate", "score", "select")]
    assert commands[-1] == "paralib select --config configs/bt-scale-cs.yaml"
    names = ship.corpus_names(config)
    assert {"bibles", "pud", "multi30k"} <= set(names) <= set(ship.TERMS)
    assert ship.made_commands(PROJECT_ROOT / "configs" / "paralib-en.yaml") == [
        "paralib decontaminate --config configs/bitext-all.yaml"]


def test_refresh_peers_rewrites_only_the_peers_section(ship, tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "README.md").write_text("---\nlanguage:\n- en\n---\n\n# m\n\n## Training\n\n- kept\n"
                                      "\n## Scores beside its peers\n\nold table\n")
    quality = tmp_path / "quality.json"
    quality.write_text(json.dumps({"rows": [{"model": "m", "STSB test": 77.44},
                                            {"model": "peer", "STSB test": 70.0}],
                                   "notes": {"peer": "a peer"}}))
    ship.refresh_peers(folder, "m", quality)
    card = (folder / "README.md").read_text()
    assert card.startswith("---\nlanguage:\n- en\n---\n\n# m\n\n## Training\n\n- kept\n")
    assert "old table" not in card and "| **m** |" in card and "| peer |" in card
    assert "77.4" in card and card.count("## Scores beside its peers") == 1
