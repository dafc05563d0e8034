"""Back-translation reading from and writing to a real S3 endpoint (moto server on 127.0.0.1)."""

from __future__ import annotations

import pytest

from paralib.config import load_config
from paralib.io.context import StageContext
from paralib.io.fs import S3Options, expand_glob
from paralib.io.shards import read_output
from paralib.translate import backtranslate

pytest.importorskip("moto.server")
boto3 = pytest.importorskip("boto3")


@pytest.fixture(scope="module")
def bucket(s3_endpoint, m30k):
    client = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1",
                          aws_access_key_id="testing", aws_secret_access_key="testing")
    client.create_bucket(Bucket="paralib-test")
    for key, local in (("val.de.gz", m30k["val_de"]), ("val.en.gz", m30k["val_en"])):
        with open(local, "rb") as f:
            client.put_object(Bucket="paralib-test", Key=f"bitext/{key}", Body=f.read())
    return client


@pytest.mark.slow
def test_backtranslate_s3_to_s3(ray_session, tiny_mt, s3_endpoint, bucket):
    s3 = [f"s3.endpoint_url={s3_endpoint}", "s3.access_key=testing", "s3.secret_key=testing"]
    cfg = load_config(None, s3 + [
        "bitext.inputs=[{corpus: m30k, src_lang: de, src: 's3://paralib-test/bitext/*.de.gz', "
        "en: 's3://paralib-test/bitext/val.en.gz', limit: 200}]",
        "bitext.shard_rows=100", f"backtranslate.model={tiny_mt}/ct2-int8",
        "backtranslate.output=s3://paralib-test/out/bt", "backtranslate.num_hypotheses=2",
        "backtranslate.max_decoding_length=40"])
    report = backtranslate.run(cfg.backtranslate, StageContext.of(cfg, progress=False))
    assert report.rows_in == 200 and report.rows_out == 200 and report.hypotheses == 400

    keys = [o["Key"] for o in bucket.list_objects_v2(Bucket="paralib-test",
                                                     Prefix="out/bt/")["Contents"]]
    assert "out/bt/_markers/m30k-00000.json" in keys and "out/bt/_summary.json" in keys
    assert sum(k.startswith("out/bt/data/m30k-00001/") for k in keys) >= 1
    table = read_output("s3://paralib-test/out/bt", "data", cfg.s3.options())
    assert table.num_rows == 400 and len(set(table.column("id").to_pylist())) == 200

    again = backtranslate.run(cfg.backtranslate, StageContext.of(cfg, progress=False))
    assert again.shards_skipped == 2


def test_s3_glob_and_missing(s3_endpoint, bucket):
    opts = S3Options(s3_endpoint, access_key="testing", secret_key="testing")
    assert expand_glob("s3://paralib-test/bitext/val.*.gz", opts) == [
        "s3://paralib-test/bitext/val.de.gz", "s3://paralib-test/bitext/val.en.gz"]
    with pytest.raises(FileNotFoundError, match="no input file matches"):
        expand_glob("s3://paralib-test/nothing/*.gz", opts)


@pytest.mark.slow
def test_train_checkpoints_to_s3(ray_session, s3_endpoint, bucket, tmp_path):
    """Ray Train's run storage (checkpoints) on an S3 endpoint: ``train.storage_path: s3://``."""
    from paralib.train.run import train

    cfg = load_config(None, [
        f"s3.endpoint_url={s3_endpoint}", "s3.access_key=testing", "s3.secret_key=testing",
        "train.sources=[{kind: sts, limit: 300}]", "train.decontaminate=false",
        "train.model={parts: [{name: sp, vocab_size: 300, dim: 16}]}",
        "train.epochs=1", "train.cpus_per_worker=0.5", "train.dev=none",
        "train.storage_path=s3://paralib-test/runs", "train.name=s3run",
        f"train.output={tmp_path / 'model'}"])
    summary = train(cfg.train, StageContext.of(cfg, progress=False))
    assert summary.run == "s3://paralib-test/runs/s3run"
    keys = [o["Key"] for o in bucket.list_objects_v2(Bucket="paralib-test",
                                                     Prefix="runs/s3run/")["Contents"]]
    assert any(k.endswith("/model/model.safetensors") for k in keys)
    assert (tmp_path / "model" / "model.safetensors").is_file()
