"""``paralib encode`` flags: a ``.npy`` output keeps the single-file in-process behaviour, an
output folder runs the Ray Data job (here in float16, two inputs, another language)."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import paralib
from paralib.encode import cli as encode_cli
from paralib.errors import ConfigurationError
from paralib.io.shards import read_output


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    encode_cli.add_parser(parser.add_subparsers(dest="command"))
    return encode_cli.run(parser.parse_args(["encode", *argv]))


def test_npy_output_is_the_single_file_encoder(tiny_encoder_dir, tmp_path, capsys):
    src = tmp_path / "in.txt"
    src.write_text("A dog runs.\n\nTwo men talk.\n")
    out = tmp_path / "v.npy"
    assert _run(["--model", str(tiny_encoder_dir), "--input", str(src), "--output",
                 str(out)]) == 0
    vecs = np.load(out)
    want = paralib.load(tiny_encoder_dir).encode(["A dog runs.", "", "Two men talk."])
    np.testing.assert_allclose(vecs, want, atol=1e-6)
    assert not vecs[1].any() and json.loads(capsys.readouterr().out)["empty_lines"] == 1
    for bad in (["--input", str(src), str(src)], ["--input", str(src), "--set", "x.y=1"]):
        with pytest.raises(ConfigurationError, match="exactly one --input"):
            _run(["--model", str(tiny_encoder_dir), "--output", str(out), *bad])


@pytest.mark.slow
def test_output_folder_runs_the_job_in_float16(ray_session, tiny_encoder_dir, en_text,
                                               tmp_path, capsys):
    for name, lines in (("one", en_text[:12]), ("two", en_text[12:19])):
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n")
    out = tmp_path / "enc"
    assert _run(["--model", str(tiny_encoder_dir), "--input", str(tmp_path / "one.txt"),
                 str(tmp_path / "two.txt"), "--lang", "deu", "--output", str(out),
                 "--dtype", "float16", "--no-progress", "--set", "encode.shard_rows=5"]) == 0
    assert "rows_in=19 = rows_out=19 + rows_rejected=0" in capsys.readouterr().out
    assert len(list((out / "_markers").glob("*.json"))) == 3 + 2
    part = next((out / "data").glob("*/*.parquet"))
    assert pq.read_schema(part).field("embedding").type == pa.list_(pa.float16(), 64)
    data = read_output(str(out)).to_pandas().sort_values("id")
    assert set(data["lang"]) == {"de"} and data["id"].is_unique
    got = np.stack(data["embedding"].to_numpy()).astype(np.float32)
    want = paralib.load(tiny_encoder_dir).encode(data["text"].tolist())
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-4)
    assert np.abs(got - want).max() > 0  # stored as float16, not float32
