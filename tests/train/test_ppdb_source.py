"""The ``ppdb`` training source (2017 §5.2, Table 4): the real PPDB file, malformed lines as
rejects with reasons, ``limit`` as a seeded random sample."""

from __future__ import annotations

import zipfile

import pytest

from paralib.config import Config
from paralib.experiments.needs import source_kinds
from paralib.io.context import StageContext
from paralib.train.config import TrainConfig
from paralib.train.sources import SourceError, load_sources, ppdb_pair

LINES = 210_372  # lines of lexical/mwa_ppdb.zip


def _cfg(**source) -> tuple[TrainConfig, StageContext]:
    cfg = Config.model_validate({"train": {"sources": [{"kind": "ppdb", **source}]}})
    return cfg.train, StageContext.of(cfg)


@pytest.mark.slow
def test_the_real_file_is_read_whole():
    data, rejects = load_sources(*_cfg())
    assert len(data) + len(rejects) == LINES
    pairs = set(zip(data["s1"], data["s2"], strict=True))
    assert {("egregious", "flagrant"), ("10/17/01", "17/10/2001"),
            ("ashamed", "embarrassed")} <= pairs
    assert set(data["lang1"]) == set(data["lang2"]) == {"en"}
    # two lines of control characters only (\x16\t\x1d and \x1e\t\xc2\xa1) have an empty side
    # single words that are whole Tatoeba or STS sentences ("Thanks!") are decontaminated
    reasons = rejects["reason"]
    assert (reasons == "empty sentence").sum() == 2
    assert reasons[reasons != "empty sentence"].str.match(
        r"contaminated: |duplicate pair").all()
    assert set(rejects["source"]) == {"0:ppdb"}


def test_limit_is_a_seeded_random_sample(data_dir):
    a, rej_a = load_sources(*_cfg(limit=300), seed=1)
    b, _ = load_sources(*_cfg(limit=300), seed=1)
    c, _ = load_sources(*_cfg(limit=300), seed=2)
    assert len(a) + (rej_a["reason"] == "empty sentence").sum() == 300
    key = lambda d: set(zip(d["s1"], d["s2"], strict=True))  # noqa: E731
    assert key(a) == key(b) and key(a) != key(c)
    with zipfile.ZipFile(data_dir / "lexical/mwa_ppdb.zip") as z:
        name = next(n for n in z.namelist() if not n.endswith("/"))
        head = z.read(name).splitlines()[:300]
    first = {tuple(line.decode().split("\t")) for line in head}
    assert len(key(a) & first) < 30  # not the file's first 300 lines (numbers first)


def test_malformed_lines_are_rejects_with_reasons(tmp_path):
    lines = [b"good\tfine", b"three\tfields\there", b"\xff\xfe\tbad", b"",
             b"[JJ] ||| happy ||| glad ||| p=0.5 ||| 0-0", b"only-one-field", b"word\t",
             b"[NN] ||| broken"]
    path = tmp_path / "ppdb.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ppdb/", "")
        z.writestr("ppdb/pairs.txt", b"\r\n".join(lines) + b"\r\n")
    data, rejects = load_sources(*_cfg(path=str(path)))
    assert sorted(zip(data["s1"], data["s2"], strict=True)) == [("good", "fine"),
                                                                 ("happy", "glad")]
    got = {(r, d): s1 for r, d, s1 in zip(rejects["reason"], rejects["detail"],
                                          rejects["s1"], strict=True)}
    assert set(got) == {
        ("expected 2 tab-separated phrases", "got 3 field(s)"),
        ("undecodable bytes", "utf-8: invalid start byte at byte 0"),
        ("blank line", ""),
        ("expected 2 tab-separated phrases", "got 1 field(s)"),
        ("expected LHS ||| phrase ||| paraphrase", "got 2 field(s)"),
        ("empty sentence", ""),
    }
    assert got["expected 2 tab-separated phrases", "got 3 field(s)"] == (
        "ppdb.zip:2: three\tfields\there")
    assert got["empty sentence", ""] == "word"
    assert len(data) + len(rejects) == len(lines)


def test_plain_text_files_and_bad_paths(tmp_path):
    txt = tmp_path / "pairs.tsv"
    txt.write_text("big\tlarge\nsmall\tlittle\n")
    data, rejects = load_sources(*_cfg(path=str(txt)))
    assert len(data) == 2 and rejects.empty
    assert ppdb_pair(b"car\tautomobile") == ("car", "automobile")
    two = tmp_path / "two.zip"
    with zipfile.ZipFile(two, "w") as z:
        z.writestr("a.txt", "a\tb\n")
        z.writestr("b.txt", "c\td\n")
    with pytest.raises(SourceError, match="holds 2 files"):
        load_sources(*_cfg(path=str(two)))
    with pytest.raises(SourceError, match="not found"):
        load_sources(*_cfg(path=str(tmp_path / "missing.zip")))


def test_experiments_see_the_ppdb_kind():
    assert "ppdb" in source_kinds()
