"""S3 going down for good in the middle of ``paralib encode`` (the moto server stopped after
the first shard): once the retries are spent, one user-error message naming the S3 output
and what failed (exit 2), not a traceback labelled a bug; the finished shards are kept."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from paralib.io.fs import S3Options

moto_server = pytest.importorskip("moto.server")
BUCKET = "paralib-encode-outage"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_s3_down_mid_encode_is_one_message(tiny_encoder_dir, en_text, tmp_path):
    """The encode runs in its own process (its own embedded Ray): its actor may sit in an S3
    request until the store's timeouts end it, and must not hold a CPU of the tests' Ray."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    client = S3Options(url, access_key="testing", secret_key="testing").client()
    client.create_bucket(Bucket=BUCKET)
    client.put_object(Bucket=BUCKET, Key="in/news.txt",
                      Body=("\n".join(en_text[:400]) + "\n").encode())
    down: dict[str, float] = {}

    def pull_the_plug() -> None:
        """Stop the server for good once the first shard is complete."""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            page = client.list_objects_v2(Bucket=BUCKET, Prefix="enc/_markers/")
            if page.get("KeyCount", 0):
                server.stop()
                server._server.server_close()
                down["at"] = time.monotonic()
                return
            time.sleep(0.05)

    plug = threading.Thread(target=pull_the_plug, daemon=True)
    plug.start()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "paralib", "encode", "--no-progress",
             "--model", str(tiny_encoder_dir),
             "--input", f"s3://{BUCKET}/in/news.txt", "--output", f"s3://{BUCKET}/enc",
             "--actors", "1", "--set", "encode.shard_rows=10",
             "--set", f"s3.endpoint_url={url}", "--set", "s3.access_key=testing",
             "--set", "s3.secret_key=testing", "--set", "s3.max_attempts=2",
             "--set", "ray.num_cpus=2"],
            cwd=tmp_path, env={**os.environ, "PARALIB_LOG_DIR": str(tmp_path / "logs")},
            capture_output=True, text=True, timeout=300)
    finally:
        plug.join(5)
        if "at" not in down:
            server.stop()
    err = proc.stderr
    assert "at" in down, "the outage never happened"
    assert proc.returncode == 2, err
    assert f"paralib: error: s3://{BUCKET}/enc: S3 at {url} failed while encoding into it, " \
           "after 2 tries: " in err
    assert "Traceback" not in err and "internal error" not in err
    assert "run the command again" in err  # the hint
