"""Ownership of output folders: a marker says which stage and inputs made a folder, another
stage never writes into it, other inputs need ``overwrite``, which deletes only what the
marker lists, and one writer holds a folder at a time (a dead holder never blocks)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from paralib.io.ownership import (
    LOCK,
    OWNER,
    OtherInputsError,
    OutputBusyError,
    OutputLock,
    OutputOwnedError,
    check_overlap,
    claim,
    read_owner,
)
from paralib.io.stage import clear_output

HOLD = """
import sys, time
from paralib.io.ownership import OutputLock
lock = OutputLock(sys.argv[1], "encode").acquire()
print("held", flush=True)
time.sleep(60)
"""


def _try(*args, **kwargs) -> None:
    """Claim an output and let it go at once."""
    with claim(*args, **kwargs):
        pass


def _made(out, parts=("c-00000",)) -> None:
    """What a stage leaves: parts, markers and a summary."""
    for key in parts:
        (out / "data" / key).mkdir(parents=True, exist_ok=True)
        (out / "data" / key / "part-abc-3.parquet").write_bytes(b"x")
        (out / "_markers").mkdir(exist_ok=True)
        (out / "_markers" / f"{key}.json").write_text("{}")
    (out / "_summary.json").write_text("{}")


def test_the_marker_records_stage_inputs_options_and_entries(tmp_path):
    out = tmp_path / "out"
    src = str(tmp_path / "a.txt")
    with claim(str(out), "encode", {"encode.inputs[0]": src}, {"dtype": "float16"}) as own:
        _made(out)
    marker = json.loads((out / OWNER).read_text())
    assert marker["stage"] == "encode" and marker["options"] == {"dtype": "float16"}
    assert marker["inputs"] == own.inputs == [src] and marker["pid"] == own.pid
    assert {"data", "rejects", "_markers", "_summary.json"} <= set(marker["entries"])
    assert read_owner(str(out)).stage == "encode"


def test_another_stage_never_writes_into_or_clears_an_output(tmp_path):
    out = tmp_path / "out"
    with claim(str(out), "mine", {"mine.src": "a", "mine.tgt": "b"}):
        _made(out)
    for overwrite in (False, True):
        with pytest.raises(OutputOwnedError, match=r"is an output of `paralib mine`; "
                                                   r"`paralib encode` never writes"):
            _try(str(out), "encode", {"encode.inputs[0]": "x.txt"}, overwrite=overwrite)
    assert (out / "data" / "c-00000" / "part-abc-3.parquet").exists()


def test_other_inputs_need_overwrite_which_deletes_only_what_was_written(tmp_path):
    out = tmp_path / "out"
    with claim(str(out), "encode", {"encode.inputs[0]": "a.txt"}):
        _made(out, ("a-00000", "a-00001"))
    (out / "data" / "README.txt").write_text("the user's")
    (out / "data" / "a-00000" / "notes.md").write_text("the user's too")
    with pytest.raises(OtherInputsError, match=r"made from other inputs \(.*a\.txt; now "
                                               r".*b\.txt\): use another output folder, or "
                                               r"--overwrite"):
        _try(str(out), "encode", {"encode.inputs[0]": "b.txt"})
    assert len(list((out / "data").glob("*/part-*.parquet"))) == 2  # untouched
    with claim(str(out), "encode", {"encode.inputs[0]": "b.txt"}, overwrite=True):
        assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()
                      ) == [LOCK, OWNER, "data/README.txt", "data/a-00000/notes.md"]
    assert read_owner(str(out)).inputs[0].endswith("/b.txt")
    # the same inputs resume (a smaller or a repeated run), no overwrite needed
    _try(str(out), "encode", {"encode.inputs[0]": "b.txt"})


def test_clear_output_keeps_a_users_file_inside_data(tmp_path):
    out = tmp_path / "out"
    _made(out)
    (out / "data" / "README.txt").write_text("keep")
    clear_output(str(out), None)
    assert (out / "data" / "README.txt").read_text() == "keep"
    assert not (out / "data" / "c-00000").exists() and not (out / "_markers").exists()


def test_an_output_that_is_or_holds_an_input_is_refused(tmp_path):
    enc = tmp_path / "enc"
    for out, inputs in ((enc, {"mine.src": str(tmp_path / "a"), "mine.tgt": str(enc)}),
                        (tmp_path, {"mine.src": str(enc), "mine.tgt": str(enc)}),
                        (enc / "mined", {"mine.src": str(enc), "mine.tgt": "b"}),
                        (tmp_path, {"mine.src": f"{tmp_path}/*.txt", "mine.tgt": "b"})):
        with pytest.raises(OutputOwnedError, match=rf"^mine.output {out} is also an input "
                                                   r"\(mine.(src|tgt) "):
            check_overlap(str(out), inputs, "mine.output")
    check_overlap(str(tmp_path / "out"), {"encode.inputs[0]": f"{tmp_path}/*.txt"})
    check_overlap("s3://b/out", {"mine.src": "s3://b/out2", "mine.tgt": "out"})
    with pytest.raises(OutputOwnedError, match="is also an input"):
        check_overlap("s3://b/out", {"mine.src": "s3://b/out/data/x.parquet"})
    enc.mkdir()
    (enc / "_summary.json").write_text("{}")  # a stage output as the input, and the output
    with pytest.raises(OutputOwnedError, match="a stage never writes into its own input"):
        _try(str(enc), "mine", {"mine.src": str(enc), "mine.tgt": "b"})
    assert sorted(p.name for p in enc.iterdir()) == ["_summary.json"]  # untouched


def test_an_output_below_a_file_is_refused_naming_it(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(OutputOwnedError, match=r"notes.txt/out: a parent folder \(.*notes.txt"
                                               r"\) is a file, not a folder"):
        _try(str(tmp_path / "notes.txt" / "out"), "encode", {})


def test_a_second_writer_is_refused_naming_the_holder_and_a_dead_one_never_blocks(tmp_path):
    out = tmp_path / "out"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(OutputBusyError, match=rf"output {out} is being written by another "
                                                  rf"run \(paralib encode, pid {holder.pid} "):
            _try(str(out), "encode", {"encode.inputs[0]": "a.txt"})
    finally:
        holder.kill()
        holder.wait()
    assert json.loads((out / LOCK).read_text())["pid"] == holder.pid  # a stale file ...
    with claim(str(out), "encode", {"encode.inputs[0]": "a.txt"}):  # ... does not block
        assert json.loads((out / LOCK).read_text())["pid"] != holder.pid
    with OutputLock(str(out)), pytest.raises(OutputBusyError):
        OutputLock(str(out)).acquire()  # one writer, even within one process


def test_a_run_that_fails_before_any_work_leaves_no_marker(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="Ray is not there"), \
            claim(str(out), "encode", {"encode.input": str(tmp_path / "in.txt")}):
        raise RuntimeError("Ray is not there")
    assert {p.name for p in out.iterdir()} <= {".paralib-lock"}  # no marker, no data
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "data").mkdir()
    with pytest.raises(RuntimeError), claim(str(kept), "encode", {"encode.input": "x"}):
        raise RuntimeError("fails")
    assert (kept / ".paralib-output.json").is_file()  # not a new output: its marker stays


def test_a_refused_second_writer_leaves_the_first_writers_output_alone(tmp_path):
    out = tmp_path / "out"
    with claim(str(out), "encode", {"encode.input": "a.txt"}):
        with pytest.raises(OutputBusyError), claim(str(out), "encode",
                                                   {"encode.input": "a.txt"}):
            pass
        assert (out / ".paralib-output.json").is_file()
        (out / "data").mkdir()


def test_overwrite_deletes_only_the_stages_own_entries_whatever_the_marker_lists(tmp_path):
    out, victim = tmp_path / "out", tmp_path / "victim.txt"
    victim.write_text("the user's")
    with claim(str(out), "encode", {"encode.input": "a.txt"}):
        (out / "data").mkdir()
    marker = json.loads((out / ".paralib-output.json").read_text())
    marker["entries"] = ["../victim.txt", "data"]
    (out / ".paralib-output.json").write_text(json.dumps(marker))
    with claim(str(out), "encode", {"encode.input": "a.txt"}, overwrite=True):
        pass
    assert victim.read_text() == "the user's"
    (out / ".paralib-output.json").write_text("[1]")
    with pytest.raises(OutputOwnedError, match="not a paralib output marker"):
        read_owner(str(out))


def test_an_output_holding_a_glob_of_the_current_folder_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputOwnedError, match="also an input"):
        check_overlap(".", {"encode.input": "*.tsv"}, "encode.output")
    check_overlap("out", {"encode.input": "*.tsv"}, "encode.output")  # a folder below: fine
