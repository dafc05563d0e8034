"""Every ``s3://`` bucket of the config is checked before a stage starts,
and a short S3 outage mid-run (the moto server stopped, then started again) is retried with
backoff: the stage finishes with every input row exactly once."""

from __future__ import annotations

import gzip
import socket
import threading
import time

import pytest

from paralib.cli import main
from paralib.config import load_config
from paralib.decontaminate import stage
from paralib.io.context import StageContext
from paralib.io.fs import S3BucketError, S3Options, check_s3_paths
from paralib.io.shards import read_output

moto_server = pytest.importorskip("moto.server")
BUCKET = "paralib-outage"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A moto S3 server that can go down (its socket closed: connections are refused) and
    come back on the same port with the same objects."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.moto = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=self.port,
                                                   verbose=False)
        self.moto.start()

    def stop(self) -> None:
        self.moto.stop()
        self.moto._server.server_close()

    def start(self) -> None:
        self.moto.start()


@pytest.fixture(scope="module")
def server():
    srv = Server()
    yield srv
    srv.stop()


def _overrides(url: str, *more: str) -> list[str]:
    return [f"s3.endpoint_url={url}", "s3.access_key=testing", "s3.secret_key=testing", *more]


def test_missing_buckets_are_named_before_any_work(server, m30k, tmp_path, capsys):
    s3 = S3Options(server.url, access_key="testing", secret_key="testing")
    s3.client().create_bucket(Bucket="paralib-there")
    tree = {"score": {"input": "s3://paralib-there/bt", "output": "s3://paralib-gone/sc"},
            "select": {"output": "s3://paralib-gone/sel"}, "lm": {"output": "local/lm"}}
    with pytest.raises(S3BucketError, match=r"s3://paralib-gone \(score.output, select.output\)"
                                            r": no such bucket at http://127.0.0.1"):
        check_s3_paths(tree, s3)
    check_s3_paths({"score": {"input": "s3://paralib-there/bt"}}, s3)  # exists: no error
    check_s3_paths({"lm": {"output": "local/lm"}}, None)  # no S3 path: no request at all

    out = tmp_path / "dc"  # a local first stage, a missing bucket for a later one
    code = main(["decontaminate", "--no-progress", *[a for o in _overrides(
        server.url, f"decontaminate.output={out}", "select.output=s3://paralib-gone/sel",
        f"bitext.inputs=[{{corpus: c, src_lang: de, src: '{m30k['val_de']}', "
        f"en: '{m30k['val_en']}', limit: 50}}]") for a in ("--set", o)]])
    err = capsys.readouterr().err
    assert code == 2 and "s3://paralib-gone (select.output): no such bucket" in err
    assert not out.exists()  # refused before the first stage ran

    dead = S3Options(f"http://127.0.0.1:{_free_port()}", access_key="testing",
                     secret_key="testing", max_attempts=2)
    with pytest.raises(S3BucketError, match=r"paralib-there \(score.input\): cannot reach S3 "
                                            r"at http://127.0.0.1:\d+ after 2 tries"):
        check_s3_paths({"score": {"input": "s3://paralib-there/bt"}}, dead)


@pytest.mark.slow
def test_a_short_outage_mid_run_is_retried_exactly_once(ray_session, server, m30k):
    s3 = S3Options(server.url, access_key="testing", secret_key="testing")
    client = s3.client()
    client.create_bucket(Bucket=BUCKET)
    for key, lang in (("val_de", "de"), ("val_en", "en")):
        with gzip.open(m30k[key], "rb") as f:
            lines = b"".join(f.readline() for _ in range(600))
        client.put_object(Bucket=BUCKET, Key=f"in/val.{lang}", Body=lines)
    out = f"s3://{BUCKET}/dc"
    cfg = load_config(None, _overrides(
        server.url, f"decontaminate.output={out}", "bitext.shard_rows=50",
        f"bitext.inputs=[{{corpus: c, src_lang: de, src: 's3://{BUCKET}/in/val.de', "
        f"en: 's3://{BUCKET}/in/val.en'}}]"))
    outage: dict[str, float] = {}

    def pull_the_plug() -> None:
        """Once the first shard is complete, stop the server for 2 s, then start it."""
        while "start" not in outage:
            page = client.list_objects_v2(Bucket=BUCKET, Prefix="dc/_markers/")
            outage["markers"] = page.get("KeyCount", 0)
            if outage["markers"]:
                server.stop()
                outage["start"] = time.monotonic()
                time.sleep(2)
                server.start()
                outage["end"] = time.monotonic()
            time.sleep(0.05)

    plug = threading.Thread(target=pull_the_plug, daemon=True)
    plug.start()
    report = stage.run(cfg.decontaminate, StageContext.of(cfg, progress=False))
    plug.join(30)
    assert "end" in outage, "the outage never happened"
    assert outage["markers"] < 12, "the stage had finished before the outage"
    assert report.rows_in == 600 and report.balanced()
    data = read_output(out, "data", s3).to_pandas()
    rejects = read_output(out, "rejects", s3).to_pandas()
    assert data["id"].is_unique and len(data) == report.rows_out
    assert len(rejects) == report.rows_rejected
    assert set(data["id"]) | set(rejects["id"]) == {f"c:{(i - 1) // 50:05d}:{i}"
                                                    for i in range(1, 601)}


@pytest.mark.parametrize("argv, key", [
    (["lm", "train", "--set", "lm.input=NOWHERE/bt", "--set", "lm.output=s3://paralib-gone/lm"],
     "lm.output"),
    (["classifier", "train", "--set", "classifier.input=NOWHERE/bt",
      "--set", "classifier.output=s3://paralib-gone/clf"], "classifier.output"),
    (["analyze", "--set", "analyze.input=NOWHERE/sc",
      "--set", "analyze.output=s3://paralib-gone/an"], "analyze.output"),
    (["mine", "NOWHERE/a.txt", "NOWHERE/b.txt", "--output", "s3://paralib-gone/mine"],
     "mine.output"),
    (["captions", "--limit", "10", "--output", "s3://paralib-gone/captions"], "--output"),
    (["encode", "--model", "NOWHERE/model", "--input", "NOWHERE/a.txt",
      "--output", "s3://paralib-gone/enc"], "encode.output"),
], ids=["lm", "classifier", "analyze", "mine", "captions", "encode"])
def test_every_stage_names_a_missing_bucket_before_any_work(server, tmp_path, capsys, argv,
                                                            key):
    """The stages outside Ray Data check the buckets of the config (and of their flags)
    first too: the input (missing here) is never read and nothing is written."""
    argv = [a.replace("NOWHERE", str(tmp_path / "nowhere")) for a in argv]
    code = main([*argv, *[a for o in _overrides(server.url) for a in ("--set", o)]])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"s3://paralib-gone ({key}): no such bucket at {server.url}" in err
    assert not (tmp_path / "nowhere").exists()
