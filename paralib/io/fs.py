"""Filesystems for local paths and ``s3://`` URIs (AWS or any S3-compatible store).

All stages read and write through :mod:`pyarrow.fs`, so Ray Data, pyarrow and paralib's own
readers see the same bytes. S3 settings come from :class:`paralib.config.S3Config`; an
``endpoint_url`` selects an S3-compatible store (MinIO, moto) with path-style addressing.
"""

from __future__ import annotations

import glob as _glob
import os
from dataclasses import dataclass
from urllib.parse import urlparse

import pyarrow.fs as pafs


@dataclass(frozen=True)
class S3Options:
    """Connection settings for S3; picklable so Ray workers rebuild the same filesystem."""

    endpoint_url: str | None = None
    region: str = "us-east-1"
    access_key: str | None = None
    secret_key: str | None = None

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
        return pafs.S3FileSystem(**kwargs)


    def client(self):
        """A boto3 S3 client with the same settings."""
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            region_name=self.region,
            aws_access_key_id=self.access_key or os.environ.get("AWS_ACCESS_KEY_ID"),
            aws_secret_access_key=self.secret_key or os.environ.get("AWS_SECRET_ACCESS_KEY"),
        )


def is_s3(path: str) -> bool:
    """True for ``s3://`` URIs."""
    return path.startswith("s3://")


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

    A pattern without wildcards is returned as is when it exists. Raises
    :class:`FileNotFoundError` naming the pattern when nothing matches.
    """
    if not any(ch in pattern for ch in "*?["):
        fs, inner = resolve(pattern, s3)
        info = fs.get_file_info(inner)
        if info.type != pafs.FileType.File:
            raise FileNotFoundError(f"input file not found: {pattern}")
        return [pattern]
    if not is_s3(pattern):
        found = sorted(p for p in _glob.glob(pattern) if os.path.isfile(p))
    else:
        import fnmatch

        fs, inner = resolve(pattern, s3)
        base = inner.split("*", 1)[0].split("?", 1)[0].split("[", 1)[0].rsplit("/", 1)[0]
        infos = fs.get_file_info(pafs.FileSelector(base, recursive=True, allow_not_found=True))
        found = sorted(
            "s3://" + i.path
            for i in infos
            if i.type == pafs.FileType.File and fnmatch.fnmatch(i.path, inner)
        )
    if not found:
        raise FileNotFoundError(f"no input file matches: {pattern}")
    return found


def exists(path: str, s3: S3Options | None = None) -> bool:
    """True when ``path`` is an existing file."""
    fs, inner = resolve(path, s3)
    return fs.get_file_info(inner).type == pafs.FileType.File


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
