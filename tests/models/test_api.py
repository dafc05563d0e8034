"""The Python API users already know from sentence-transformers and model2vec: ``paralib.load``
by name or folder, ``encode`` of a string or a list, ``similarity``, ``save``, ``paralib.fit``,
and the doctests of the public functions."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import numpy as np
import pytest

import paralib
from paralib.config import ConfigError
from paralib.models import ModelLoadError
from paralib.models.folder import MARKER
from paralib.models.shipped import resolve


@pytest.fixture(scope="module")
def en():
    return paralib.load("paralib-en")


def test_load_by_name_and_by_folder_give_one_model(en):
    folder = paralib.shipped_models()["paralib-en"]
    assert resolve(Path("paralib-en")) == folder  # the CLI passes names as paths
    again = paralib.load(folder)
    texts = ["A man plays a guitar.", "Someone is playing guitar."]
    np.testing.assert_array_equal(en.encode(texts), again.encode(texts))
    assert isinstance(en, paralib.SentenceEncoder)


def test_an_unknown_name_lists_the_shipped_models_and_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("PARALIB_MODELS", str(tmp_path))
    with pytest.raises(ModelLoadError) as err:
        paralib.load("no-such-model")
    message = str(err.value)
    assert "paralib-en" in message and "paralib-multi" in message
    assert str(tmp_path) in message and "no-such-model" in message


def test_paralib_models_adds_folders_searched_first(en, tmp_path, monkeypatch):
    en.save(tmp_path / "mine")
    monkeypatch.setenv("PARALIB_MODELS", str(tmp_path))
    assert paralib.shipped_models()["mine"] == tmp_path / "mine"
    np.testing.assert_allclose(paralib.load("mine").encode("A dog."), en.encode("A dog."),
                               atol=1e-6)


def test_a_string_gives_one_vector_and_a_list_a_matrix(en):
    one = en.encode("A man plays a guitar.")
    many = en.encode(["A man plays a guitar.", "A dog runs."], show_progress_bar=True)
    assert one.shape == (en.dim,) and many.shape == (2, en.dim)
    np.testing.assert_allclose(one, many[0], atol=1e-6)
    assert en.encode([]).shape == (0, en.dim)


@pytest.mark.parametrize("bad", [None, 3, b"bytes", float("nan")])
def test_a_non_string_is_named_with_its_type_and_index(en, bad):
    with pytest.raises(TypeError, match=f"sentence 1 is a {type(bad).__name__}"):
        en.encode(["fine", bad])


def test_similarity_is_a_matrix_of_cosines_of_sentences_or_vectors(en):
    a = ["A man plays a guitar.", "A dog runs in a field."]
    b = ["Someone is playing guitar.", "The stock market fell.", "A dog is running."]
    sims = en.similarity(a, b)
    assert sims.shape == (2, 3)
    va, vb = en.encode(a, normalize=True), en.encode(b, normalize=True)
    np.testing.assert_allclose(sims, va @ vb.T, atol=1e-5)
    np.testing.assert_allclose(en.similarity(en.encode(a), en.encode(b)), sims, atol=1e-5)
    assert sims[0, 0] > sims[0, 1] and sims[1, 2] > sims[1, 1]
    np.testing.assert_allclose(en.similarity_pairwise(a, b[:2]), np.diag(sims[:, :2]),
                               atol=1e-5)
    with pytest.raises(ValueError, match="one length"):
        en.similarity_pairwise(a, b)


def test_save_round_trips_and_never_replaces_a_users_folder(en, tmp_path):
    folder = en.save(tmp_path / "copy")
    assert (folder / MARKER).is_file() and (folder / "README.md").read_text() == en.card
    texts = ["A dog runs.", "Zwei Männer."]
    np.testing.assert_allclose(paralib.load(folder).encode(texts), en.encode(texts), atol=1e-6)
    user = tmp_path / "user"
    user.mkdir()
    (user / "notes.txt").write_text("mine")
    with pytest.raises(Exception, match="not a model folder that paralib made"):
        en.save(user)
    assert (user / "notes.txt").read_text() == "mine"


def test_fit_trains_on_pairs_without_yaml(tmp_path):
    pairs = [("A man plays a guitar.", "Someone is playing guitar."),
             ("A dog runs in a field.", "A dog is running on grass."),
             ("Two women sit on a bench.", "Two ladies are sitting on a bench."),
             ("The stock market fell today.", "Shares dropped on Monday.")] * 25
    model = paralib.fit(pairs, tmp_path / "m", epochs=2, dev="none", batch_size=20,
                        model={"parts": [{"dim": 16, "vocab_size": 200}]})
    assert model.dim == 16 and (tmp_path / "m" / "training.json").is_file()
    assert 0 < model.info["pairs"] <= len(pairs) and len(model.info["history"]) == 2
    sims = model.similarity(["A man plays a guitar."], ["Someone is playing guitar."])
    assert np.isfinite(sims).all()


def test_fit_names_a_bad_pair_and_a_bad_field(tmp_path):
    with pytest.raises(ConfigError, match="s2 of pair 1 is a int"):
        paralib.fit([("a", "b"), ("c", 4)], tmp_path / "m")
    with pytest.raises(ConfigError, match="pair 0 is a str"):
        paralib.fit(["just one string"], tmp_path / "m")
    with pytest.raises(ConfigError, match="epochs"):
        paralib.fit([("a", "b")] * 4, tmp_path / "m", epochs=0)


@pytest.mark.parametrize("module", ["paralib", "paralib.models.pretrained",
                                    "paralib.models.shipped", "paralib.train.api"])
def test_public_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_similarity_takes_a_pandas_series_of_sentences(en):
    import pandas as pd

    a = pd.Series(["A man plays a guitar.", "A dog runs."])
    np.testing.assert_allclose(en.similarity(a, a), en.similarity(list(a), list(a)), atol=1e-6)


def test_export_by_a_shipped_name_reads_that_models_card(tmp_path):
    from paralib.cli import main

    assert main(["export", "paralib-en", str(tmp_path / "m2v"), "--to", "model2vec"]) == 0
    shipped = (paralib.shipped_models()["paralib-en"] / "README.md").read_text()
    licence = next(ln for ln in shipped.splitlines() if ln.startswith("license:"))
    assert licence in (tmp_path / "m2v" / "README.md").read_text()
