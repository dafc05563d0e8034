"""The shipped encoders in ``models/``: they load with ``paralib.load`` and encode as their
cards say."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import paralib
from paralib.paths import models_root


def test_paralib_en_loads_and_ranks_paraphrases_first():
    model = paralib.load(models_root() / "paralib-en")
    vecs = model.encode(["A man is playing a guitar.", "Someone plays the guitar.",
                         "The stock market fell sharply today.", ""], normalize=True)
    assert vecs.shape == (4, model.dim) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs[:3], axis=1), 1, atol=1e-5)
    assert not vecs[3].any()  # an empty sentence is the zero vector
    sims = vecs[:3] @ vecs[:3].T
    assert sims[0, 1] > sims[0, 2] + 0.2
    # cross-lingual: a German translation is nearer than an unrelated English sentence
    de = model.encode(["Ein Mann spielt Gitarre."], normalize=True)[0]
    assert de @ vecs[0] > vecs[2] @ vecs[0]
    assert {"en", "de", "fr", "es", "ru"} <= set(model.languages)
    card = (models_root() / "paralib-en" / "README.md").read_text()
    assert card.startswith("---\nlanguage:") and "paralib train --config" in card


@pytest.mark.parametrize("name", ["paralib-multi"])
def test_cross_lingual_models_load_and_retrieve_translations(name):
    model = paralib.load(models_root() / name)
    english = ["The children are playing football in the park.",
               "The government raised taxes on fuel.",
               "My grandmother bakes bread every Sunday."]
    en = model.encode(english, normalize=True)
    assert en.shape == (3, model.dim) and np.allclose(np.linalg.norm(en, axis=1), 1, atol=1e-5)
    translations = {
        "es": ["Los niños juegan al fútbol en el parque.",
               "El gobierno subió los impuestos sobre el combustible.",
               "Mi abuela hornea pan todos los domingos."],
        "de": ["Die Kinder spielen im Park Fußball.",
               "Die Regierung erhöhte die Steuern auf Kraftstoff.",
               "Meine Großmutter backt jeden Sonntag Brot."],
    }
    for lang, sentences in translations.items():
        xx = model.encode(sentences, normalize=True)
        # each translation retrieves its own English sentence among the three
        assert list((xx @ en.T).argmax(1)) == [0, 1, 2], lang
    assert {"en", "ar", "tr", "es", "de", "fr", "ru", "zh"} <= set(model.languages)
    card = (models_root() / name / "README.md").read_text()
    assert card.startswith("---\nlanguage:") and f"configs/{name}.yaml" in card


def test_word_trigram_model_loads_float16_weights_as_float32():
    """paralib-en-word-trigram ships float16 weights (its card says what rounding changed);
    ``paralib.load`` encodes with them in float32, WORD and TRIGRAM concatenated."""
    folder = models_root() / "paralib-en-word-trigram"
    model = paralib.load(folder)
    assert model.dim == 600 and {p.dtype for p in model.model.parameters()} == {torch.float32}
    vecs = model.encode(["A man is playing a guitar.", "Someone plays the guitar.",
                         "The stock market fell sharply today."], normalize=True)
    assert vecs.dtype == np.float32
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2] + 0.2
    card = (folder / "README.md").read_text()
    assert "weights: float16" in card and "configs/paralib-en-word-trigram.yaml" in card
