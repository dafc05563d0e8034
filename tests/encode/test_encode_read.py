"""The bulk shard reader of ``paralib encode`` gives exactly what the line-by-line reader of
the bitext machinery gives: the same ids, texts and rejects (with their reasons), for plain
and gzip files, CRLF line ends, a missing last newline, byte-order marks, bad bytes and a
file that shrank after planning."""

from __future__ import annotations

import gzip

import pytest

from paralib.encode.config import TextInput
from paralib.encode.read import bulk_lines, plan_text_shards, read_text_shard, split_rows
from paralib.io.bitext import BitextError, shard_texts

MAX_CHARS = 40
CLEAN = [f"sentence number {i} , with\tsome words" for i in range(23)]
MESSY = [b"  leading and trailing  ", b"crlf line\r", b"", b"\xe3\x80\x80",  # U+3000 only
         b"x" * 41, "caf\u00e9 \u4e2d\u6587".encode(), b"tab\t", b"\r", b"last"]


def _line_by_line(spec, max_chars=MAX_CHARS):
    """The reference: every line through :func:`shard_texts`, then the same row split."""
    return split_rows(spec, f"{spec.name}:{spec.shard:05d}:", shard_texts(spec), max_chars)


def _write(path, lines: list[bytes], end: bytes = b"\n") -> None:
    data = b"\n".join(lines) + end
    if path.suffix == ".gz":
        with gzip.open(path, "wb") as f:
            f.write(data)
    else:
        path.write_bytes(data)


def _shards(path, rows=4):
    return plan_text_shards([TextInput(path=str(path))], rows)


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz"])
@pytest.mark.parametrize("end", [b"\n", b"", b"\r\n"])
def test_bulk_reader_matches_line_reader(tmp_path, suffix, end):
    path = tmp_path / f"text{suffix}"
    _write(path, [s.encode() for s in CLEAN] + MESSY, end)
    shards = _shards(path)
    assert len(shards) == 8
    for spec in shards:
        assert bulk_lines(spec) is not None  # the bulk path is the one under test
        assert read_text_shard(spec, MAX_CHARS) == _line_by_line(spec)
    ids = [i for spec in shards for i in read_text_shard(spec, MAX_CHARS)[0]]
    rejected = [(r["reason"], r["detail"]) for spec in shards
                for r in read_text_shard(spec, MAX_CHARS)[2]]
    assert ids[0] == "text:00000:1" and ids[22] == "text:00005:23"
    assert sorted(rejected) == [("empty line", "")] * 3 + [
        ("line longer than 40 characters", "41 characters")]


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz"])
def test_bad_bytes_and_marks_fall_back_to_the_line_reader(tmp_path, suffix):
    lines = [s.encode() for s in CLEAN[:10]]
    lines[5] = b"bad \xc3\x28 bytes"
    lines[9] = b"NUL\x00here"
    path = tmp_path / f"bad{suffix}"
    _write(path, [b"\xef\xbb\xbf" + lines[0], *lines[1:]])
    shards = _shards(path)
    assert [bulk_lines(s) is None for s in shards] == [True, True, True]  # BOM, bad, NUL
    got = [read_text_shard(s, MAX_CHARS) for s in shards]
    assert got == [_line_by_line(s) for s in shards]
    assert got[0][1][0] == CLEAN[0]  # the byte-order mark is not text
    reasons = [r["reason"] for _, _, rej in got for r in rej]
    assert reasons[0].startswith("undecodable bytes") and reasons[1].startswith("NUL bytes")

    utf16 = tmp_path / f"utf16{suffix}"
    _write(utf16, [b"\xff\xfeh\x00i\x00"])
    with pytest.raises(BitextError, match="UTF-16"):
        read_text_shard(_shards(utf16)[0], MAX_CHARS)


def test_a_file_that_shrank_after_planning_gives_fewer_lines(tmp_path):
    path = tmp_path / "shrinks.txt"
    _write(path, [s.encode() for s in CLEAN])
    shards = _shards(path, rows=10)
    _write(path, [s.encode() for s in CLEAN[:15]])
    got = [read_text_shard(s, MAX_CHARS) for s in shards]
    assert got == [_line_by_line(s) for s in shards]
    assert [len(ids) for ids, _, _ in got] == [10, 5, 0]
