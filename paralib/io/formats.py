"""Decoding the lines of one bitext shard, format by format (text, TSV, JSON lines,
Parquet, XNLI, lines, Bible verses) into raw pairs or :class:`Reject` s with their reason.

:mod:`paralib.io.bitext` plans the shards and turns these raw pairs into rows and rejects;
it is the public face of both (its ``__all__``).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import pyarrow.parquet as pq

from paralib.errors import InputError
from paralib.io.config import input_name
from paralib.io.fs import S3Options, resolve
from paralib.io.lines import escape_bytes, iter_lines

UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


class BitextError(InputError, ValueError):
    """An input that cannot be read at all (missing file, misaligned pair of files)."""


@dataclass(frozen=True)
class ShardSpec:
    """A contiguous range of rows ``[start, stop)`` of one input file (or file pair)."""

    corpus: str
    src_lang: str
    format: str
    files: tuple[str, ...]
    shard: int
    start: int
    stop: int
    offsets: tuple[int, ...] = ()
    src_field: str = "src"
    en_field: str = "en"
    html_unescape: bool = False
    set: str | None = None
    content: str = ""
    line_group: str | None = None
    strip_arabic_marks: bool = False

    @property
    def name(self) -> str:
        """The input's name (:func:`paralib.config.input_name`)."""
        return input_name(self.corpus, self.src_lang, self.set)

    @property
    def key(self) -> str:
        """Stable name of the shard, used for output files and completion markers."""
        return f"{self.name}-{self.shard:05d}"

    @property
    def rows(self) -> int:
        """Number of input rows in the shard."""
        return self.stop - self.start

    @classmethod
    def from_dict(cls, item: dict) -> ShardSpec:
        """The spec of :meth:`to_dict`'s dict, also of a row of a Ray Data batch (where the
        tuples come back as arrays)."""
        item = dict(item)
        item["files"] = tuple(item["files"])
        item["offsets"] = tuple(item["offsets"]) if item["offsets"] is not None else ()
        # left out of :meth:`to_dict` when unset, so missing (None, NaN) in a mixed Ray batch
        group = item.get("line_group")
        item["line_group"] = group if isinstance(group, str) else None
        item["strip_arabic_marks"] = bool(item.get("strip_arabic_marks") == True)  # noqa: E712
        return cls(**item)

    def to_dict(self) -> dict:
        """Plain-dict form (for Ray Data items, and what a stage fingerprints); ``set``,
        ``line_group`` and ``strip_arabic_marks`` only where set. ``content`` is the
        fingerprint of the files' bytes (:func:`paralib.io.fs.content_print`), so a file
        replaced under the same name changes the shard's fingerprint."""
        d = asdict(self)
        for key, unset in (("set", None), ("line_group", None), ("strip_arabic_marks", False)):
            if d[key] == unset:  # unset keys stay out: fingerprints made before them hold
                del d[key]
        return d


def _verses(path: str, s3: S3Options | None) -> dict[str, bytes]:
    """``book chapter:verse`` → raw text of a Bible version file (``book TAB chapter TAB
    verse TAB text``), in file order; a malformed line is kept under a ``?line N`` key so that
    the reader rejects it with its reason."""
    fs, inner = resolve(path, s3)
    with fs.open_input_file(inner) as f:
        data = f.read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    out: dict[str, bytes] = {}
    for n, line in enumerate(data.splitlines(), 1):
        fields = line.split(b"\t", 3)
        if len(fields) != 4:
            out[f"?line {n}"] = line
        else:
            key = b"%s %s:%s" % (fields[0], fields[1], fields[2])
            out[key.decode("utf-8", errors="replace")] = fields[3]
    return out


def verse_pairs(files: tuple[str, ...], s3: S3Options | None = None
                ) -> tuple[dict[str, bytes], dict[str, bytes], list[str]]:
    """Two Bible versions (:func:`_verses`) and their joined verse keys: the first's in its
    order, then the keys only in the second. A key's position is its row number."""
    a, b = _verses(files[0], s3), _verses(files[1], s3)
    return a, b, list(a) + [k for k in b if k not in a]


def refuse_utf16(path: str, first_line: bytes) -> None:
    """A file that starts with a UTF-16 byte-order mark is refused as a whole."""
    if first_line.startswith(UTF16_BOMS):
        raise BitextError(f"{path}: starts with a UTF-16 byte-order mark: paralib reads UTF-8 "
                          "text (convert it, e.g. iconv -f UTF-16 -t UTF-8)")


def _lines(spec: ShardSpec, path: str, offset_idx: int, s3: S3Options | None) -> Iterator[bytes]:
    """Lines ``[start, stop)`` of one file of the shard, seeking when an offset is known."""
    offset = spec.offsets[offset_idx] if spec.offsets else 0
    skip = 0 if spec.offsets else spec.start
    for j, line in enumerate(iter_lines(path, s3, offset=offset)):
        if j == 0 and offset == 0:
            refuse_utf16(path, line)
        if j < skip:
            continue
        if j - skip >= spec.rows:
            break
        yield line


def _decode(raw: bytes, what: str, first: bool) -> str:
    if first and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise Reject(f"NUL bytes in {what}: binary data or UTF-16 text, not UTF-8",
                      detail=f"byte {nul}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Reject(f"undecodable bytes in {what}",
                      detail=f"utf-8: {exc.reason} at byte {exc.start}") from None


def _unencodable(fields: dict[str, str]) -> Reject | None:
    """The first field holding a lone surrogate (a JSON ``\\ud800`` escape): text that
    cannot be written as UTF-8."""
    for name, text in fields.items():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return Reject(f"JSON field {name} holds a lone surrogate: not text",
                           detail=f"character {exc.start}")
    return None


class Reject(Exception):
    """A line that is no pair: ``reason`` is its kind (a stable text that summaries count),
    ``detail`` what is particular to this line (a byte offset, a parser's message), ``raw``
    its bytes or texts."""

    def __init__(self, reason: str, raw: str = "", detail: str = ""):
        super().__init__(reason)
        self.reason, self.raw, self.detail = reason, raw, detail


def raw_pairs(spec: ShardSpec, s3: S3Options | None) -> Iterator[tuple[int, object]]:
    """Yield ``(line_number, payload)`` where payload is ``(src, en)`` text or a ``Reject``."""
    fmt = spec.format
    if fmt == "bible":
        yield from _bible_pairs(spec, s3)
        return
    if fmt == "parquet":
        fs, inner = resolve(spec.files[0], s3)
        with fs.open_input_file(inner) as f:
            table = pq.read_table(f, columns=[spec.src_field, spec.en_field])
        table = table.slice(spec.start, spec.rows)
        srcs = table.column(spec.src_field).to_pylist()
        ens = table.column(spec.en_field).to_pylist()
        for j, (s, e) in enumerate(zip(srcs, ens, strict=True)):
            yield spec.start + j + 1, ("" if s is None else str(s), "" if e is None else str(e))
        return
    if fmt in ("text", "xnli"):
        a = _lines(spec, spec.files[0], 0, s3)
        b = _lines(spec, spec.files[1], 1, s3)
        for j, (ra, rb) in enumerate(zip(a, b, strict=True)):
            lineno = spec.start + j + 1
            try:
                sa = _decode(ra, "source", lineno == 1)
                sb = _decode(rb, "English", lineno == 1)
            except Reject as rej:  # the reject keeps both sides' bytes, escaped
                rej.raw = f"{escape_bytes(ra)}\t{escape_bytes(rb)}"
                yield lineno, rej
                continue
            if fmt == "xnli":
                fa, fb = sa.split("\t"), sb.split("\t")
                if len(fa) < 2 or len(fb) < 2:
                    yield lineno, Reject("xnli line without premise and hypothesis columns")
                    continue
                yield lineno, ((fa[0], fa[1]), (fb[0], fb[1]))
            else:
                yield lineno, (sa, sb)
        return
    for j, raw in enumerate(_lines(spec, spec.files[0], 0, s3)):
        lineno = spec.start + j + 1
        try:
            text = _decode(raw, "line", lineno == 1)
        except Reject as rej:  # the reject keeps the line's bytes, escaped
            rej.raw = escape_bytes(raw)
            yield lineno, rej
            continue
        if fmt == "lines":
            yield lineno, (text, text)
        elif fmt == "tsv":
            fields = text.split("\t")
            if len(fields) != 2:
                yield lineno, Reject("expected 2 tab-separated fields",
                                      detail=f"got {len(fields)}")
                continue
            yield lineno, (fields[0], fields[1])
        else:  # jsonl
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                yield lineno, Reject("invalid JSON",
                                      detail=f"{exc.msg} at column {exc.colno}")
                continue
            if not isinstance(obj, dict):
                yield lineno, Reject("JSON line is not an object")
                continue
            missing = [k for k in (spec.src_field, spec.en_field) if k not in obj]
            if missing:
                yield lineno, Reject(f"JSON object lacks field(s) {', '.join(missing)}")
                continue
            wrong = [k for k in (spec.src_field, spec.en_field)
                     if not isinstance(obj[k], str) and obj[k] is not None]
            if wrong:
                yield lineno, Reject(f"JSON field(s) {', '.join(wrong)} not a string")
                continue
            pair = (obj[spec.src_field] or "", obj[spec.en_field] or "")
            bad = _unencodable({spec.src_field: pair[0], spec.en_field: pair[1]})
            if bad:
                yield lineno, bad
                continue
            yield lineno, pair


def shard_texts(spec: ShardSpec, s3: S3Options | None = None
                ) -> Iterator[tuple[int, str | None, str, str]]:
    """``(line number, text, reason, detail)`` of every line of a one-file shard: the
    decoded line with an empty reason, or ``None``, why it cannot be read (undecodable bytes,
    NUL bytes) and where. The monolingual reader of ``paralib encode``; ``spec.format`` is
    ``lines``."""
    for lineno, payload in raw_pairs(spec, s3):
        if isinstance(payload, Reject):
            yield lineno, None, payload.reason, payload.detail
        else:
            yield lineno, payload[0], "", ""


def _bible_pairs(spec: ShardSpec, s3: S3Options | None) -> Iterator[tuple[int, object]]:
    """Verse pairs of two versions, joined by key; a verse missing from one is a reject."""
    a, b, keys = verse_pairs(spec.files, s3)
    names = [f.rsplit("/", 1)[-1].split(".")[0] for f in spec.files]
    for j, key in enumerate(keys[spec.start:spec.stop]):
        lineno = spec.start + j + 1
        if key.startswith("?line"):
            yield lineno, Reject("malformed verse line: expected book, chapter, verse and "
                                  "text", detail=f"{key[1:]} of {names[0]}")
            continue
        if key not in a or key not in b:
            gone = names[0] if key not in a else names[1]
            text = (a.get(key) or b.get(key, b"")).decode("utf-8", errors="replace")
            yield lineno, Reject(f"verse missing in {gone}", f"{key}\t{text[:200]}")
            continue
        try:
            sa = _decode(a[key], names[0], False)
            sb = _decode(b[key], names[1], False)
        except Reject as rej:  # the reject keeps both verses' bytes, escaped
            rej.raw = f"{key}\t{escape_bytes(a[key])}\t{escape_bytes(b[key])}"
            yield lineno, rej
            continue
        yield lineno, (sa, sb, f"bible:{key}")
