"""Filesystems for local paths and ``s3://`` URIs (AWS or any S3-compatible store).

All stages read and write through :mod:`pyarrow.fs`, so Ray Data, pyarrow and paralib's own
readers see the same bytes. S3 settings come from :class:`paralib.config.S3Config`; an
``endpoint_url`` selects an S3-compatible store (MinIO, moto) with path-style addressing.
"""

from __future__ import annotations

import contextlib
import fnmatch
import glob as _glob
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import pyarrow.fs as pafs

from paralib.errors import MissingError, ParalibError, exception_chain


@dataclass(frozen=True)
class S3Options:
    """Connection settings for S3; picklable so Ray workers rebuild the same filesystem."""

    endpoint_url: str | None = None
    region: str = "us-east-1"
    access_key: str | None = None
    secret_key: str | None = None
    max_attempts: int = 10

    def filesystem(self) -> pafs.S3FileSystem:
        """Build a pyarrow S3 filesystem (path-style addressing when an endpoint is set)."""
        kwargs: dict = {"region": self.region}
        access = self.access_key or os.environ.get("AWS_ACCESS_KEY_ID")
        secret = self.secret_key or os.environ.get("AWS_SECRET_ACCESS_KEY")
        if access and secret:
            kwargs.update(access_key=access, secret_key=secret)
        if self.endpoint_url:
            parsed = urlparse(self.endpoint_url)
            kwargs["endpoint_override"] = parsed.netloc or parsed.path
            kwargs["scheme"] = parsed.scheme or "https"
            kwargs["force_virtual_addressing"] = False
        # Open output streams lazily: with an S3-compatible endpoint (moto here) pyarrow 26's
        # eager multipart upload failed at CompleteMultipartUpload for every stream, Ray's
        # own storage markers included.
        kwargs["allow_delayed_open"] = True
        # a short outage (a store restarting, a dropped connection) is retried with
        # exponential backoff instead of failing the stage
        kwargs["retry_strategy"] = pafs.AwsStandardS3RetryStrategy(
            max_attempts=self.max_attempts)
        # a store that accepts a connection and never answers ends the request, as the
        # boto3 client below does, instead of holding a stage's actor for good
        kwargs.update(connect_timeout=5, request_timeout=60)
        return pafs.S3FileSystem(**kwargs)

    def client(self):
        """A boto3 S3 client with the same settings, retrying a failed request up to
        ``max_attempts`` times with exponential backoff (botocore's ``standard`` mode)."""
        import boto3
        from botocore.config import Config as BotoConfig

        return boto3.client(
            "s3", endpoint_url=self.endpoint_url, region_name=self.region,
            aws_access_key_id=self.access_key or os.environ.get("AWS_ACCESS_KEY_ID"),
            aws_secret_access_key=self.secret_key or os.environ.get("AWS_SECRET_ACCESS_KEY"),
            config=BotoConfig(retries={"mode": "standard", "max_attempts": self.max_attempts},
                              connect_timeout=5, read_timeout=60))


WILDCARDS = re.compile(r"[*?\[]")  # a glob pattern holds one of these


def is_s3(path: str) -> bool:
    """True for ``s3://`` URIs."""
    return path.startswith("s3://")


class S3BucketError(MissingError, FileNotFoundError):
    """An ``s3://`` path of the config whose bucket does not exist or cannot be reached."""


class S3UnavailableError(MissingError, OSError):
    """S3 failed part-way through a stage (the store went down, the network dropped) after
    every retry: one message naming the path and what failed."""

    hint = ("check that the S3 store answers (s3.endpoint_url, the network) and run the "
            "command again: the shards already finished are kept")


# what an S3 failure says, also in the text of a Ray task error (which keeps the worker's
# traceback as text, not the exception): pyarrow's and botocore's wording
S3_FAILURES = ("AWS Error", "Could not connect to the endpoint URL", "Connection was closed")


def _s3_cause(exc: BaseException, depth: int = 12) -> str | None:
    """The line that says which S3 request failed behind ``exc`` (itself, a Ray task
    error's ``cause`` or a chained exception): a botocore error or a pyarrow ``AWS Error``,
    also inside the worker traceback a Ray task error carries as text."""
    from botocore.exceptions import BotoCoreError

    for e in exception_chain(exc, depth):
        if isinstance(e, ParalibError) and not isinstance(e, S3UnavailableError):
            return None  # the user's error says it better
        text = str(e)
        lines = [ln.strip() for ln in text.splitlines() if any(m in ln for m in S3_FAILURES)]
        if lines:
            return lines[-1].removeprefix("OSError: ")
        if isinstance(e, BotoCoreError):
            return text.strip() or type(e).__name__
    return None


@contextlib.contextmanager
def s3_errors(path: str, doing: str, s3: S3Options | None = None) -> Iterator[None]:
    """Turn an S3 failure inside the block (after the retries of :class:`S3Options`) into
    one :class:`S3UnavailableError` naming ``path``, the endpoint and what failed
    (``doing``: "encoding into"); nothing changes for a local ``path`` or another error."""
    try:
        yield
    except Exception as exc:
        local = not is_s3(path) or isinstance(exc, S3UnavailableError)
        cause = None if local else _s3_cause(exc)
        if cause is None:
            raise
        s3 = s3 or S3Options()
        raise S3UnavailableError(
            f"{path}: S3 at {s3.endpoint_url or 'AWS'} failed while {doing} it, after "
            f"{s3.max_attempts} tries: {cause[:300]}") from exc


def s3_paths(tree: object, prefix: str = "") -> dict[str, str]:
    """Every ``s3://`` string in a (config) tree of dicts and lists, by its dotted key
    (``score.output``, ``bitext.inputs.0.src``)."""
    if isinstance(tree, str):
        return {prefix: tree} if is_s3(tree) else {}
    items = (tree.items() if isinstance(tree, dict)
             else enumerate(tree) if isinstance(tree, (list, tuple)) else ())
    out: dict[str, str] = {}
    for k, v in items:
        out.update(s3_paths(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def check_s3_paths(tree: object, s3: S3Options | None = None) -> None:
    """Before a stage starts: check that the bucket of every ``s3://`` input and output in
    ``tree`` (a config as a dict) exists and answers, one request per bucket. Raises
    :class:`S3BucketError` naming the config keys, the bucket and the endpoint; nothing is
    read or written. A tree without ``s3://`` paths costs nothing."""
    paths = s3_paths(tree)
    if not paths:
        return
    from botocore.exceptions import BotoCoreError, ClientError

    s3 = s3 or S3Options()
    client = s3.client()
    where = s3.endpoint_url or "AWS"
    buckets: dict[str, list[str]] = {}
    for key, path in paths.items():
        buckets.setdefault(path[len("s3://"):].split("/", 1)[0], []).append(key)
    for bucket, keys in buckets.items():
        named = f"s3://{bucket} ({', '.join(keys)})"
        try:
            client.head_bucket(Bucket=bucket)
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in ("404", "NoSuchBucket", "NotFound"):
                raise S3BucketError(f"{named}: no such bucket at {where}; create it or "
                                    "correct the path") from None
            raise S3BucketError(f"{named}: the bucket at {where} refused access ({code}: "
                                f"{exc}); check s3.access_key and the bucket's policy") from None
        except BotoCoreError as exc:
            raise S3BucketError(f"{named}: cannot reach S3 at {where} after "
                                f"{s3.max_attempts} tries ({exc}); check s3.endpoint_url "
                                "and the network") from None


def resolve(path: str, s3: S3Options | None = None) -> tuple[pafs.FileSystem, str]:
    """Return ``(filesystem, path-within-it)`` for a local path or ``s3://bucket/key``."""
    if is_s3(path):
        return (s3 or S3Options()).filesystem(), path[len("s3://") :]
    return pafs.LocalFileSystem(), os.path.abspath(path)


def join(base: str, *parts: str) -> str:
    """Join path parts with ``/`` (works for both local paths and URIs)."""
    return "/".join([base.rstrip("/"), *[p.strip("/") for p in parts]])


def expand_glob(pattern: str, s3: S3Options | None = None) -> list[str]:
    """Expand a glob pattern into a sorted list of files (local or ``s3://``).

    A pattern without wildcards is returned as is when it exists, and so is an existing
    file whose name holds glob characters (``data[1].txt``), so that a path that one
    expansion gave survives a second one. Raises :class:`FileNotFoundError` naming the
    pattern when nothing matches.
    """
    if exists(pattern, s3):
        return [pattern]
    if WILDCARDS.search(pattern) is None:
        raise FileNotFoundError(f"input file not found: {pattern}")
    if not is_s3(pattern):
        found = sorted(p for p in _glob.glob(pattern) if os.path.isfile(p))
    else:
        fs, inner = resolve(pattern, s3)
        base = inner.split("*", 1)[0].split("?", 1)[0].split("[", 1)[0].rsplit("/", 1)[0]
        infos = fs.get_file_info(pafs.FileSelector(base, recursive=True, allow_not_found=True))
        found = sorted("s3://" + i.path for i in infos
                       if i.type == pafs.FileType.File and fnmatch.fnmatch(i.path, inner))
    if not found:
        raise FileNotFoundError(f"no input file matches: {pattern}")
    return found


def file_type(path: str, s3: S3Options | None = None) -> pafs.FileType:
    """What is at ``path``: ``File``, ``Directory`` or ``NotFound``."""
    fs, inner = resolve(path, s3)
    return fs.get_file_info(inner).type


def exists(path: str, s3: S3Options | None = None) -> bool:
    """True when ``path`` is an existing file."""
    return file_type(path, s3) == pafs.FileType.File


def entry_names(path: str, s3: S3Options | None = None) -> set[str]:
    """The names of the entries of the folder ``path`` (none when it is missing)."""
    fs, inner = resolve(path, s3)
    return {i.base_name for i in fs.get_file_info(pafs.FileSelector(inner,
                                                                   allow_not_found=True))}


FULL_HASH_BELOW = 16 << 20
EDGE_BYTES = 1 << 20


def content_print(path: str, s3: S3Options | None = None,
                  full_below: int = FULL_HASH_BELOW, edge: int = EDGE_BYTES) -> str:
    """A short fingerprint of the content of the file ``path`` (local or ``s3://``).

    A file under ``full_below`` bytes is hashed whole (reading it costs less than the line
    count every stage already makes). A larger one is fingerprinted by its size, its
    modification time and a hash of its first and last ``edge`` bytes, so that a file
    replaced under the same name is noticed without reading it all.
    """
    fs, inner = resolve(path, s3)
    info = fs.get_file_info(inner)
    if info.type != pafs.FileType.File:
        raise FileNotFoundError(f"input file not found: {path}")
    digest = hashlib.sha1(f"{info.size}".encode())
    with fs.open_input_file(inner) as f:
        if info.size < full_below:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
        else:
            digest.update(f"\t{info.mtime_ns}".encode())
            digest.update(f.read_at(edge, 0))
            digest.update(f.read_at(edge, info.size - edge))
    return digest.hexdigest()[:16]


def write_bytes(path: str, data: bytes, s3: S3Options | None = None) -> None:
    """Write ``data`` to ``path``, creating parent folders on local filesystems.

    S3 objects are written with one ``PutObject`` request through boto3: pyarrow's output
    stream uses multipart uploads, which some S3-compatible stores (moto among them) reject.
    """
    if is_s3(path):
        bucket, key = path[len("s3://") :].split("/", 1)
        (s3 or S3Options()).client().put_object(Bucket=bucket, Key=key, Body=data)
        return
    fs, inner = resolve(path, s3)
    fs.create_dir(inner.rsplit("/", 1)[0], recursive=True)
    tmp = f"{inner}.tmp-{os.getpid()}"
    with fs.open_output_stream(tmp) as out:
        out.write(data)
    os.replace(tmp, inner)


def read_bytes(path: str, s3: S3Options | None = None) -> bytes:
    """Read a whole (small) file."""
    fs, inner = resolve(path, s3)
    with fs.open_input_stream(inner) as f:
        return f.read()


def delete_dir(path: str, s3: S3Options | None = None) -> None:
    """Delete a folder (or S3 prefix) if it exists; a failure to delete is raised."""
    fs, inner = resolve(path, s3)
    if fs.get_file_info(inner).type != pafs.FileType.NotFound:
        fs.delete_dir(inner)


# -- model folders on S3: written locally then uploaded; downloaded to a node-local cache --

CACHE_ENV = "PARALIB_CACHE"


def cache_root() -> Path:
    """Node-local cache of S3 downloads: ``$PARALIB_CACHE/s3`` or ``~/.cache/paralib/s3``."""
    base = os.environ.get(CACHE_ENV) or str(Path.home() / ".cache" / "paralib")
    return Path(base).expanduser() / "s3"


def upload_dir(local: str | Path, remote: str, s3: S3Options | None = None) -> None:
    """Copy the local folder ``local`` (recursively) to ``remote`` (``s3://`` or local).

    Every file goes up with one ``PutObject`` (as :func:`write_bytes` does): no multipart
    upload, which some S3-compatible stores reject.
    """
    src = Path(local)
    if not src.is_dir():
        raise FileNotFoundError(f"upload_dir: {local} is not a folder")
    if not is_s3(remote):
        shutil.copytree(src, remote, dirs_exist_ok=True)
        return
    for f in sorted(p for p in src.rglob("*") if p.is_file()):
        write_bytes(join(remote, f.relative_to(src).as_posix()), f.read_bytes(), s3)


def _remote_files(path: str, s3: S3Options | None) -> tuple[pafs.FileSystem, str, list, bool]:
    """``(filesystem, base, files, is_file)``: the one file at ``path`` (``base`` is its
    folder) or every file under the folder ``path``."""
    filesystem, inner = resolve(path, s3)
    inner = inner.rstrip("/")
    info = filesystem.get_file_info(inner)
    if info.type == pafs.FileType.File:
        return filesystem, inner.rsplit("/", 1)[0], [info], True
    files = [i for i in filesystem.get_file_info(
        pafs.FileSelector(inner, recursive=True, allow_not_found=True))
        if i.type == pafs.FileType.File]
    if not files:
        raise FileNotFoundError(f"nothing found at {path}")
    return filesystem, inner, files, False


def download_dir(remote: str, local: str | Path, s3: S3Options | None = None) -> Path:
    """Copy the folder (or the one file) at ``remote`` into the local folder ``local``."""
    filesystem, base, files, _ = _remote_files(remote, s3)
    dest = Path(local)
    root = dest.resolve()
    for info in files:
        target = dest / info.path[len(base):].lstrip("/")
        if not target.resolve().is_relative_to(root):  # a key such as "models/../../x"
            raise ValueError(f"{remote}: the object {info.path!r} would be written outside "
                             f"{dest}; expected object names without '..' parts")
        target.parent.mkdir(parents=True, exist_ok=True)
        with filesystem.open_input_stream(info.path) as f, open(target, "wb") as out:
            shutil.copyfileobj(f, out, 1 << 20)
    return dest


def local_copy(path: str, s3: S3Options | None = None, cache: str | Path | None = None) -> str:
    """A local path holding what ``path`` names: ``path`` itself when it is local; for an
    ``s3://`` folder or file, a copy in the node-local cache (:func:`cache_root`).

    Ray actors call this before loading a model (a language model, a classifier) so that a
    stage runs on a cluster without a shared disk. The cache entry is named after the objects'
    sizes and modification times: a model written again to the same URI is downloaded again,
    an unchanged one is reused. Concurrent callers on one node each download to their own
    temporary folder and the first rename wins.
    """
    if not is_s3(path):
        return path
    _, base, files, single = _remote_files(path, s3)
    stamp = hashlib.sha1("\n".join(
        f"{i.path}\t{i.size}\t{i.mtime_ns}" for i in sorted(files, key=lambda i: i.path)
    ).encode()).hexdigest()[:16]
    root = Path(cache) if cache is not None else cache_root()
    entry = root / base.strip("/") / f".v-{stamp}"
    result = entry / files[0].path[len(base):].lstrip("/") if single else entry
    if entry.is_dir():
        return str(result)
    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=entry.parent))
    try:
        download_dir(path, tmp, s3)
        try:
            os.rename(tmp, entry)
        except OSError:
            if not entry.is_dir():  # not lost to a concurrent download of the same version
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return str(result)


@contextlib.contextmanager
def output_dir(path: str, s3: S3Options | None = None) -> Iterator[Path]:
    """A local folder to write a stage's output into: ``path`` itself when it is local; for
    ``s3://`` a temporary folder that is uploaded to ``path`` when the block ends without an
    error (nothing is uploaded otherwise)."""
    if not is_s3(path):
        out = Path(path)
        out.mkdir(parents=True, exist_ok=True)
        yield out
        return
    with tempfile.TemporaryDirectory(prefix="paralib-out-") as tmp:
        yield Path(tmp)
        upload_dir(tmp, path, s3)
