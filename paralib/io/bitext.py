"""Bitext readers: plan shards of any input, then read one shard into rows or rejects.

Every input line gets a stable id ``corpus:shard:line`` (line numbers count from 1 in the
source file) and ends up either as a row or as a reject with a reason: undecodable bytes,
an empty side, a line over ``max_chars``, a malformed TSV/JSON line. Line-aligned file pairs
of different lengths are an error before any work starts, giving both counts.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import pyarrow.parquet as pq

from paralib.config import InputConfig
from paralib.io.fs import S3Options, expand_glob, resolve
from paralib.io.lines import count_lines, iter_lines


class BitextError(ValueError):
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

    @property
    def key(self) -> str:
        """Stable name of the shard, used for output files and completion markers."""
        return f"{self.corpus}-{self.shard:05d}"

    @property
    def rows(self) -> int:
        """Number of input rows in the shard."""
        return self.stop - self.start

    def to_dict(self) -> dict:
        """Plain-dict form (for Ray Data items)."""
        return asdict(self)


def _count(path: str, s3: S3Options | None, fmt: str, every: int) -> tuple[int, list[int]]:
    if fmt == "parquet":
        fs, inner = resolve(path, s3)
        with fs.open_input_file(inner) as f:
            return pq.ParquetFile(f).metadata.num_rows, []
    return count_lines(path, s3, every=every)


def plan_shards(
    inputs: list[InputConfig], shard_rows: int, s3: S3Options | None = None
) -> list[ShardSpec]:
    """Expand globs, count rows and split every input into shards of ``shard_rows`` rows.

    Raises :class:`BitextError` for a missing input (naming the config key and the path) and
    for line-aligned files with different line counts (giving both counts).
    """
    shards: list[ShardSpec] = []
    for i, inp in enumerate(inputs):
        shard_no = 0
        try:
            if inp.format in ("text", "xnli"):
                srcs, ens = expand_glob(inp.src, s3), expand_glob(inp.en, s3)
                if len(srcs) != len(ens):
                    raise BitextError(
                        f"bitext.inputs[{i}] ({inp.corpus}): {len(srcs)} source files match "
                        f"'{inp.src}' but {len(ens)} English files match '{inp.en}'"
                    )
                groups = [(s, e) for s, e in zip(srcs, ens, strict=True)]
            else:
                groups = [(p,) for p in expand_glob(inp.path, s3)]
        except FileNotFoundError as exc:
            raise BitextError(f"bitext.inputs[{i}] ({inp.corpus}): {exc}") from None
        for files in groups:
            n, offsets = _count(files[0], s3, inp.format, shard_rows)
            if len(files) == 2:
                n2, offsets2 = _count(files[1], s3, inp.format, shard_rows)
                if n != n2:
                    raise BitextError(
                        f"bitext.inputs[{i}] ({inp.corpus}): files have different line counts: "
                        f"{files[0]} has {n} lines, {files[1]} has {n2}"
                    )
                both = offsets and offsets2  # a gzip side has none: both sides then skip
                offsets = list(zip(offsets, offsets2, strict=True)) if both else []
            if inp.limit is not None:
                n = min(n, inp.limit)
            for k, start in enumerate(range(0, n, shard_rows)):
                off: tuple = ()
                if offsets:
                    o = offsets[k]
                    off = tuple(o) if isinstance(o, tuple) else (o,)
                shards.append(
                    ShardSpec(
                        corpus=inp.corpus,
                        src_lang=inp.src_lang,
                        format=inp.format,
                        files=tuple(files),
                        shard=shard_no,
                        start=start,
                        stop=min(start + shard_rows, n),
                        offsets=off,
                        src_field=inp.src_field,
                        en_field=inp.en_field,
                        html_unescape=inp.html_unescape,
                    )
                )
                shard_no += 1
    return shards


def _lines(spec: ShardSpec, path: str, offset_idx: int, s3: S3Options | None) -> Iterator[bytes]:
    """Lines ``[start, stop)`` of one file of the shard, seeking when an offset is known."""
    if spec.offsets:
        it = iter_lines(path, s3, offset=spec.offsets[offset_idx])
        skip = 0
    else:
        it = iter_lines(path, s3)
        skip = spec.start
    for j, line in enumerate(it):
        if j < skip:
            continue
        if j - skip >= spec.rows:
            break
        yield line


def _decode(raw: bytes, what: str, first: bool) -> str:
    if first and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Reject(f"undecodable bytes in {what} (utf-8, byte {exc.start})") from None


class _Reject(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _raw_pairs(spec: ShardSpec, s3: S3Options | None) -> Iterator[tuple[int, object]]:
    """Yield ``(line_number, payload)`` where payload is ``(src, en)`` text or a ``_Reject``."""
    fmt = spec.format
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
            except _Reject as rej:
                yield lineno, rej
                continue
            if fmt == "xnli":
                fa, fb = sa.split("\t"), sb.split("\t")
                if len(fa) < 2 or len(fb) < 2:
                    yield lineno, _Reject("xnli line without premise and hypothesis columns")
                    continue
                yield lineno, ((fa[0], fa[1]), (fb[0], fb[1]))
            else:
                yield lineno, (sa, sb)
        return
    for j, raw in enumerate(_lines(spec, spec.files[0], 0, s3)):
        lineno = spec.start + j + 1
        try:
            text = _decode(raw, "line", lineno == 1)
        except _Reject as rej:
            yield lineno, rej
            continue
        if fmt == "lines":
            yield lineno, (text, text)
        elif fmt == "tsv":
            fields = text.split("\t")
            if len(fields) != 2:
                yield lineno, _Reject(f"expected 2 tab-separated fields, got {len(fields)}")
                continue
            yield lineno, (fields[0], fields[1])
        else:  # jsonl
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                yield lineno, _Reject(f"invalid JSON: {exc.msg} at column {exc.colno}")
                continue
            if not isinstance(obj, dict):
                yield lineno, _Reject("JSON line is not an object")
                continue
            missing = [k for k in (spec.src_field, spec.en_field) if k not in obj]
            if missing:
                yield lineno, _Reject(f"JSON object lacks field(s) {', '.join(missing)}")
                continue
            wrong = [k for k in (spec.src_field, spec.en_field)
                     if not isinstance(obj[k], str) and obj[k] is not None]
            if wrong:
                yield lineno, _Reject(f"JSON field(s) {', '.join(wrong)} not a string")
                continue
            yield lineno, (obj[spec.src_field] or "", obj[spec.en_field] or "")


def _check(src: str, ref: str, max_chars: int) -> str | None:
    if not src.strip():
        return "empty source sentence"
    if not ref.strip():
        return "empty English sentence"
    if len(src) > max_chars:
        return f"source longer than {max_chars} characters ({len(src)})"
    if len(ref) > max_chars:
        return f"English longer than {max_chars} characters ({len(ref)})"
    return None


def read_shard(
    spec: ShardSpec, max_chars: int, s3: S3Options | None = None
) -> tuple[list[dict], list[dict]]:
    """Read one shard: returns ``(rows, rejects)``; every input line lands in exactly one.

    XNLI lines hold two pairs (premise, hypothesis); a premise repeated on the lines after
    its first is not emitted again, so each distinct sentence pair appears once.
    """
    rows: list[dict] = []
    rejects: list[dict] = []
    seen_premise: str | None = None

    def base(lineno: int, sub: str = "") -> dict:
        return {
            "id": f"{spec.corpus}:{spec.shard:05d}:{lineno}{sub}",
            "corpus": spec.corpus,
            "shard": spec.shard,
            "line": lineno,
            "src_lang": spec.src_lang,
        }

    def clean(text: str) -> str:
        text = text.strip()
        return html.unescape(text) if spec.html_unescape else text

    for lineno, payload in _raw_pairs(spec, s3):
        if isinstance(payload, _Reject):
            rejects.append({**base(lineno), "reason": payload.reason, "raw": ""})
            continue
        if spec.format == "xnli":
            (pa, ha), (pb, hb) = payload
            pairs = [] if pa == seen_premise else [("p", pa, pb)]
            seen_premise = pa
            pairs.append(("h", ha, hb))
        else:
            pairs = [("", payload[0], payload[1])]
        for sub, s, e in pairs:
            s, e = clean(s), clean(e)
            reason = _check(s, e, max_chars)
            tag = f":{sub}" if sub else ""
            if reason:
                raw = f"{s[:200]}\t{e[:200]}"
                rejects.append({**base(lineno, tag), "reason": reason, "raw": raw})
            else:
                rows.append({**base(lineno, tag), "src": s, "ref": e})
    return rows, rejects


def read_all(
    inputs: list[InputConfig], max_chars: int, s3: S3Options | None = None
) -> tuple[list[dict], list[dict]]:
    """Read every input whole (for small corpora, e.g. MT training); returns rows and rejects."""
    rows: list[dict] = []
    rejects: list[dict] = []
    for spec in plan_shards(inputs, shard_rows=1 << 30, s3=s3):
        r, j = read_shard(spec, max_chars, s3)
        rows += r
        rejects += j
    return rows, rejects
