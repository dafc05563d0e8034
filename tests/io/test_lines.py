"""Line reading with byte offsets, for plain and gzip files."""

from __future__ import annotations

import gzip

import pytest

from paralib.io.lines import count_lines, iter_lines


@pytest.mark.parametrize("data", [b"a\nbb\nccc\n", b"a\nbb\nccc", b"", b"\n\n", b"x\r\ny\r\nz"])
def test_counts_and_offsets_agree_with_sequential_reading(tmp_path, data):
    p = tmp_path / "f.txt"
    p.write_bytes(data)
    lines = list(iter_lines(str(p)))
    n, offsets = count_lines(str(p), every=2)
    assert n == len(lines) == len(data.splitlines())
    assert len(offsets) == (n + 1) // 2
    for k, off in enumerate(offsets):
        assert next(iter_lines(str(p), offset=off)) == lines[2 * k]
    g = tmp_path / "f.txt.gz"
    g.write_bytes(gzip.compress(data))
    assert count_lines(str(g), every=2) == (n, [])
    assert list(iter_lines(str(g))) == lines


def test_lines_longer_than_a_chunk(tmp_path, monkeypatch):
    import paralib.io.lines as mod

    monkeypatch.setattr(mod, "CHUNK", 7)
    p = tmp_path / "f.txt"
    p.write_bytes(b"0123456789abcdef\nshort\n\nlast line here")
    n, offsets = count_lines(str(p), every=1)
    assert n == 4
    assert [next(iter_lines(str(p), offset=o)) for o in offsets] == [
        b"0123456789abcdef", b"short", b"", b"last line here"]


def test_real_multi30k_counts(m30k):
    assert count_lines(m30k["val_de"])[0] == 1014
