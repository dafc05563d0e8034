"""A reject whose bytes could not be decoded keeps those bytes (escaped,
losslessly) in the rejects output, and every reject is one complete record: its id, corpus,
language, source line, reason and raw input, in one row of one file."""

from __future__ import annotations

import json

import pytest

from paralib.config import InputConfig, load_config
from paralib.decontaminate import stage
from paralib.io.bitext import plan_shards, read_shard
from paralib.io.context import StageContext
from paralib.io.lines import escape_bytes, unescape_bytes
from paralib.io.shards import read_output

SRC = [b"Ein Hund rennt \xfcber die Wiese.", b"Eine Katze schl\xc3\xa4ft \\ hier.",
       b"Zwei Kinder spielen im Park.", b"Ein Mann f\xe4hrt Fahrrad.\x00\x01"]
EN = [b"A dog runs across the meadow.", b"A cat sleeps here.", b"Two children play in the park.",
      b"A man rides a bike."]


def test_escape_is_lossless_and_readable():
    for raw in [*SRC, b"\\x41 is not A", b"", b"\x00\xff\\\xfe", "é ü".encode()]:
        assert unescape_bytes(escape_bytes(raw)) == raw
    assert escape_bytes(b"f\xe4hrt \\ ok") == "f\\xe4hrt \\\\ ok"
    assert escape_bytes("schläft".encode()) == "schläft"  # valid UTF-8 stays as it is


def _files(tmp_path, src: list[bytes], en: list[bytes]) -> tuple[str, str]:
    (tmp_path / "in.de").write_bytes(b"\n".join(src) + b"\n")
    (tmp_path / "in.en").write_bytes(b"\n".join(en) + b"\n")
    return str(tmp_path / "in.de"), str(tmp_path / "in.en")


def test_undecodable_lines_keep_their_bytes(tmp_path):
    de, en = _files(tmp_path, SRC, EN)
    (tmp_path / "in.jsonl").write_bytes(
        b'{"src": "Hallo", "en": "Hello there."}\n{"src": "Gr\xfc\xdfe", "en": "Hi."}\n')
    shards = plan_shards([InputConfig(corpus="c", src_lang="de", src=de, en=en),
                          InputConfig(corpus="j", src_lang="de", format="jsonl",
                                      path=str(tmp_path / "in.jsonl"))], 100)
    rejects = {r["id"]: r for s in shards for r in read_shard(s, 1000)[1]}
    assert set(rejects) == {"c:00000:1", "c:00000:4", "j:00000:2"}
    for rid, (line, want) in {"c:00000:1": (1, SRC[0] + b"\t" + EN[0]),
                              "c:00000:4": (4, SRC[3] + b"\t" + EN[3]),
                              "j:00000:2": (2, b'{"src": "Gr\xfc\xdfe", "en": "Hi."}')
                              }.items():
        rec = rejects[rid]
        assert rec["line"] == line and rec["reason"] and rec["corpus"] in ("c", "j")
        assert unescape_bytes(rec["raw"]) == want, rec


@pytest.mark.slow
def test_stage_rejects_are_complete_records(ray_session, m30k, tmp_path):
    """Through a whole stage: undecodable lines keep their bytes in ``rejects/``, and a
    duplicate pair moved to the rejects names its own source line."""
    src = SRC + [b"Zwei Kinder spielen im Park."]  # line 5 repeats line 3
    en = EN + [b"Two children play in the park."]
    de, en_path = _files(tmp_path, src, en)
    out = tmp_path / "dc"
    cfg = load_config(None, [f"decontaminate.output={out}", "bitext.checks.untranslated=false",
                             f"bitext.inputs=[{{corpus: c, src_lang: de, src: '{de}', "
                             f"en: '{en_path}'}}]"])
    report = stage.run(cfg.decontaminate, StageContext.of(cfg, progress=False))
    rejects = read_output(str(out), "rejects").to_pandas().set_index("id")
    assert report.rows_rejected == len(rejects) == 3
    assert unescape_bytes(rejects.loc["c:00000:1", "raw"]) == SRC[0] + b"\t" + EN[0]
    assert unescape_bytes(rejects.loc["c:00000:4", "raw"]) == SRC[3] + b"\t" + EN[3]
    dup = rejects.loc["c:00000:5"]
    assert (dup["reason"], dup["line"]) == ("duplicate pair", 5)
    assert dup["raw"] == "Zwei Kinder spielen im Park.\tTwo children play in the park."
    assert (rejects["corpus"] == "c").all() and (rejects["src_lang"] == "de").all()
    summary = json.loads((out / "_summary.json").read_text())
    assert sum(summary["reasons"].values()) == len(rejects)


@pytest.mark.slow
def test_summaries_count_rejects_by_kind_and_each_keeps_its_detail(ray_session, tmp_path):
    """Undecodable bytes at three byte offsets and three lines too long by different lengths,
    across two shards: ``_summary.json`` and the shards' markers count two kinds of reject,
    and each reject's own ``detail`` says where (offset) or how long."""
    src = [b"\xffEin Hund.", b"Ein \xffHund.", b"Ein Hund \xff.",
           b"Lang " * 13, b"Lang " * 14, b"Lang " * 15, b"Gut."]
    en = [b"A dog."] * 3 + [b"Long."] * 3 + [b"Good."]
    de, en_path = _files(tmp_path, src, en)
    out = tmp_path / "dc"
    cfg = load_config(None, [f"decontaminate.output={out}", "bitext.checks.untranslated=false",
                             "bitext.max_chars=60", "bitext.shard_rows=4",
                             f"bitext.inputs=[{{corpus: c, src_lang: de, src: '{de}', "
                             f"en: '{en_path}'}}]"])
    report = stage.run(cfg.decontaminate, StageContext.of(cfg, progress=False))
    kinds = {"undecodable bytes in source": 3, "source longer than 60 characters": 3}
    assert report.reasons == kinds
    assert json.loads((out / "_summary.json").read_text())["reasons"] == kinds
    rejects = read_output(str(out), "rejects").to_pandas().set_index("id")
    assert list(rejects.columns) == ["corpus", "src_lang", "line", "reason", "detail", "raw"]
    assert rejects["detail"].to_dict() == {
        "c:00000:1": "utf-8: invalid start byte at byte 0",
        "c:00000:2": "utf-8: invalid start byte at byte 4",
        "c:00000:3": "utf-8: invalid start byte at byte 9",
        "c:00000:4": "64 characters", "c:00001:5": "69 characters",
        "c:00001:6": "74 characters"}
