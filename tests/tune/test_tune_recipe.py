"""Tuning the 2019 recipe at scale:
the ``data_mix``, ``vocab_size``, ``dim`` and ``lang_temperature`` shortcuts, the training
sources' language filters, sample and language sampling temperature, trials that train on
``train.sources`` without a selection, and one real search of two data mixes over a small
corpus laid out as ``paralib decontaminate`` writes it."""

from __future__ import annotations

import gzip
import json
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paralib.config import Config
from paralib.tune.params import DATA_MIXES, apply_parameters, uses_selection
from paralib.tune.space import SpaceError, read_space
from paralib.tune.trial import place
from paralib.tune.validate import space_selects, validate_space

M30K = "bitext/multi30k/task1/raw"
CAPTIONS = "bitext/multi30k/task2/raw"
ROWS = 400


def _lines(path: Path, n: int) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [next(f).strip() for _ in range(n)]


@pytest.fixture(scope="session")
def corpus(tmp_path_factory, data_dir) -> Path:
    """A corpus Parquet file with the columns of ``paralib decontaminate``'s output: 400 real
    Multi30k English-German pairs, 400 English-French and 400 English-English caption pairs
    (the third and fourth captions of one image: the captions source's first pairs are the
    first and second)."""
    en = _lines(data_dir / M30K / "train.en.gz", ROWS)
    frames = []
    for lang, src in (("de", _lines(data_dir / M30K / "train.de.gz", ROWS)),
                      ("fr", _lines(data_dir / M30K / "train.fr.gz", ROWS)),
                      ("en", _lines(data_dir / CAPTIONS / "train.4.en.gz", ROWS))):
        ref = en if lang != "en" else _lines(data_dir / CAPTIONS / "train.3.en.gz", ROWS)
        frames.append(pd.DataFrame({
            "id": [f"t:{lang}:{i}" for i in range(ROWS)], "corpus": "t", "set": "train",
            "src_lang": lang, "src": src, "ref": ref,
            "group": np.arange(ROWS, dtype=np.int64) + 10_000 * len(frames),
            "pair_hash": np.arange(ROWS, dtype=np.int64) + 10_000 * len(frames)}))
    out = tmp_path_factory.mktemp("corpus") / "corpus.parquet"
    pd.concat(frames, ignore_index=True).to_parquet(out, index=False)
    return out


def _recipe_base(corpus: Path, **train) -> Config:
    return Config.model_validate({"train": {
        "sources": [{"kind": "corpus", "path": str(corpus), "sample": 900},
                    {"kind": "captions", "limit": 50}, {"kind": "sts"}],
        "model": {"parts": [{"name": "sp", "dim": 16}, {"name": "trigram", "dim": 16}]},
        **train}})


def test_data_mix_presets(corpus):
    base = _recipe_base(corpus)
    got = {}
    for mix in DATA_MIXES:
        cfg = apply_parameters(base, {"data_mix": mix})
        got[mix] = [(s.kind, s.langs, s.exclude_langs, s.sample, s.limit)
                    for s in cfg.train.sources]
    corpus_row = ("corpus", None, None, 900, None)
    assert got["bitext"] == [("corpus", None, ["en"], 900, None)]
    assert got["paraphrases"] == [("corpus", ["en"], None, 900, None),
                                  ("captions", None, None, None, 50),
                                  ("sts", None, None, None, None)]
    assert got["both"] == [corpus_row, ("captions", None, None, None, 50),
                           ("sts", None, None, None, None)]
    # a base without captions gets plain captions with paraphrases
    lone = Config.model_validate({"train": {"sources": [{"kind": "corpus",
                                                          "path": str(corpus)}]}})
    assert [s.kind for s in apply_parameters(lone, {"data_mix": "both"}).train.sources] == \
        ["corpus", "captions"]
    with pytest.raises(ValueError, match="data_mix 'all': choose one of bitext"):
        apply_parameters(base, {"data_mix": "all"})
    no_corpus = Config.model_validate({"train": {"sources": [{"kind": "captions"}]}})
    with pytest.raises(ValueError, match="data_mix needs a corpus source"):
        apply_parameters(no_corpus, {"data_mix": "bitext"})


def test_vocabulary_dimension_and_temperature_shortcuts(corpus):
    cfg = apply_parameters(_recipe_base(corpus), {"vocab_size": 40000, "dim": 64,
                                                  "lang_temperature": 2.0})
    assert [(p.vocab_size, p.dim) for p in cfg.train.model.parts] == [(40000, 64)] * 2
    assert cfg.train.lang_temperature == 2.0
    with pytest.raises(ValueError, match="greater than 0"):
        apply_parameters(_recipe_base(corpus), {"lang_temperature": 0})


def test_trials_select_only_when_the_space_or_base_needs_it(corpus, tmp_path):
    base = _recipe_base(corpus)
    assert not uses_selection(base, ["data_mix", "vocab_size", "lr", "train.margin"])
    assert uses_selection(base, ["data_mix", "length_range"])  # a selection shortcut
    assert uses_selection(base, ["lr", "select.size"])  # a select.* key (e.g. in set:)
    reads = Config.model_validate({"select": {"output": "o/sel"}, "train": {"sources": [
        {"kind": "pairs", "path": "o/sel"}]}})
    assert uses_selection(reads, ["lr"])  # the base trains on the selection
    assert uses_selection(Config.model_validate({}), ["lr"])  # no sources: the selection
    root = str(tmp_path / "trial_x")
    placed = place(base, root, str(tmp_path / "m"), select=False)
    assert [s.kind for s in placed.train.sources] == ["corpus", "captions", "sts"]
    assert placed.train.storage_path == root and placed.train.output == str(tmp_path / "m")


def _space_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "recipe.yaml"
    path.write_text(textwrap.dedent(body))
    return path


def test_a_space_without_selection_needs_no_scored_pairs(corpus, tmp_path):
    space = read_space(_space_file(tmp_path, """
        parameters:
          data_mix: [bitext, both]
          vocab_size: [300, 400]
    """))
    base = _recipe_base(corpus)  # select.input (output/score) holds nothing here
    assert not space_selects(space, base)
    assert len(validate_space(space, base, "grid")) == 4
    gone = Config.model_validate({"train": {"sources": [
        {"kind": "corpus", "path": str(tmp_path / "missing")}]}})
    with pytest.raises(SpaceError, match="train.sources: no corpus at .*missing"):
        validate_space(space, gone, "grid")
    with_selection = read_space(_space_file(tmp_path, """
        parameters:
          data_mix: [bitext]
          size: [100]
    """))
    selecting = Config.model_validate({**_recipe_base(corpus).model_dump(),
                                       "select": {"input": str(tmp_path / "none")}})
    with pytest.raises(SpaceError, match="no scored pairs at"):
        validate_space(with_selection, selecting, "grid")


def test_sources_filter_languages_and_sample(corpus):
    from paralib.io.context import StageContext
    from paralib.train.sources import load_sources

    def langs(**src) -> pd.Series:
        cfg = Config.model_validate({"train": {"decontaminate": False, "sources": [
            {"kind": "corpus", "path": str(corpus), **src}]}})
        data, _ = load_sources(cfg.train, StageContext.of(cfg), seed=3)
        return data["lang2"].value_counts()

    assert langs().to_dict() == {"de": ROWS, "fr": ROWS, "en": ROWS}
    assert langs(exclude_langs=["en"]).to_dict() == {"de": ROWS, "fr": ROWS}
    assert langs(langs=["en"]).to_dict() == {"en": ROWS}
    assert langs(langs=["deu", "fr"], exclude_langs=["fr"]).to_dict() == {"de": ROWS}
    sampled = langs(sample=300)
    assert sampled.sum() == 300 and set(sampled.index) == {"de", "fr", "en"}
    with pytest.raises(ValueError, match="langs: \\[\\] keeps no pair"):
        Config.model_validate({"train": {"sources": [
            {"kind": "corpus", "path": str(corpus), "langs": []}]}})


def test_language_temperature_moves_shares_towards_uniform():
    from paralib.train.sources import language_shares, temperature_sample

    counts = pd.Series({"de": 900, "fr": 90, "tr": 10})
    np.testing.assert_allclose(language_shares(counts, 1.0), [0.9, 0.09, 0.01])
    hot = language_shares(counts, 3.0)
    assert hot["de"] < 0.9 and hot["tr"] > 0.01 and hot.is_monotonic_decreasing
    np.testing.assert_allclose(language_shares(counts, 1e6), [1 / 3] * 3, atol=1e-4)
    data = pd.DataFrame({"lang2": np.repeat(counts.index, counts.to_numpy()),
                         "row": np.arange(1000)})
    same = temperature_sample(data, 1.0, seed=1)
    assert sorted(same["row"]) == list(range(1000))  # T = 1: every pair once
    drawn = temperature_sample(data, 3.0, seed=1)
    want = (hot * 1000).round().astype(int)
    assert len(drawn) == 1000
    assert (drawn["lang2"].value_counts()[want.index] - want).abs().max() <= 1
    tr = drawn[drawn["lang2"] == "tr"]["row"]
    assert set(tr) == set(range(990, 1000))  # a small language keeps all its pairs, repeated
    de = drawn[drawn["lang2"] == "de"]["row"]
    assert de.is_unique  # a large one is sampled down, without repeats


@pytest.mark.slow
def test_a_search_over_data_mixes_without_selection(ray_session, corpus, tmp_path):
    from paralib.tune.runner import TuneOptions, run_tune

    space = read_space(_space_file(tmp_path, """
        name: mixes
        evaluate: [stsb]
        asha: {enabled: false}
        set:
          train.model: {parts: [{name: sp, vocab_size: 300, dim: 16}]}
          train.megabatch: {size: 2}
          train.batch_size: 50
          train.epochs: 1
          train.cpus_per_worker: 0.5
        parameters:
          data_mix: [bitext, paraphrases]
    """))
    base = Config.model_validate({"train": {
        "sources": [{"kind": "corpus", "path": str(corpus)}, {"kind": "captions", "limit": 100}],
        "decontaminate": False,  # exact pair counts (the corpus stands in for a clean one)
        "model": {"parts": [{"name": "sp", "vocab_size": 300, "dim": 16}]},
        "megabatch": {"size": 2}, "batch_size": 50, "epochs": 1, "cpus_per_worker": 0.5}})
    storage = tmp_path / "tune"
    summary = run_tune(space, base, TuneOptions(storage_path=str(storage)), progress=False)
    assert summary.selects is False
    trials = {t.params["data_mix"]: t for t in summary.trials}
    assert {k: t.status for k, t in trials.items()} == \
        {"bitext": "completed", "paraphrases": "completed"}
    # bitext: the de and fr pairs; paraphrases: the en-en pairs and 100 captions
    assert trials["bitext"].pairs == 2 * ROWS
    assert trials["paraphrases"].pairs == ROWS + 100
    for t in trials.values():
        trial_dir = storage / "mixes" / f"trial_{t.trial_id}"
        assert not (trial_dir / "select").exists() and t.selected_pairs is None
        assert (trial_dir / "model" / "config.json").is_file()
        languages = json.loads((trial_dir / "trial.json").read_text())["languages"]
        assert languages == (["de", "en", "fr"] if t.params["data_mix"] == "bitext"
                             else ["en"])
    md = (storage / "mixes" / "report" / "report.md").read_text()
    assert f"| bitext | {2 * ROWS} |" in md
