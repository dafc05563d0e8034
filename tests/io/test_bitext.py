"""Bitext readers: every format, shards, and bad input turned into counted rejects."""

from __future__ import annotations

import gzip
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paralib.config import InputConfig
from paralib.io.bitext import BitextError, plan_shards, read_all, read_shard


def text_pair(tmp_path, de: bytes, en: bytes, gz: bool = False) -> InputConfig:
    suffix = ".gz" if gz else ""
    s, e = tmp_path / f"x.de{suffix}", tmp_path / f"x.en{suffix}"
    s.write_bytes(gzip.compress(de) if gz else de)
    e.write_bytes(gzip.compress(en) if gz else en)
    return InputConfig(corpus="c", src_lang="de", src=str(s), en=str(e))


def test_bad_rows_become_rejects_with_reasons(tmp_path):
    de = b"\xef\xbb\xbfEin Hund.\n\xff\xfekaputt\n\nZu lang " + b"x" * 50 + b"\nGut.\n"
    en = b"A dog.\nbroken\nempty source\ntoo long\n \n"
    inp = text_pair(tmp_path, de, en)
    rows, rejects = read_all([inp], max_chars=40)
    assert [r["src"] for r in rows] == ["Ein Hund."]  # the byte-order mark is stripped
    reasons = {r["line"]: (r["reason"], r["detail"]) for r in rejects}
    assert reasons == {  # the reason is the kind; what is particular to the line, the detail
        2: ("undecodable bytes in source", "utf-8: invalid start byte at byte 0"),
        3: ("empty source sentence", ""),
        4: ("source longer than 40 characters", "58 characters"),
        5: ("empty English sentence", ""),
    }
    assert len(rows) + len(rejects) == 5
    assert rows[0]["id"] == "c:00000:1"


def test_different_line_counts_fail_before_reading(tmp_path):
    inp = text_pair(tmp_path, b"a\nb\nc\n", b"a\nb\n")
    with pytest.raises(BitextError, match=r"x.de has 3 lines, .*x.en has 2"):
        plan_shards([inp], shard_rows=10)


def test_shards_cover_every_line_once(tmp_path):
    n = 23
    de = "".join(f"Satz {i}\n" for i in range(n)).encode()
    en = "".join(f"Sentence {i}\n" for i in range(n)).encode()
    for gz in (False, True):
        inp = text_pair(tmp_path, de, en, gz=gz)
        shards = plan_shards([inp], shard_rows=5)
        assert [s.rows for s in shards] == [5, 5, 5, 5, 3]
        assert bool(shards[1].offsets) is not gz  # plain files seek, gzip streams skip
        got = [r for s in shards for r in read_shard(s, 100)[0]]
        assert [r["src"] for r in got] == [f"Satz {i}" for i in range(n)]
        assert [r["line"] for r in got] == list(range(1, n + 1))
        assert len({r["id"] for r in got}) == n


def test_plain_file_paired_with_gzip(tmp_path):
    de = "".join(f"Satz {i}\n" for i in range(7)).encode()
    en = "".join(f"Sentence {i}\n" for i in range(7)).encode()
    (tmp_path / "a.de").write_bytes(de)
    (tmp_path / "a.en.gz").write_bytes(gzip.compress(en))
    inp = InputConfig(corpus="c", src_lang="de", src=str(tmp_path / "a.de"),
                      en=str(tmp_path / "a.en.gz"))
    shards = plan_shards([inp], shard_rows=3)
    rows = [r for s in shards for r in read_shard(s, 100)[0]]
    assert [(r["src"], r["ref"]) for r in rows] == [(f"Satz {i}", f"Sentence {i}")
                                                    for i in range(7)]


def test_tsv_jsonl_parquet(tmp_path):
    tsv = tmp_path / "a.tsv"
    tsv.write_text("Hallo\tHello\nnur ein Feld\nA\tB\tC\n")
    rows, rej = read_all([InputConfig(corpus="t", src_lang="de", format="tsv", path=str(tsv))],
                         100)
    assert [(r["src"], r["ref"]) for r in rows] == [("Hallo", "Hello")]
    assert [(r["reason"], r["detail"]) for r in rej] == [
        ("expected 2 tab-separated fields", "got 1"), ("expected 2 tab-separated fields", "got 3")]

    jl = tmp_path / "a.jsonl"
    jl.write_text(json.dumps({"de": "Hallo", "en": "Hello"}) + "\n{bad json\n[1]\n"
                  + json.dumps({"de": "x"}) + "\n" + json.dumps({"de": ["a"], "en": "b"}) + "\n")
    rows, rej = read_all([InputConfig(corpus="j", src_lang="de", format="jsonl", path=str(jl),
                                      src_field="de", en_field="en")], 100)
    assert [(r["src"], r["ref"]) for r in rows] == [("Hallo", "Hello")]
    assert [r["reason"] for r in rej] == [
        "invalid JSON", "JSON line is not an object", "JSON object lacks field(s) en",
        "JSON field(s) de not a string"]
    assert rej[0]["detail"] == "Expecting property name enclosed in double quotes at column 2"

    pqf = tmp_path / "a.parquet"
    pq.write_table(pa.table({"src": ["Hallo", None, "Baum"], "en": ["Hello", "x", "tree"]}), pqf)
    inp = InputConfig(corpus="p", src_lang="de", format="parquet", path=str(pqf))
    shards = plan_shards([inp], shard_rows=2)
    assert [s.rows for s in shards] == [2, 1]
    rows, rej = read_all([inp], 100)
    assert [r["src"] for r in rows] == ["Hallo", "Baum"]
    assert [r["reason"] for r in rej] == ["empty source sentence"]


def test_globs_and_missing_files(tmp_path):
    for k in range(3):
        (tmp_path / f"p{k}.tsv").write_text(f"a{k}\tb{k}\n")
    inp = InputConfig(corpus="g", src_lang="de", format="tsv", path=str(tmp_path / "p*.tsv"))
    shards = plan_shards([inp], shard_rows=10)
    assert [s.shard for s in shards] == [0, 1, 2]
    missing = InputConfig(corpus="m", src_lang="de", format="tsv", path=str(tmp_path / "q*.tsv"))
    with pytest.raises(BitextError, match=r"bitext.inputs\[1\] \(m\): no input file matches"):
        plan_shards([inp, missing], shard_rows=10)


def test_real_xnli_pairs(data_dir):
    base = data_dir / "bitext/xnli"
    inp = InputConfig(corpus="x", src_lang="de", format="xnli", src=str(base / "dev-de.tsv"),
                      en=str(base / "dev-en.tsv"))
    rows, rejects = read_all([inp], 1000)
    assert rejects == []
    # 2,490 lines: every hypothesis, and each premise once (premises repeat on 3 lines)
    hyps = [r for r in rows if r["id"].endswith(":h")]
    prems = [r for r in rows if r["id"].endswith(":p")]
    assert len(hyps) == 2490 and len(prems) == 830
    assert prems[0]["ref"] == "And he said, Mama, I'm home."


def test_html_unescape_of_tokenised_sample(data_dir):
    base = data_dir / "bitext/opennmt-toy-en-de"
    inp = InputConfig(corpus="o", src_lang="de", src=str(base / "tgt-train.txt"),
                      en=str(base / "src-train.txt"), html_unescape=True, limit=5)
    rows, _ = read_all([inp], 2000)
    assert "Parliament 's legislative" in rows[0]["ref"]
    assert "&apos;" not in rows[0]["ref"]


def test_lone_surrogates_nuls_and_utf16_are_named(tmp_path):
    """A JSON line with a lone surrogate and a side made of NUL bytes are rejects with their
    reason (the other rows still write as UTF-8); a UTF-16 file is refused by name."""
    jl = tmp_path / "a.jsonl"
    jl.write_text('{"de": "Hallo", "en": "Hello"}\n{"de": "kaputt \\ud800", "en": "broken"}\n'
                  '{"de": "Baum", "en": "tree"}\n')
    rows, rej = read_all([InputConfig(corpus="j", src_lang="de", format="jsonl", path=str(jl),
                                      src_field="de", en_field="en")], 100)
    assert [r["src"] for r in rows] == ["Hallo", "Baum"]
    assert [(r["line"], r["reason"], r["detail"]) for r in rej] == [
        (2, "JSON field de holds a lone surrogate: not text", "character 7")]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "out.parquet")  # writes as UTF-8

    inp = text_pair(tmp_path, b"Ein Hund.\n\x00\x00\x00\nGut.\n", b"A dog.\nnothing\nGood.\n")
    rows, rej = read_all([inp], 100)
    assert [r["src"] for r in rows] == ["Ein Hund.", "Gut."]
    assert [(r["reason"], r["detail"]) for r in rej] == [
        ("NUL bytes in source: binary data or UTF-16 text, not UTF-8", "byte 0")]

    utf16 = text_pair(tmp_path, "Ein Hund.\nGut.\n".encode("utf-16"), b"A dog.\nGood.\n")
    with pytest.raises(BitextError, match=r"x\.de: starts with a UTF-16 byte-order mark"):
        read_all([utf16], 100)
