"""``paralib encode`` as a Ray Data job: sharded text in, Parquet vectors out, every line in
the output or in rejects exactly once, resumable after a crash, float16 or float32."""

from __future__ import annotations

import gzip

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import paralib
from paralib.config import Config, load_config
from paralib.encode import pipeline as stage
from paralib.encode.pipeline import EncodeError, actor_plan
from paralib.encode.read import file_name
from paralib.encode.vectors import VectorsError, read_vectors
from paralib.errors import ResourcesError
from paralib.io.bitext import BitextError
from paralib.io.context import StageContext
from paralib.io.shards import read_output
from paralib.io.stage import StageError, StageReport
from paralib.models.errors import ModelLoadError


def encode(cfg: Config) -> StageReport:
    """The stage on ``cfg.encode`` and ``cfg``'s context, without progress bars."""
    return stage.run(cfg.encode, StageContext.of(cfg, progress=False))


SHARD_ROWS = 8
MAX_CHARS = 200
# (line number, bytes) planted among the real sentences, and the reason each must get
BAD = [(3, b"\xc3\x28 not UTF-8", "undecodable bytes"), (7, b"   ", "empty line"),
       (12, b"NUL\x00inside", "NUL bytes"), (18, b"long " * 60, "line longer than 200")]


def _write_inputs(root, en_text):
    """``a/news.txt`` (27 lines, four bad ones planted) and ``b/news.txt.gz`` (30 lines)."""
    lines = [s.encode() for s in en_text[:23]]
    for lineno, raw, _ in BAD:
        lines.insert(lineno - 1, raw)
    (root / "a").mkdir(parents=True)
    (root / "a" / "news.txt").write_bytes(b"\n".join(lines) + b"\n")
    (root / "b").mkdir()
    with gzip.open(root / "b" / "news.txt.gz", "wb") as f:
        f.write(("\n".join(en_text[100:130]) + "\n").encode())
    return {"a.news": lines, "b.news": [s.encode() for s in en_text[100:130]]}


def _expected_ids(files):
    good, bad = set(), set()
    for name, lines in files.items():
        planted = {n for n, _, _ in BAD} if name == "a.news" else set()
        for n in range(1, len(lines) + 1):
            (bad if n in planted else good).add(f"{name}:{(n - 1) // SHARD_ROWS:05d}:{n}")
    return good, bad


def _config(model, pattern, out, *extra):
    return load_config(None, [f"encode.model={model}", f"encode.inputs=['{pattern}']",
                              f"encode.output={out}", f"encode.shard_rows={SHARD_ROWS}",
                              f"encode.max_chars={MAX_CHARS}", *extra])


@pytest.mark.slow
def test_every_line_once_vectors_match_and_resume(ray_session, tiny_encoder_dir, en_text,
                                                  tmp_path):
    files = _write_inputs(tmp_path / "in", en_text)
    out = tmp_path / "out"
    cfg = _config(tiny_encoder_dir, tmp_path / "in" / "*" / "news*", out)
    report = encode(cfg)
    good, bad = _expected_ids(files)
    assert report.rows_in == len(good) + len(bad) and report.rows_rejected == len(bad)
    assert report.shards == 8 and report.balanced()
    data = read_output(str(out)).to_pandas()
    rejects = read_output(str(out), "rejects").to_pandas()
    assert set(data["id"]) == good and data["id"].is_unique
    assert set(rejects["id"]) == bad and rejects["id"].is_unique
    by_line = dict(zip(rejects["line"], rejects["reason"], strict=True))
    for lineno, _, why in BAD:
        assert by_line[lineno].startswith(why)
    assert sum(report.reasons.values()) == len(bad)

    # the stored float32 vectors are the in-process encoder's, row for row
    want = paralib.load(tiny_encoder_dir).encode(data["text"].tolist())
    np.testing.assert_allclose(np.stack(data["embedding"].to_numpy()), want, atol=1e-6)
    assert (data["lang"] == "en").all()
    assert pq.read_schema(next((out / "data").glob("*/*.parquet"))).field(
        "embedding").type == pa.list_(pa.float32(), 64)

    # A crash part-way: two shards lost their markers and the totals are gone; one left a
    # stray part of an earlier attempt (its rows would be duplicates), the other wrote its
    # rejects but not its vectors.
    (out / "_summary.json").unlink()
    for key in ("a.news-00001", "b.news-00002"):
        (out / "_markers" / f"{key}.json").unlink()
    stray = data[data["id"].str.startswith("a.news:00001:")]
    pq.write_table(pa.Table.from_pandas(stray, preserve_index=False),
                   out / "data" / "a.news-00001" / "part-stray.parquet")
    for part in (out / "data" / "b.news-00002").glob("*.parquet"):
        part.unlink()
    with pytest.raises(VectorsError, match="unfinished"):
        read_vectors(str(out))  # nobody reads a half-written output as if it were whole

    again = encode(cfg)
    assert again.shards_skipped == 6 and again.rows_in == report.rows_in
    assert again.rows_rejected == len(bad) and again.reasons == report.reasons
    after = read_output(str(out)).to_pandas()
    assert after["id"].is_unique and set(after["id"]) == good
    assert set(read_output(str(out), "rejects").to_pandas()["id"]) == bad
    vec = read_vectors(str(out))
    assert set(vec.ids) == good and vec.matrix.shape == (len(good), 64)

    # the same output folder with other options is refused rather than mixed
    with pytest.raises(StageError, match="other options"):
        encode(_config(tiny_encoder_dir, tmp_path / "in" / "*" / "news*", out,
                       "encode.normalize=true"))
    # more actors than the embedded Ray's 2 CPUs hold fail at once instead of waiting
    with pytest.raises(ResourcesError, match="encode actor"):
        encode(_config(tiny_encoder_dir, tmp_path / "in" / "*" / "news*", tmp_path / "o4",
                       "encode.actors=4"))


@pytest.mark.slow
def test_s3_input_and_output(ray_session, tiny_encoder_dir, en_text, s3_endpoint, s3_options):
    client = s3_options.client()
    client.create_bucket(Bucket="paralib-encode")
    body = ("\n".join(en_text[:40]) + "\n\n").encode()  # 41 lines, the last one empty
    client.put_object(Bucket="paralib-encode", Key="text/part-1.txt", Body=body)
    s3 = [f"s3.endpoint_url={s3_endpoint}", "s3.access_key=testing", "s3.secret_key=testing"]
    cfg = _config(tiny_encoder_dir, "s3://paralib-encode/text/*.txt",
                  "s3://paralib-encode/out/enc", "encode.dtype=float16", *s3)
    report = encode(cfg)
    assert (report.rows_in, report.rows_out, report.rows_rejected) == (41, 40, 1)
    vec = read_vectors("s3://paralib-encode/out/enc", s3_options)
    assert vec.ids[0] == "part-1:00000:1" and vec.texts == en_text[:40]
    want = paralib.load(tiny_encoder_dir).encode(en_text[:40])
    np.testing.assert_allclose(vec.matrix, want, rtol=2e-3, atol=2e-4)  # float16
    assert encode(cfg).shards_skipped == report.shards


def test_bad_inputs_fail_before_any_work(tiny_encoder_dir, tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    (tmp_path / "x" / "t.txt").write_text("one\n")
    (tmp_path / "y" / "t.txt").write_text("two\n")
    with pytest.raises(EncodeError, match="encode.inputs"):
        encode(load_config(None, [f"encode.model={tiny_encoder_dir}"]))
    with pytest.raises(BitextError, match=r"encode.inputs\[0\]: no input file matches"):
        encode(_config(tiny_encoder_dir, tmp_path / "none*.txt", tmp_path / "o"))
    cfg = load_config(None, [f"encode.model={tiny_encoder_dir}", f"encode.output={tmp_path}/o",
                             f"encode.inputs=['{tmp_path}/x/t.txt', '{tmp_path}/y/t.txt']"])
    with pytest.raises(BitextError, match="distinct 'name'"):
        encode(cfg)
    with pytest.raises(ModelLoadError, match="no config.json"):
        encode(_config(tmp_path / "nomodel", tmp_path / "x" / "t.txt", tmp_path / "o"))
    # an output folder paralib did not write is refused and left as it was, overwrite or not
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(StageError, match="did not write"):
        encode(_config(tiny_encoder_dir, tmp_path / "x" / "t.txt", mine,
                       "encode.overwrite=true"))
    assert (mine / "notes.txt").read_text() == "keep me"


def test_model_file_names_are_the_model_folder_ones():
    from paralib.encode import pipeline
    from paralib.models import pretrained

    assert (pipeline.CONFIG, pipeline.WEIGHTS, pipeline.FORMAT) == (
        pretrained.CONFIG, pretrained.WEIGHTS, pretrained.FORMAT)


def test_file_names_and_actor_plan():
    assert file_name("/d/news/*.gz", "/d/news/2020/de.txt.gz") == "2020.de"
    assert file_name("/d/one file.txt", "/d/one file.txt", "web") == "web.one_file"
    assert file_name("s3://b/t/*/x.txt", "s3://b/t/a/x.txt") == "a.x"
    enc = load_config(None, []).encode
    assert actor_plan(enc, {"CPU": 16})["size"] == 16
    assert actor_plan(enc.model_copy(update={"num_cpus_per_actor": 2}), {"CPU": 16}) == {
        "device": "cpu", "num_gpus": 0, "num_cpus": 2, "threads": 2, "size": 8}
    gpu = actor_plan(enc, {"CPU": 16, "GPU": 4})
    assert (gpu["device"], gpu["size"], gpu["num_gpus"]) == ("cuda", 4, 1)
    assert actor_plan(enc.model_copy(update={"device": "cuda", "actors": 3}),
                      {"CPU": 2})["size"] == 3

