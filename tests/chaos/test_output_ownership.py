"""Ownership of outputs by stage and run, through the command line: ``paralib encode`` and
``paralib mine`` never clear an input, another stage's output or another run's vectors;
one writer holds an output at a time; a bad output path, a ``nan`` threshold, vectors of two
models and file names with glob characters are one message each (exit 2), before Ray."""

from __future__ import annotations

import subprocess
import sys

import pytest

from paralib.cli import main
from paralib.config import load_config
from paralib.encode import pipeline as encoding
from paralib.encode.vectors import read_vectors
from paralib.io.context import StageContext
from paralib.io.shards import read_output

HOLD = """
import sys, time
from paralib.io.ownership import OutputLock
lock = OutputLock(sys.argv[1], "encode").acquire()
print("held", flush=True)
time.sleep(60)
"""


def _enc(model, inp, out, *more: str) -> list[str]:
    return ["encode", "--no-progress", "--model", str(model), "--input", str(inp),
            "--output", str(out), *more]


@pytest.fixture(scope="module")
def side(ray_session, tiny_encoder_dir, en_text, tmp_path_factory) -> dict:
    """``a.txt`` (30 sentences), ``b.txt`` (40) and ``c.txt`` (20), and the encode outputs
    ``A`` and ``B`` of the first two."""
    root = tmp_path_factory.mktemp("owned")
    for name, lines in (("a", en_text[:30]), ("b", en_text[30:70]), ("c", en_text[70:90])):
        (root / f"{name}.txt").write_text("\n".join(lines) + "\n")
    for name in ("a", "b"):
        cfg = load_config(None, [f"encode.model={tiny_encoder_dir}",
                                 f"encode.inputs=['{root}/{name}.txt']",
                                 f"encode.output={root}/{name.upper()}"])
        encoding.run(cfg.encode, StageContext.of(cfg, progress=False))
    return {"root": root, **{k: str(root / k) for k in ("A", "B")},
            **{k: str(root / f"{k}.txt") for k in ("a", "b", "c")}}


@pytest.mark.slow
def test_mine_into_its_own_input_is_refused(side, tmp_path, capsys):
    before = read_vectors(side["B"]).ids
    assert main(["mine", side["A"], side["B"], "--output", side["B"], "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"mine.output {side['B']} is also an input (mine.tgt {side['B']})" in err
    assert "Traceback" not in err
    assert read_vectors(side["B"]).ids == before and len(before) == 40


@pytest.mark.slow
def test_one_stage_never_clears_another_stages_output(side, tiny_encoder_dir, tmp_path,
                                                      capsys):
    mined = tmp_path / "mined"
    assert main(["mine", side["A"], side["B"], "--output", str(mined), "--no-progress"]) == 0
    pairs = read_output(str(mined)).num_rows
    assert pairs > 0
    capsys.readouterr()
    assert main(_enc(tiny_encoder_dir, side["c"], mined)) == 2  # encode into mined pairs
    err = capsys.readouterr().err
    assert "is an output of `paralib mine`; `paralib encode` never writes" in err
    assert read_output(str(mined)).num_rows == pairs
    assert main(_enc(tiny_encoder_dir, side["c"], mined, "--overwrite")) == 2  # not even so
    assert read_output(str(mined)).num_rows == pairs

    vectors = tmp_path / "vectors"  # and the reverse: mine into encoded vectors
    assert main(_enc(tiny_encoder_dir, side["c"], vectors)) == 0
    capsys.readouterr()
    assert main(["mine", side["A"], side["B"], "--output", str(vectors), "--no-progress"]) == 2
    assert "is an output of `paralib encode`; `paralib mine` never writes" in (
        capsys.readouterr().err)
    assert len(read_vectors(str(vectors)).ids) == 20


@pytest.mark.slow
def test_a_run_with_other_inputs_needs_overwrite(side, tiny_encoder_dir, tmp_path, capsys):
    out = tmp_path / "enc"
    assert main(_enc(tiny_encoder_dir, side["a"], out)) == 0
    (out / "data" / "README.txt").write_text("the user's notes")
    capsys.readouterr()
    assert main(_enc(tiny_encoder_dir, side["b"], out)) == 2
    err = capsys.readouterr().err
    assert f"encode.output {out} holds the output of `paralib encode` made from other " \
           f"inputs ({side['a']}; now {side['b']})" in err
    assert len(read_vectors(str(out)).ids) == 30  # the first run's vectors are all there
    assert main(_enc(tiny_encoder_dir, side["b"], out, "--overwrite")) == 0
    vec = read_vectors(str(out))
    assert len(vec.ids) == 40 and all(i.startswith("b:") for i in vec.ids)
    assert (out / "data" / "README.txt").read_text() == "the user's notes"  # not listed


@pytest.mark.slow
def test_a_second_concurrent_writer_is_refused(side, tiny_encoder_dir, tmp_path, capsys):
    out = tmp_path / "enc"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(_enc(tiny_encoder_dir, side["a"], out, "--dtype", "float16")) == 2
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err
    assert f"output {out} is being written by another run (paralib encode, pid " \
           f"{holder.pid} on " in err
    assert not (out / "data").exists()
    assert main(_enc(tiny_encoder_dir, side["a"], out, "--dtype", "float16")) == 0  # dead


def test_an_output_below_a_file_is_refused_before_ray(side, tiny_encoder_dir, tmp_path,
                                                      capsys, monkeypatch):
    from paralib.io.context import StageContext

    def no_ray(*_a, **_k):
        raise AssertionError("Ray was started")

    monkeypatch.setattr(StageContext, "init_ray", no_ray)
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    assert main(_enc(tiny_encoder_dir, side["a"], notes / "out")) == 2
    err = capsys.readouterr().err
    assert f"encode.output {notes}/out: a parent folder ({notes}) is a file, not a folder" in err
    assert "Traceback" not in err and notes.read_text() == "mine"


@pytest.mark.slow
def test_file_names_with_glob_characters_are_read_as_files(side, tiny_encoder_dir, en_text,
                                                           tmp_path, capsys):
    odd = tmp_path / "data[1].txt"
    odd.write_text("\n".join(en_text[:7]) + "\n")
    assert main(_enc(tiny_encoder_dir, odd, tmp_path / "one")) == 0
    assert len(read_vectors(str(tmp_path / "one")).ids) == 7
    assert main(_enc(tiny_encoder_dir, tmp_path / "data[[]1].txt", tmp_path / "two")) == 0
    assert len(read_vectors(str(tmp_path / "two")).ids) == 7
    capsys.readouterr()
    assert main(_enc(tiny_encoder_dir, tmp_path / "data[2].txt", tmp_path / "three")) == 2
    err = capsys.readouterr().err
    assert f"--input {tmp_path}/data[2].txt: no input file matches" in err
    assert "bitext.inputs" not in err


@pytest.mark.slow
def test_vectors_of_two_models_are_not_mined(side, tiny_encoder_dir, en_text, tmp_path,
                                             capsys):
    from paralib.models import random_encoder, save_model

    other = tmp_path / "other-model"  # the same size (64), other weights
    enc = random_encoder("word", en_text, vocab_size=6000, dim=64, seed=1, languages=("en",))
    save_model(enc.model, other, enc.languages, enc.info, "# another tiny encoder\n")
    assert main(_enc(other, side["b"], tmp_path / "B2")) == 0
    capsys.readouterr()
    out = tmp_path / "mined"
    assert main(["mine", side["A"], str(tmp_path / "B2"), "--output", str(out),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"encoded by model {tiny_encoder_dir} and mine.tgt ({tmp_path}/B2) was encoded " \
           f"by model {other}" in err
    assert not (out / "data").exists()


def test_a_nan_threshold_is_refused(side, tmp_path, capsys):
    out = tmp_path / "mined"
    assert main(["mine", side["A"], side["B"], "--output", str(out), "--threshold", "nan",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "mine.threshold" in err and "finite number" in err
    assert not out.exists()
