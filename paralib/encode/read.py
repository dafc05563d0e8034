"""Monolingual text inputs: plan shards of every file, read one shard into rows and rejects.

The bitext machinery does the work (:func:`paralib.io.bitext.plan_shards` with format
``lines``: line counts, byte offsets to seek to, globs and ``s3://``, gzip; and
:func:`paralib.io.bitext.shard_texts` for decoding), so a text file is read here exactly as
a bitext file is, and row ids have the bitext form ``<name>:<shard>:<line>``. Every line
ends up as a row or as a reject with its reason, never dropped.

A shard is read in bulk (:func:`shard_bytes`: its bytes found by byte offset, or by
counting newlines in a gzip stream, then decoded at once), which gives exactly the lines
:func:`~paralib.io.bitext.shard_texts` gives, a few times faster; a shard whose bytes do not
all decode, hold a NUL byte or start a file with a byte-order mark is read line by line by
:func:`~paralib.io.bitext.shard_texts` instead, which gives each bad line its reason.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable

import numpy as np

from paralib.encode.config import TextInput
from paralib.io.bitext import UTF16_BOMS, BitextError, ShardSpec, plan_shards, shard_texts
from paralib.io.config import InputConfig
from paralib.io.fs import WILDCARDS, S3Options, expand_glob, resolve
from paralib.io.lines import CHUNK, is_gzip


def file_name(pattern: str, path: str, prefix: str | None = None) -> str:
    """The name of ``path`` in its row ids: the path below ``pattern``'s folder, ``/`` as
    ``.``, without ``.gz`` and ``.txt``, characters other than ``A-Za-z0-9_.-`` as ``_``."""
    wild = WILDCARDS.search(pattern)
    fixed = pattern[: wild.start()] if wild else pattern
    rel = path[len(fixed.rsplit("/", 1)[0]) + 1:] if "/" in fixed else path
    for suffix in (".gz", ".txt"):
        rel = rel.removesuffix(suffix)
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", rel.strip("/").replace("/", "."))
    return f"{prefix}.{name}" if prefix else name


def text_inputs(inputs: list[TextInput], s3: S3Options | None,
                where: str = "encode.inputs") -> list[InputConfig]:
    """One bitext input (format ``lines``) per file the patterns match, named by
    :func:`file_name`. Raises :class:`BitextError` naming the config key for a pattern
    that matches nothing and for two files that get one name."""
    out: list[InputConfig] = []
    seen: dict[str, str] = {}
    for i, inp in enumerate(inputs):
        try:
            files = expand_glob(inp.path, s3)
        except FileNotFoundError as exc:
            raise BitextError(f"{where}[{i}]: {exc}") from None
        for path in files:
            name = file_name(inp.path, path, inp.name)
            if name in seen:
                raise BitextError(
                    f"{where}[{i}]: {path} and {seen[name]} both get the name '{name}' in row "
                    "ids; give the inputs distinct 'name' values")
            seen[name] = path
            out.append(InputConfig(corpus=name, src_lang=inp.lang, format="lines", path=path,
                                   limit=inp.limit))
    return out


def plan_text_shards(inputs: list[TextInput], shard_rows: int,
                     s3: S3Options | None = None) -> list[ShardSpec]:
    """Shards of ``shard_rows`` lines of every input file."""
    return plan_shards(text_inputs(inputs, s3), shard_rows, s3)


def _nth_newline_end(chunk: bytes, n: int) -> int:
    """The position just after the ``n``-th (1-based) newline of ``chunk``, which has at
    least ``n``."""
    return int(np.flatnonzero(np.frombuffer(chunk, np.uint8) == 10)[n - 1]) + 1


def shard_bytes(spec: ShardSpec, s3: S3Options | None = None) -> bytes | None:
    """The bytes of the lines of a one-file ``lines`` shard, read in large chunks: from its
    byte offset in a plain file, past the ``start`` lines before it in a gzip stream; up to
    and including its ``rows``-th newline, or to the end of a shorter file. ``None`` for a
    gzip stream that fails (the line reader then names the error)."""
    path = spec.files[0]
    fs, inner = resolve(path, s3)
    try:
        if is_gzip(path) or not spec.offsets:
            f, skip = fs.open_input_stream(inner, compression="gzip" if is_gzip(path)
                                           else None), spec.start
        else:
            f, skip = fs.open_input_file(inner), 0
            f.seek(spec.offsets[0])
        with f:
            chunk = b""
            while skip:  # whole chunks of earlier lines, then the rest of the last one
                chunk = f.read(CHUNK)
                if not chunk:
                    return b""
                n = chunk.count(b"\n")
                if n >= skip:
                    chunk = chunk[_nth_newline_end(chunk, skip):]
                    break
                skip -= n
            parts, want = [], spec.rows
            while True:
                n = chunk.count(b"\n")
                if n >= want:
                    parts.append(chunk[:_nth_newline_end(chunk, want)])
                    break
                parts.append(chunk)
                want -= n
                chunk = f.read(CHUNK)
                if not chunk:
                    break
            return b"".join(parts)
    except OSError as exc:
        if is_gzip(path) and not isinstance(exc, FileNotFoundError):
            return None
        raise


def bulk_lines(spec: ShardSpec, s3: S3Options | None = None) -> list[str] | None:
    """The decoded lines of a one-file ``lines`` shard (without ``\\n``), or ``None`` when
    some line needs the line-by-line reader's verdict: bytes that are not UTF-8, a NUL
    byte, a byte-order mark at the start of the file, a gzip stream that fails."""
    data = shard_bytes(spec, s3)
    if data is None or b"\x00" in data:
        return None
    if spec.start == 0 and data.startswith((codecs.BOM_UTF8, *UTF16_BOMS)):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text.removesuffix("\n").split("\n") if text else []


def read_text_shard(spec: ShardSpec, max_chars: int, s3: S3Options | None = None
                    ) -> tuple[list[str], list[str], list[dict]]:
    """Ids and texts of the good lines of one shard, and the rejects ``{id, corpus,
    src_lang, line, reason, raw}``: every line is in exactly one. Text is stripped of
    surrounding white space."""
    prefix = f"{spec.name}:{spec.shard:05d}:"
    lines = bulk_lines(spec, s3)
    if lines is not None:
        texts = [line.strip() for line in lines]
        if all(texts) and max(map(len, texts), default=0) <= max_chars:
            first = spec.start + 1
            return [f"{prefix}{first + j}" for j in range(len(texts))], texts, []
        numbered: Iterable = ((spec.start + j + 1, t, "", "") for j, t in enumerate(texts))
    else:
        numbered = shard_texts(spec, s3)
    return split_rows(spec, prefix, numbered, max_chars)


def split_rows(spec: ShardSpec, prefix: str,
               numbered: Iterable[tuple[int, str | None, str, str]],
               max_chars: int) -> tuple[list[str], list[str], list[dict]]:
    """Ids and texts of the good lines of ``(line number, text, reason, detail)``, and the
    rejects: lines with a reason, empty lines and lines over ``max_chars`` characters (the
    reason is the kind, the length goes to ``detail``)."""
    ids: list[str] = []
    texts: list[str] = []
    rejects: list[dict] = []
    for lineno, text, reason, detail in numbered:
        raw = ""
        if not reason:
            text = text.strip()
            if text and len(text) <= max_chars:
                ids.append(f"{prefix}{lineno}")
                texts.append(text)
                continue
            raw = text[:200]
            reason = "empty line" if not text else f"line longer than {max_chars} characters"
            detail = f"{len(text)} characters" if text else ""
        rejects.append({"id": f"{prefix}{lineno}", "corpus": spec.corpus,
                        "src_lang": spec.src_lang, "line": lineno, "reason": reason,
                        "detail": detail, "raw": raw})
    return ids, texts, rejects
