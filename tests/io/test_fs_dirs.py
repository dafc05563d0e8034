"""Model folders on S3 (moto server on 127.0.0.1): upload, download, the node-local cache that
actors load models from, and stage outputs written locally then uploaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from paralib.io import fs

BUCKET = "paralib-fs"


@pytest.fixture(scope="module")
def bucket(s3_options):
    s3_options.client().create_bucket(Bucket=BUCKET)
    return f"s3://{BUCKET}"


def _folder(root, files: dict[str, bytes]):
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def test_upload_then_download_a_folder(bucket, s3_options, tmp_path):
    src = _folder(tmp_path / "model", {"config.json": b"{}", "sub/weights.bin": b"x" * 3000})
    fs.upload_dir(src, f"{bucket}/models/a", s3_options)
    keys = sorted(o["Key"] for o in s3_options.client().list_objects_v2(
        Bucket=BUCKET, Prefix="models/a/")["Contents"])
    assert keys == ["models/a/config.json", "models/a/sub/weights.bin"]
    out = fs.download_dir(f"{bucket}/models/a", tmp_path / "back", s3_options)
    assert (out / "sub/weights.bin").read_bytes() == b"x" * 3000
    assert (out / "config.json").read_bytes() == b"{}"
    # local to local is a plain copy
    fs.upload_dir(src, str(tmp_path / "copy"))
    assert (tmp_path / "copy/sub/weights.bin").stat().st_size == 3000


def test_local_copy_caches_and_follows_new_versions(bucket, s3_options, tmp_path):
    cache = tmp_path / "cache"
    assert fs.local_copy(str(tmp_path), s3_options, cache) == str(tmp_path)  # local: as is
    src = _folder(tmp_path / "lm", {"lms.json": b"1", "m.bin": b"abc"})
    fs.upload_dir(src, f"{bucket}/lm", s3_options)
    first = fs.local_copy(f"{bucket}/lm", s3_options, cache)
    assert Path(first, "m.bin").read_bytes() == b"abc"
    assert first.startswith(str(cache / BUCKET / "lm"))
    assert fs.local_copy(f"{bucket}/lm", s3_options, cache) == first  # reused
    one = fs.local_copy(f"{bucket}/lm/m.bin", s3_options, cache)  # a single file
    assert one.endswith("/m.bin") and Path(one).read_bytes() == b"abc"

    fs.write_bytes(f"{bucket}/lm/m.bin", b"abcd", s3_options)  # the model trained again
    second = fs.local_copy(f"{bucket}/lm", s3_options, cache)
    assert second != first and Path(second, "m.bin").read_bytes() == b"abcd"
    assert not [p for p in (cache / BUCKET / "lm").iterdir() if p.name.startswith(".tmp-")]

    with pytest.raises(FileNotFoundError, match="nothing found at s3://paralib-fs/nope"):
        fs.local_copy(f"{bucket}/nope", s3_options, cache)


def test_output_dir_uploads_only_on_success(bucket, s3_options, tmp_path):
    with fs.output_dir(f"{bucket}/out/ok", s3_options) as out:
        (out / "report.html").write_text("<p>ok</p>")
    assert fs.read_bytes(f"{bucket}/out/ok/report.html", s3_options) == b"<p>ok</p>"
    with pytest.raises(RuntimeError), fs.output_dir(f"{bucket}/out/bad", s3_options) as out:
        (out / "half.bin").write_bytes(b"x")
        raise RuntimeError("training failed")
    assert not fs.exists(f"{bucket}/out/bad/half.bin", s3_options)
    with fs.output_dir(str(tmp_path / "local"), s3_options) as out:  # local: the folder itself
        assert out == tmp_path / "local" and out.is_dir()


def test_an_object_name_that_climbs_out_is_refused(bucket, s3_options, tmp_path):
    """A key with '..' parts (S3 allows any name) cannot write outside the local folder."""
    client = s3_options.client()
    client.put_object(Bucket=BUCKET, Key="evil/ok.txt", Body=b"fine")
    client.put_object(Bucket=BUCKET, Key="evil/../../escaped.txt", Body=b"bad")
    with pytest.raises(ValueError, match=r"would be written outside .*without '\.\.' parts"):
        fs.download_dir(f"{bucket}/evil", tmp_path / "in" / "dest", s3_options)
    assert not (tmp_path / "escaped.txt").exists()
    assert not (tmp_path / "in" / "escaped.txt").exists()
