"""Raw line access to local or S3 text files, gzip included, with byte offsets.

Lines are returned as bytes so that decoding errors become per-row rejects rather than a
crash of the whole shard. Uncompressed files are split into shards by byte offset (a reader
seeks straight to its shard); gzip streams cannot seek, so a shard of a ``.gz`` file is
reached by reading past the lines before it.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from contextlib import contextmanager

from paralib.errors import InputError
from paralib.io.fs import S3Options, resolve

CHUNK = 1 << 20


def is_gzip(path: str) -> bool:
    """True when the file is gzip-compressed (by extension)."""
    return path.endswith(".gz")


class CompressedInputError(InputError, ValueError):
    """A ``.gz`` file that is not gzip, or is cut short."""


@contextmanager
def _named_gzip_errors(path: str) -> Iterator[None]:
    """Turn zlib's errors on ``path`` into one message naming the file."""
    try:
        yield
    except OSError as e:
        if not is_gzip(path) or isinstance(e, FileNotFoundError):
            raise
        raise CompressedInputError(f"{path}: not a complete gzip file ({e}); expected "
                                   "gzip-compressed UTF-8 text (or drop the .gz suffix)") from e


def _open(path: str, s3: S3Options | None, offset: int = 0):
    fs, inner = resolve(path, s3)
    if is_gzip(path):
        return fs.open_input_stream(inner, compression="gzip")
    f = fs.open_input_file(inner)
    if offset:
        f.seek(offset)
    return f


def iter_lines(path: str, s3: S3Options | None = None, offset: int = 0) -> Iterator[bytes]:
    """Yield the lines of ``path`` (without ``\\n`` / ``\\r\\n``) from byte ``offset``."""
    with _named_gzip_errors(path), _open(path, s3, offset) as f:
        rest = b""
        while chunk := f.read(CHUNK):
            parts = (rest + chunk).split(b"\n")
            rest = parts.pop()
            for line in parts:
                yield line[:-1] if line.endswith(b"\r") else line
        if rest:
            yield rest[:-1] if rest.endswith(b"\r") else rest


def count_lines(path: str, s3: S3Options | None = None, every: int = 0) -> tuple[int, list[int]]:
    """Count the lines of ``path``; also return the byte offset of every ``every``-th line.

    The offsets (of lines 0, every, 2*every, ...) let shard readers seek. For gzip files the
    offsets are empty: readers skip lines instead.
    """
    n = 0
    offsets: list[int] = []
    want = every > 0 and not is_gzip(path)
    pos = 0  # absolute position of the next unread byte
    line_start = 0
    with _named_gzip_errors(path), _open(path, s3) as f:
        while chunk := f.read(CHUNK):
            if want:
                start = 0
                while (nl := chunk.find(b"\n", start)) >= 0:
                    if n % every == 0:
                        offsets.append(line_start)
                    n += 1
                    line_start = pos + nl + 1
                    start = nl + 1
            else:
                n += chunk.count(b"\n")
                line_start = pos + chunk.rfind(b"\n") + 1 if b"\n" in chunk else line_start
            pos += len(chunk)
    if pos > line_start:  # a last line without a newline
        if want and n % every == 0:
            offsets.append(line_start)
        n += 1
    return n, offsets


RAW_LIMIT = 1 << 16


def escape_bytes(raw: bytes, limit: int = RAW_LIMIT) -> str:
    """``raw`` as text that keeps every byte: valid UTF-8 stays as it is, a backslash is
    doubled, and every other byte (an undecodable one, NUL) becomes ``\\xNN``.
    :func:`unescape_bytes` gives the bytes back. What a reject keeps of a line that could not
    be decoded; a line longer than ``limit`` bytes keeps its first ``limit`` bytes and says
    how many more there were (``\\x..[+N bytes]``)."""
    more = len(raw) - limit
    text = raw[:limit].replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")
    text = "".join(c if c.isprintable() or c in "\t " or ord(c) > 127 else f"\\x{ord(c):02x}"
                   for c in text)
    return f"{text}[+{more} bytes]" if more > 0 else text


def unescape_bytes(text: str) -> bytes:
    """The bytes of :func:`escape_bytes`'s text (without its ``[+N bytes]`` note)."""
    return codecs.escape_decode(text.encode("utf-8"))[0]
