"""Training sources read the real files; bad input is an error or a counted reject."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from paralib.config import Config
from paralib.io.context import StageContext
from paralib.train.config import TrainConfig
from paralib.train.report import mix_lines
from paralib.train.run import prepare
from paralib.train.sources import (
    SourceError,
    decontamination_counts,
    load_sources,
    mix_counts,
)


def _cfg(sources, **train) -> Config:
    return Config.model_validate({"train": {"sources": sources, **train}})


def _staged(sources, **train) -> tuple[TrainConfig, StageContext]:
    cfg = _cfg(sources, **train)
    return cfg.train, StageContext.of(cfg)


@pytest.mark.slow
def test_captions_pair_captions_of_one_image(data_dir):
    import gzip

    data, rejects = load_sources(*_staged([{"kind": "captions"}]))
    first = []
    for k in (1, 2):
        with gzip.open(data_dir / f"bitext/multi30k/task2/raw/train.{k}.en.gz", "rt") as f:
            first.append(f.readline().strip())
    assert ((data["s1"] == first[0]) & (data["s2"] == first[1])).sum() == 1
    assert len(data) + len(rejects) == 4 * 29000


def test_an_undecodable_caption_rejects_its_pairs(tmp_path, monkeypatch):
    import gzip

    base = tmp_path / "bitext/multi30k/task2/raw"
    base.mkdir(parents=True)
    for k in range(1, 6):
        lines = [f"image one caption {k}".encode(), f"image two caption {k}".encode()]
        if k == 3:
            lines[1] = b"caf\xe9 with a latin-1 byte"
        (base / f"train.{k}.en.gz").write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    monkeypatch.setenv("PARALIB_DATA", str(tmp_path))
    data, rejects = load_sources(*_staged([{"kind": "captions"}]))
    assert len(data) == 6 and len(rejects) == 2  # image two: pairs 2-3 and 3-4
    assert set(zip(rejects["reason"], rejects["detail"], strict=True)) == {
        ("undecodable bytes in caption 3", "utf-8: invalid continuation byte at byte 3")}
    assert ("image one caption 2", "image one caption 3") in set(zip(data.s1, data.s2, strict=True))


def test_sts_pairs_score_at_least_the_bound():
    high, _ = load_sources(*_staged([{"kind": "sts", "min_score": 3.8}], decontaminate=False))
    low, _ = load_sources(*_staged([{"kind": "sts", "min_score": 2.0}], decontaminate=False))
    assert 1000 < len(high) < len(low) < 5749


def test_training_on_an_evaluation_set_is_decontaminated_by_default():
    data, rejects = load_sources(*_staged([{"kind": "sts", "min_score": 4.5}]))
    assert data.empty  # STS Benchmark train pairs are an evaluation set (all splits)
    assert decontamination_counts(rejects)["stsb"] + decontamination_counts(rejects).get(
        "sts2012", 0) > 0
    assert rejects["reason"].str.startswith("contaminated: ").all()


def test_bitext_with_a_planted_eval_sentence_loses_only_that_pair(tmp_path, data_dir):
    from paralib.evaluate.loaders import read_sick

    sick = read_sick(data_dir, "train").a[3]
    (tmp_path / "x.de").write_text("Der Leuchtturm blinkt grün.\nIrgendein Satz.\n")
    (tmp_path / "x.en").write_text(f"The lighthouse blinks green.\n{sick.upper()}\n")
    bitext = {"inputs": [{"corpus": "x", "src_lang": "de", "src": str(tmp_path / "x.de"),
                          "en": str(tmp_path / "x.en")}]}
    cfg = Config.model_validate({"bitext": bitext, "train": {"sources": [{"kind": "bitext"}]}})
    data, rejects = load_sources(cfg.train, StageContext.of(cfg))
    assert data["s1"].tolist() == ["The lighthouse blinks green."]
    assert rejects["reason"].iloc[0].startswith("contaminated: ")
    off = Config.model_validate({"bitext": bitext, "train": {
        "sources": [{"kind": "bitext"}], "decontaminate": False}})
    assert len(load_sources(off.train, StageContext.of(off))[0]) == 2


def test_the_model_card_says_when_training_was_not_decontaminated():
    from paralib.train.loop import card

    info = {"languages": ["en"], "workers": 1, "pairs": 10, "epoch": 1, "dev": None}
    assert "not decontaminated" in card(_cfg([{"kind": "sts"}], decontaminate=False).train,
                                        info)
    assert "decontaminated: pairs sharing" in card(_cfg([{"kind": "sts"}]).train, info)


def test_bitext_source_is_bilingual(m30k):
    cfg = Config.model_validate({
        "bitext": {"inputs": [{"corpus": "m", "src_lang": "de", "src": m30k["val_de"],
                               "en": m30k["val_en"]}]},
        "train": {"sources": [{"kind": "bitext"}]}})
    data, rejects = load_sources(cfg.train, StageContext.of(cfg))
    assert set(data["lang2"]) == {"de"} and set(data["lang1"]) == {"en"}
    assert len(data) + len(rejects) == 1014


def test_empty_and_unknown_sentences_are_rejected_with_reasons(tmp_path):
    pd.DataFrame({"ref": ["a dog runs", "", "two men talk", "a cat sleeps", "zzqx qqzx"],
                  "trans": ["the dog runs", "a man", "two men speak", "a cat is asleep",
                            "a dog"]}).to_parquet(tmp_path / "p.parquet")
    cfg = _cfg([{"kind": "pairs", "path": str(tmp_path / "p.parquet")}],
               model={"parts": [{"name": "word", "vocab_size": 6}]})
    prepared = prepare(cfg.train, StageContext.of(cfg))
    data, rejects = prepared.data, prepared.rejects
    assert len(data) + len(rejects) == 5
    assert sorted(rejects["reason"]) == ["all tokens unknown", "empty sentence"]


def test_bad_sources_are_clear_errors(tmp_path):
    pd.DataFrame({"a": ["x"], "b": ["y"]}).to_parquet(tmp_path / "p.parquet")
    with pytest.raises(SourceError, match="missing column.*ref"):
        load_sources(*_staged([{"kind": "pairs", "path": str(tmp_path / "p.parquet")}]))
    with pytest.raises(SourceError, match="empty"):
        load_sources(*_staged([]))
    with pytest.raises(SourceError, match="bitext.inputs"):
        load_sources(*_staged([{"kind": "bitext"}]))
    with pytest.raises(SourceError, match="label"):
        prepare(*_staged([{"kind": "sts"}], loss="contrastive"))
    with pytest.raises(ValueError, match="needs 'path'"):
        _cfg([{"kind": "pairs"}])


def test_the_captions_of_one_image_are_one_group_and_never_its_negatives(tmp_path, monkeypatch):
    """Experiment 7's source: the 4 pairs of an image share the image's group, so the hardest
    negative of a caption is a caption of another image even where its own image's other
    captions are nearer (2018 §4: mega-batch negatives)."""
    import gzip

    import torch

    from paralib.train.mining import negatives

    base = tmp_path / "bitext/multi30k/task2/raw"
    base.mkdir(parents=True)
    images = ("dog", "boat", "child")
    for k in range(1, 6):
        lines = [f"a {image} seen by writer {k}".encode() for image in images]
        if k == 3:   # the child's pairs 1-2 and 4-5 share no caption: only the image links them
            lines[2] = b""
        (base / f"train.{k}.en.gz").write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    monkeypatch.setenv("PARALIB_DATA", str(tmp_path))
    data, rejects = load_sources(*_staged([{"kind": "captions"}]))
    assert len(data) == 10 and len(rejects) == 2
    image = data["s1"].str.split(" ").str[1].to_numpy()
    groups = data["group"].astype("int64").to_numpy()
    for name in images:
        assert len(set(groups[image == name])) == 1   # one group per image ...
    assert len(set(groups)) == len(images)            # ... and one image per group
    # vectors that put every caption next to the other captions of its image
    centre = {name: torch.randn(8, generator=torch.Generator().manual_seed(i)) * 10
              for i, name in enumerate(images)}
    noise = torch.Generator().manual_seed(7)
    e1 = torch.stack([centre[n] + torch.randn(8, generator=noise) for n in image])
    e2 = torch.stack([centre[n] + torch.randn(8, generator=noise) for n in image])
    pool_image = list(image) * 2                     # the text pool is side 1 then side 2
    plain1, _ = negatives(e1, e2, "max", False)
    assert any(pool_image[j] == image[i] for i, j in enumerate(plain1.tolist()))
    t1, t2 = negatives(e1, e2, "max", False, groups=torch.tensor(groups))
    for i, (j1, j2) in enumerate(zip(t1.tolist(), t2.tolist(), strict=True)):
        assert pool_image[j1] != image[i] and pool_image[j2] != image[i]


def _multi(corpora: list[dict], **train) -> tuple[TrainConfig, StageContext]:
    cfg = Config.model_validate({"bitext": {"corpora": corpora},
                                 "train": {"sources": [{"kind": "bitext"}], **train}})
    return cfg.train, StageContext.of(cfg)


PUD3 = {"name": "pud", "langs": ["ar", "de", "zh"]}


def test_multiparallel_pairs_are_decontaminated_with_corpus_and_verse_groups():
    data, rejects = load_sources(*_multi([PUD3, {"name": "bibles", "langs": ["ar", "de"],
                                                "limit": 60}]))
    assert set(data["corpus"]) == {"pud", "bibles"}
    # PUD's "Who are they?" is a LASER Tatoeba sentence (data/README.md): removed, counted
    assert decontamination_counts(rejects)["tatoeba"] >= 3
    assert not (data["s1"] == "Who are they?").any()
    # one sentence, one group: its translations are positives of each other
    per_sentence = data.groupby("s1")["group"].nunique()
    assert (per_sentence == 1).all() and data.groupby("s1").size().max() >= 3
    assert data["group"].nunique() == data["s1"].nunique()
    # the Bible's Arabic without its vowel marks, English verses as read
    ar = data[(data["corpus"] == "bibles") & (data["lang2"] == "ar")]
    assert len(ar) > 50 and not ar["s2"].str.contains("[\u064b-\u065f\u0670\u0640]").any()


def test_caps_per_corpus_language_and_in_all():
    caps = [{"corpus": "pud", "per_lang": 100}, {"lang": "ara", "max_pairs": 150}]
    full, _ = load_sources(*_multi([PUD3, {"name": "un-testsets", "langs": ["ar"],
                                          "limit": 300}]))
    data, rejects = load_sources(*_multi([PUD3, {"name": "un-testsets", "langs": ["ar"],
                                                "limit": 300}], caps=caps))
    n = data.groupby(["corpus", "lang2"]).size().to_dict()
    assert n[("pud", "de")] == n[("pud", "zh")] == 100
    assert n[("pud", "ar")] + n[("un-testsets", "ar")] == 150
    # max_pairs draws at random from the 100 PUD and the UN pairs of Arabic left
    un = int(((full["corpus"] == "un-testsets") & (full["lang2"] == "ar")).sum())
    assert abs(n[("pud", "ar")] - 150 * 100 / (100 + un)) < 10
    over = rejects[rejects["reason"] == "over cap"]
    assert len(over) == len(full) - len(data)
    assert set(over["detail"]) == {"train.caps[0] (corpus pud: per_lang 100)",
                                   "train.caps[1] (lang ar: max_pairs 150)"}
    again, _ = load_sources(*_multi([PUD3, {"name": "un-testsets", "langs": ["ar"],
                                           "limit": 300}], caps=caps))
    assert sorted(again["s2"]) == sorted(data["s2"])  # seeded
    # the mix the model card reports: pairs per corpus and language, largest corpus first
    mix = mix_counts(data)
    assert mix["pud"] == {"de": 100, "zh": 100, "ar": n[("pud", "ar")]}
    assert list(mix["pud"].values()) == sorted(mix["pud"].values(), reverse=True)
    assert mix["un-testsets"] == {"ar": n[("un-testsets", "ar")]}
    assert sum(sum(v.values()) for v in mix.values()) == len(data)
    lines = mix_lines(mix, top=1)
    assert lines[0].startswith(f"- {next(iter(mix))}: ") and "and 2 more languages" in \
        next(line for line in lines if line.startswith("- pud"))


def test_a_cap_that_leaves_a_language_no_pair_is_an_error_naming_it():
    with pytest.raises(SourceError, match=r"train\.caps\[0\] \(corpus pud: max_pairs 2\): "
                       r"leaves language '\w+' of corpus 'pud' no pair .*expected at least "
                       "one pair per language"):
        load_sources(*_multi([PUD3], caps=[{"corpus": "pud", "max_pairs": 2}]))


@pytest.mark.parametrize(("cap", "message"), [
    ({"corpus": "wmt-news", "per_lang": 5}, "no training pair is from corpus 'wmt-news'; "
     "the pairs' corpora: pud"),
    ({"corpus": "pud", "lang": "fr", "max_pairs": 5}, "no training pair of corpus 'pud' is "
     "in language 'fr'; their languages: ar, de, zh"),
])
def test_a_cap_on_pairs_that_are_not_there_is_an_error(cap, message):
    with pytest.raises(SourceError, match=message):
        load_sources(*_multi([PUD3], caps=[cap]))


@pytest.mark.parametrize(("train", "message"), [
    ({"caps": [{"max_pairs": 10}]}, "set 'corpus', 'lang' or both"),
    ({"caps": [{"corpus": "pud"}]}, "needs 'max_pairs'"),
    ({"caps": [{"lang": "ar", "per_lang": 3}]}, "use 'max_pairs'"),
    ({"caps": [{"lang": "x!y", "max_pairs": 3}]}, "'x!y' is not a language code"),
    ({"caps": [{"corpus": "pud", "max_pairs": 0}]}, "greater than or equal to 1"),
    ({"corpus_temperature": 0}, "greater than 0"),
    ({"vocab_sample_by": "random"}, "'order' or 'language'"),
])
def test_mixing_settings_are_validated(train, message):
    from paralib.config import ConfigError, load_config

    overrides = [f"train.{k}={v!r}".replace("'", '"') for k, v in train.items()]
    with pytest.raises(ConfigError, match=message):
        load_config(None, overrides)


def test_corpus_temperature_balances_corpora():
    corpora = [{"name": "pud", "langs": ["ar"], "limit": 100},
               {"name": "un-testsets", "langs": ["ar"], "sets": ["devset"], "limit": 500}]
    same, _ = load_sources(*_multi(corpora))
    flat, _ = load_sources(*_multi(corpora, corpus_temperature=1000.0))
    before, after = same["corpus"].value_counts(), flat["corpus"].value_counts()
    assert before["un-testsets"] > 4 * before["pud"]
    assert len(flat) == len(same) and abs(after["pud"] - after["un-testsets"]) <= 2
    kept, _ = load_sources(*_multi(corpora, corpus_temperature=1.0))
    assert kept["corpus"].value_counts().to_dict() == before.to_dict()


def test_no_usable_pair_says_where_the_pairs_went():
    with pytest.raises(SourceError) as err:
        prepare(*_staged([{"kind": "sts", "min_score": 4.5}]))
    msg = str(err.value)
    got = re.search(r"source 0:sts: ([\d,]+) pair\(s\), 0 left; removed: decontamination "
                    r"([\d,]+) \(sts\w+ \d+, ", msg)
    assert msg.startswith("only 0 usable training pair(s), expected at least 2: ") and got
    assert got.group(1) == got.group(2) != "0"


def test_vocabulary_sample_by_language_reaches_every_language():
    from paralib.train.sources import vocabulary_sample

    data, _ = load_sources(*_multi([PUD3]))
    english = set(data["s1"])
    first = vocabulary_sample(data, 400, "order", 1)
    assert first == pd.concat([data["s1"], data["s2"]]).iloc[:400].tolist()
    assert set(first) <= english  # today's sample: English only
    spread = vocabulary_sample(data, 400, "language", 1)
    lang_of = {**dict(zip(data["s2"], data["lang2"], strict=True)), **dict.fromkeys(english,
                                                                                    "en")}
    assert pd.Series([lang_of[s] for s in spread]).value_counts().to_dict() == {
        "en": 100, "ar": 100, "de": 100, "zh": 100}
    assert len(set(spread)) == 400
    assert spread == vocabulary_sample(data, 400, "language", 1)
    assert spread != vocabulary_sample(data, 400, "language", 2)
