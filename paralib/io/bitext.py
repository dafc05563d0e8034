"""Bitext readers: plan shards of any input, then read one shard into rows or rejects.

Every input line gets a stable id ``corpus:shard:line`` (``corpus.lang.set:shard:line`` for
inputs that name a set; line numbers count from 1 in the source file) and ends up either as a
row or as a reject with a reason: undecodable bytes, an empty side, a line over ``max_chars``,
a malformed TSV/JSON line, an untranslated or wrong-script side (:mod:`paralib.io.quality`).
Line-aligned file pairs of different lengths are an error before any work starts, giving both
counts. Rows carry ``set`` and ``group``: pairs whose English sides have the same normal form
share a group, as do the versions of one Bible verse (issue "Bitext at scale", item 3).
"""

from __future__ import annotations

import gzip
import html
import json
import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from paralib.decontaminate.normalise import hash_strings, normal_form
from paralib.errors import InputError
from paralib.io.config import BitextChecks, InputConfig, input_name
from paralib.io.fs import S3Options, content_print, expand_glob, resolve
from paralib.io.lines import count_lines, escape_bytes, iter_lines
from paralib.io.quality import pair_problem

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
        return cls(**item)

    def to_dict(self) -> dict:
        """Plain-dict form (for Ray Data items, and what a stage fingerprints); ``set`` only
        where one is named. ``content`` is the fingerprint of the files' bytes
        (:func:`paralib.io.fs.content_print`), so a file replaced under the same name
        changes the shard's fingerprint."""
        d = asdict(self)
        if d["set"] is None:
            del d["set"]
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


def _refuse_utf16(path: str, first_line: bytes) -> None:
    """A file that starts with a UTF-16 byte-order mark is refused as a whole."""
    if first_line.startswith(UTF16_BOMS):
        raise BitextError(f"{path}: starts with a UTF-16 byte-order mark: paralib reads UTF-8 "
                          "text (convert it, e.g. iconv -f UTF-16 -t UTF-8)")


def _count(path: str, s3: S3Options | None, fmt: str, every: int) -> tuple[int, list[int]]:
    if fmt == "parquet":
        fs, inner = resolve(path, s3)
        with fs.open_input_file(inner) as f:
            return pq.ParquetFile(f).metadata.num_rows, []
    _refuse_utf16(path, next(iter(iter_lines(path, s3)), b""))
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
            if inp.format in ("text", "xnli", "bible"):
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
            if inp.format == "bible":
                n, offsets = len(verse_pairs(files, s3)[2]), []
            else:
                n, offsets = _count(files[0], s3, inp.format, shard_rows)
            if len(files) == 2 and inp.format != "bible":
                n2, offsets2 = _count(files[1], s3, inp.format, shard_rows)
                if n != n2:
                    raise BitextError(
                        f"bitext.inputs[{i}] ({inp.corpus}): files have different line counts: "
                        f"{files[0]} has {n} lines, {files[1]} has {n2}"
                    )
                both = offsets and offsets2  # a gzip side has none: both sides then skip
                offsets = list(zip(offsets, offsets2, strict=True)) if both else []
            content = "+".join(content_print(f, s3) for f in files)
            if inp.fraction is not None:
                n = math.ceil(n * inp.fraction)
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
                        set=inp.set,
                        content=content,
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
    at_start = not spec.offsets or spec.offsets[offset_idx] == 0
    for j, line in enumerate(it):
        if j == 0 and at_start:
            _refuse_utf16(path, line)
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
        raise _Reject(f"NUL bytes in {what}: binary data or UTF-16 text, not UTF-8",
                      detail=f"byte {nul}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Reject(f"undecodable bytes in {what}",
                      detail=f"utf-8: {exc.reason} at byte {exc.start}") from None


def _unencodable(fields: dict[str, str]) -> _Reject | None:
    """The first field holding a lone surrogate (a JSON ``\\ud800`` escape): text that
    cannot be written as UTF-8."""
    for name, text in fields.items():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return _Reject(f"JSON field {name} holds a lone surrogate: not text",
                           detail=f"character {exc.start}")
    return None


class _Reject(Exception):
    """A line that is no pair: ``reason`` is its kind (a stable text that summaries count),
    ``detail`` what is particular to this line (a byte offset, a parser's message), ``raw``
    its bytes or texts."""

    def __init__(self, reason: str, raw: str = "", detail: str = ""):
        super().__init__(reason)
        self.reason, self.raw, self.detail = reason, raw, detail


def _raw_pairs(spec: ShardSpec, s3: S3Options | None) -> Iterator[tuple[int, object]]:
    """Yield ``(line_number, payload)`` where payload is ``(src, en)`` text or a ``_Reject``."""
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
            except _Reject as rej:  # the reject keeps both sides' bytes, escaped
                rej.raw = f"{escape_bytes(ra)}\t{escape_bytes(rb)}"
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
        except _Reject as rej:  # the reject keeps the line's bytes, escaped
            rej.raw = escape_bytes(raw)
            yield lineno, rej
            continue
        if fmt == "lines":
            yield lineno, (text, text)
        elif fmt == "tsv":
            fields = text.split("\t")
            if len(fields) != 2:
                yield lineno, _Reject("expected 2 tab-separated fields",
                                      detail=f"got {len(fields)}")
                continue
            yield lineno, (fields[0], fields[1])
        else:  # jsonl
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                yield lineno, _Reject("invalid JSON",
                                      detail=f"{exc.msg} at column {exc.colno}")
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
    for lineno, payload in _raw_pairs(spec, s3):
        if isinstance(payload, _Reject):
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
            yield lineno, _Reject("malformed verse line: expected book, chapter, verse and "
                                  "text", detail=f"{key[1:]} of {names[0]}")
            continue
        if key not in a or key not in b:
            gone = names[0] if key not in a else names[1]
            text = (a.get(key) or b.get(key, b"")).decode("utf-8", errors="replace")
            yield lineno, _Reject(f"verse missing in {gone}", f"{key}\t{text[:200]}")
            continue
        try:
            sa = _decode(a[key], names[0], False)
            sb = _decode(b[key], names[1], False)
        except _Reject as rej:  # the reject keeps both verses' bytes, escaped
            rej.raw = f"{key}\t{escape_bytes(a[key])}\t{escape_bytes(b[key])}"
            yield lineno, rej
            continue
        yield lineno, (sa, sb, f"bible:{key}")


def _check(src: str, ref: str, max_chars: int) -> tuple[str, str] | None:
    """``(reason, detail)`` of a pair that is empty or too long, else ``None``."""
    if not src.strip():
        return "empty source sentence", ""
    if not ref.strip():
        return "empty English sentence", ""
    if len(src) > max_chars:
        return f"source longer than {max_chars} characters", f"{len(src)} characters"
    if len(ref) > max_chars:
        return f"English longer than {max_chars} characters", f"{len(ref)} characters"
    return None


def shard_inputs(shards: list[ShardSpec]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """``{shard key: (content fingerprint, files)}`` of planned shards, for a stage's
    :func:`paralib.io.stage.pending` and :func:`~paralib.io.stage.collect`."""
    return {s.key: (s.content, s.files) for s in shards}


def group_ids(keys: list[str]) -> np.ndarray:
    """Group ids (int64) of group keys: equal keys, equal ids, in every process."""
    return hash_strings(keys).view(np.int64) if keys else np.zeros(0, dtype=np.int64)


def read_shard(
    spec: ShardSpec, max_chars: int, s3: S3Options | None = None,
    checks: BitextChecks | None = None,
) -> tuple[list[dict], list[dict]]:
    """Read one shard: returns ``(rows, rejects)``; every input line lands in exactly one.

    XNLI lines hold two pairs (premise, hypothesis); a premise repeated on the lines after
    its first is not emitted again, so each distinct sentence pair appears once. Rows carry
    ``set`` and ``group`` (:func:`group_ids` of the English side's normal form, or of the
    verse key for Bible versions).
    """
    checks = checks or BitextChecks()
    rows: list[dict] = []
    rejects: list[dict] = []
    group_keys: list[str] = []
    seen_premise: str | None = None

    def base(lineno: int, sub: str = "") -> dict:
        return {
            "id": f"{spec.name}:{spec.shard:05d}:{lineno}{sub}",
            "corpus": spec.corpus,
            "set": spec.set or "",
            "shard": spec.shard,
            "line": lineno,
            "src_lang": spec.src_lang,
        }

    def clean(text: str) -> str:
        text = text.strip()
        return html.unescape(text) if spec.html_unescape else text

    for lineno, payload in _raw_pairs(spec, s3):
        if isinstance(payload, _Reject):
            rejects.append({**base(lineno), "reason": payload.reason,
                            "detail": payload.detail, "raw": payload.raw})
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
            e_form = normal_form(e)
            reason, detail = _check(s, e, max_chars) or ("", "")
            if not reason and spec.format != "lines":  # a lines file is English on both sides
                reason = pair_problem(
                    s, e, spec.src_lang, untranslated=checks.untranslated,
                    min_script_share=checks.min_script_share, min_letters=checks.min_letters,
                    en_form=e_form)
            tag = f":{sub}" if sub else ""
            if reason:
                raw = f"{s[:200]}\t{e[:200]}"
                rejects.append({**base(lineno, tag), "reason": reason, "detail": detail,
                                "raw": raw})
            else:
                rows.append({**base(lineno, tag), "src": s, "ref": e})
                group_keys.append(payload[2] if len(payload) == 3 else e_form)
    for row, g in zip(rows, group_ids(group_keys).tolist(), strict=True):
        row["group"] = g
    return rows, rejects


def read_all(
    inputs: list[InputConfig], max_chars: int, s3: S3Options | None = None,
    checks: BitextChecks | None = None,
) -> tuple[list[dict], list[dict]]:
    """Read every input whole (for small corpora, e.g. MT training); returns rows and rejects."""
    rows: list[dict] = []
    rejects: list[dict] = []
    for spec in plan_shards(inputs, shard_rows=1 << 30, s3=s3):
        r, j = read_shard(spec, max_chars, s3, checks)
        rows += r
        rejects += j
    return rows, rejects


def read_shards(batch: pd.DataFrame, max_chars: int, s3: S3Options | None,
                checks: dict | None = None) -> pd.DataFrame:
    """Ray Data stage: read the shards named in ``batch`` into rows; rejects are rows with a
    ``reason``. ``checks`` is a :class:`BitextChecks` as a dict (default: its defaults)."""
    bc = BitextChecks(**checks) if checks else None
    frames = []
    for item in batch.to_dict("records"):
        spec = ShardSpec.from_dict(item)
        rows, rejects = read_shard(spec, max_chars, s3, bc)
        df = pd.DataFrame(rows + rejects, columns=[
            "id", "corpus", "set", "shard", "line", "src_lang", "src", "ref", "group",
            "reason", "detail", "raw"])
        df["group"] = df["group"].fillna(0).astype(np.int64)
        df["src"] = df["src"].fillna("")
        df["ref"] = df["ref"].fillna("")
        df["reason"] = df["reason"].fillna("")
        df["raw"] = df["raw"].fillna("")
        df["detail"] = df["detail"].fillna("")
        df["shard_key"] = spec.key
        df["shard_total"] = len(df)
        frames.append(df.drop(columns=["shard"]))
    return pd.concat(frames, ignore_index=True)
