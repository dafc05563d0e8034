"""Every sentence of every evaluation set is read, and missing sets are reported."""

from __future__ import annotations

import gzip
import shutil
import tarfile
from collections import Counter

from paralib.decontaminate import EVAL_SETS, eval_files, eval_sentences, missing_sets
from paralib.decontaminate.evalsets import TATOEBA_CODES
from paralib.evaluate.loaders import read_sts, read_sts17, read_sts_input


def _lines(path) -> int:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        return sum(1 for _ in f)


def test_every_set_is_named_once():
    assert EVAL_SETS == ("sts2012", "sts2013", "sts2014", "sts2015", "sts2016", "stsb", "sick",
                         "sts2017", "tatoeba", "bucc2018", "paws-x", "msrpc", "multi30k-test")


def test_sentence_counts_per_set(data_dir):
    counts = Counter(name for name, _ in eval_sentences(data_dir))
    files = eval_files(data_dir)
    # two sentences a line of the STS inputs, scored or not; the counts of the data README
    for year in (2012, 2013, 2014, 2015, 2016):
        assert counts[f"sts{year}"] == 2 * sum(_lines(f) for f in files[f"sts{year}"])
    assert counts["sts2013"] == 2 * (189 + 561 + 750)
    assert counts["stsb"] == 2 * (5749 + 1500 + 1379)
    assert counts["sick"] == 2 * (4500 + 500)
    assert counts["sts2017"] == 2 * (10 * 250 + 500)  # all 500 lines of tr-en
    assert counts["msrpc"] == 2 * (3576 + 500 + 1725)
    assert counts["paws-x"] == 2 * 2 * 4 * 2000  # dev and test, en de es fr, two sides
    assert counts["bucc2018"] == 32593 + 40354 + 21497 + 38069
    assert counts["multi30k-test"] == 4 * 1000 + 3 * 1000 + 3 * 461 + 4 * 1071
    assert len(files["multi30k-test"]) == 14  # cs only in 2016 and 2018
    # all 112 Tatoeba languages, both sides (some have fewer than 1,000 pairs)
    assert len(TATOEBA_CODES) == 112 and len(files["tatoeba"]) == 224
    assert counts["tatoeba"] == sum(_lines(f) for f in files["tatoeba"])
    on_disk = {p.name for p in (data_dir / "bitext" / "tatoeba").glob("tatoeba.*-eng.*")}
    assert on_disk == {p.name for p in files["tatoeba"]}
    assert set(counts) == set(EVAL_SETS)


def test_unscored_sts_sentences_are_read(data_dir):
    sentences = {s for name, s in eval_sentences(data_dir) if name in ("sts2016", "sts2017")}
    scored = read_sts(data_dir, 2016, "postediting")
    every = read_sts_input(data_dir, 2016, "postediting")
    unscored = [a for a, _ in every if a not in set(scored.a)]
    assert len(unscored) > 1000 and set(unscored) <= sentences
    tr = read_sts17(data_dir, "tr-en")
    assert tr.dropped == 250  # the evaluation drops them; decontamination must not
    inp = data_dir / "sts" / "STS17-test" / "STS.input.track6.tr-en.txt"
    last = inp.read_text(encoding="utf-8").rstrip("\n").split("\n")[-1].split("\t")
    assert last[0] not in tr.a and last[1] not in tr.b
    assert {last[0], last[1]} <= sentences


def test_no_set_missing_in_the_shared_data(data_dir):
    assert missing_sets(data_dir) == {}
    missing: dict[str, str] = {}
    assert sum(1 for _ in eval_sentences(data_dir, missing)) > 400_000
    assert missing == {}


def test_missing_sets_are_reported_not_skipped(data_dir, tmp_path):
    part = tmp_path / "data"
    keep = [data_dir / "sts" / "STS14-en-test" / "STS.input.images.txt",
            data_dir / "paraphrase" / "msrpc" / "msr-para-train.tsv",
            data_dir / "paraphrase" / "msrpc" / "msr-para-val.tsv",
            data_dir / "paraphrase" / "msrpc" / "msr-para-test.tsv"]
    for f in keep:
        (part / f.relative_to(data_dir)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, part / f.relative_to(data_dir))
    gone = missing_sets(part)
    assert set(gone) == set(EVAL_SETS) - {"msrpc"}  # sts2014 is incomplete: reported too
    assert gone["sts2014"].startswith(str(part / "sts" / "STS14-en-test"))
    assert gone["tatoeba"] == str(part / "bitext" / "tatoeba" / "tatoeba.afr-eng.afr")
    assert gone["bucc2018"].endswith("bucc2018-de-en.sample-gold.tar.bz2")
    recorded: dict[str, str] = {}
    counts = Counter(name for name, _ in eval_sentences(part, recorded))
    assert recorded == gone
    assert counts == {"sts2014": 1500, "msrpc": 2 * (3576 + 500 + 1725)}


def test_a_member_missing_from_the_bucc_archive_is_recorded(tmp_path):
    folder = tmp_path / "mining" / "bucc2018"
    folder.mkdir(parents=True)
    src = tmp_path / "de-en.sample.de"
    src.write_text("de-000001\tHallo Welt\n", encoding="utf-8")
    with tarfile.open(folder / "bucc2018-de-en.sample-gold.tar.bz2", "w:bz2") as tf:
        tf.add(src, arcname="bucc2018/de-en/de-en.sample.de")
    assert "bucc2018" in missing_sets(tmp_path)  # fr-en is not there at all
    assert not missing_sets(tmp_path)["bucc2018"].endswith("de-en.sample-gold.tar.bz2")
    recorded: dict[str, str] = {}
    assert not [s for name, s in eval_sentences(tmp_path, recorded) if name == "bucc2018"]
    assert recorded["bucc2018"].endswith("bucc2018/de-en/de-en.sample.en")
