"""Each loader reads the real files with their quirks."""

from __future__ import annotations

import numpy as np
import pytest

from paralib.evaluate.loaders import (
    STS17_EXTENDED,
    STS17_TRACKS,
    STS_YEARS,
    MissingDataError,
    read_bucc,
    read_msrpc,
    read_paws,
    read_sick,
    read_sts,
    read_sts17,
    read_stsb,
    read_tatoeba,
    tatoeba_code,
)


def test_sts_all_24_sets_and_unscored_lines_dropped(data_dir):
    sizes = {(y, d): read_sts(data_dir, y, d) for y, ds in STS_YEARS.items() for d in ds}
    assert len(sizes) == 24
    msr = sizes[(2012, "MSRpar")]
    assert (len(msr), msr.dropped) == (750, 0)
    assert msr.a[0].startswith("The problem likely will mean corrective changes")
    assert msr.gold[:3].tolist() == [4.4, 0.8, 3.6]
    # 2015 and 2016 gold files leave unscored pairs blank: those are dropped
    forums = sizes[(2015, "answers-forums")]
    assert (len(forums), forums.dropped) == (375, 1625)
    assert len(sizes[(2016, "headlines")]) == 249
    assert len(sizes[(2014, "deft-forum")]) == 450  # integer gold scores ("4")
    for p in sizes.values():
        assert len(p.a) == len(p.b) == len(p.gold) > 0
        assert np.isfinite(p.gold).all() and p.gold.min() >= 0 and p.gold.max() <= 5
    assert sizes[(2012, "surprise.OnWN")].name == "OnWN"


def test_stsb_extra_columns(data_dir):
    test = read_stsb(data_dir, "test")
    assert len(test) == 1379 and len(read_stsb(data_dir, "dev")) == 1500
    # a line with two source columns after the sentences (answer-answer 0008, score 3)
    i = test.a.index("I remained under the banyan tree, exhausted by my daily ritual of "
                     "dragooning the men every two hours. ")
    assert test.b[i].startswith("I remained under the banyan tree, exhausted by my daily "
                                "ritual of herding the cats")
    assert test.gold[i] == 3.0
    assert not any("StackExchange" in s for s in test.a + test.b)


def test_sick(data_dir):
    train, trial = read_sick(data_dir, "train"), read_sick(data_dir, "trial")
    assert (len(train), len(trial)) == (4500, 500)
    assert train.a[0].startswith("A group of kids is playing in a yard")
    assert train.gold[0] == 4.5 and train.gold.min() >= 1 and train.gold.max() <= 5


def test_sts17_tracks_tr_en_and_extended(data_dir):
    for track in [*STS17_TRACKS, *STS17_EXTENDED]:
        p = read_sts17(data_dir, track)
        assert len(p) == 250, track
    tr = read_sts17(data_dir, "tr-en")
    assert tr.dropped == 250  # 500 input lines, 250 gold scores
    assert (tr.lang_a, tr.lang_b) == ("en", "tr")
    assert tr.a[0] == "A silhouette of two dogs running by a lake."
    assert tr.gold[0] == 1.4
    ar_en = read_sts17(data_dir, "ar-en")
    assert ar_en.a[0] == "two men are crying" and ar_en.lang_b == "ar"
    b = read_sts17(data_dir, "es-en (b)")  # no score column in the input
    assert (b.lang_a, b.lang_b) == ("en", "es") and b.gold[:3].tolist() == [5, 4, 5]
    de = read_sts17(data_dir, "de-en")  # score from the third column
    assert de.gold[0] == 2.4 and de.b[0].startswith("Eine Person")
    fr = read_sts17(data_dir, "fr-en")
    assert fr.lang_a == "fr" and fr.a[0].startswith("Une personne")


def test_paws_and_msrpc(data_dir):
    for lang in ("en", "de", "es", "fr"):
        for split in ("dev", "test"):
            p = read_paws(data_dir, lang, split)
            assert len(p) == 2000 and set(p.gold.tolist()) == {0, 1}
    train = read_msrpc(data_dir, "train")  # BOM, CRLF and a header
    assert len(train) == 3576 and int(train.gold.sum()) == 2407
    assert train.a[0].startswith("Amrozi accused his brother")
    assert not any(s.endswith("\r") for s in train.b)
    assert len(read_msrpc(data_dir, "val")) == 500
    assert len(read_msrpc(data_dir, "test")) == 1725


def test_tatoeba(data_dir):
    assert tatoeba_code("de") == "deu" and tatoeba_code("xx") == "xx"
    de, en, files = read_tatoeba(data_dir, "de")
    assert len(de) == len(en) == 1000
    assert en[0] == "Mary said she didn't know where Tom was."
    assert files[0].endswith("tatoeba.deu-eng.deu")


def test_bucc_from_tarball(data_dir):
    s = read_bucc(data_dir, "fr-en")
    assert (len(s.src), len(s.trg), len(s.gold)) == (21497, 38069, 929)
    assert s.src_ids[0].startswith("fr-") and s.trg_ids[0].startswith("en-")
    assert len(set(s.gold[:, 0])) == 929
    assert all(s.src_ids[i].startswith("fr-") for i in s.gold[:5, 0])


def test_missing_file_names_file_and_folder(tmp_path):
    with pytest.raises(MissingDataError) as err:
        read_sts(tmp_path, 2012, "MSRpar")
    msg = str(err.value)
    assert "STS.input.MSRpar.txt" in msg and str(tmp_path / "sts" / "STS12-en-test") in msg
    with pytest.raises(MissingDataError, match="bucc2018-de-en.sample-gold.tar.bz2"):
        read_bucc(tmp_path, "de-en")
