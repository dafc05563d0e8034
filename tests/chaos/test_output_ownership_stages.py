"""Ownership of outputs for the stages that read bitext or a stage output (backtranslate,
score, decontaminate, captions), as for encode and mine: another stage's output is never
written into or cleared, ``overwrite`` or not; a run from other inputs needs ``overwrite``;
a smaller rerun of the same inputs is the same run; one writer holds an output at a time."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pandas as pd
import pytest

from paralib.cli import main
from paralib.config import load_config
from paralib.contracts import StageManifest
from paralib.corpora.captions import TASK2, write_caption_pairs
from paralib.decontaminate import stage as decontaminate
from paralib.filters import stage as score
from paralib.io.context import StageContext
from paralib.io.ownership import (
    OtherInputsError,
    OutputBusyError,
    OutputLock,
    OutputOwnedError,
    Owner,
    read_owner,
)
from paralib.io.shards import read_output, write_marker
from paralib.io.stage import OWN_ENTRIES, OWNER
from paralib.translate import backtranslate

STAGES = ["backtranslate", "score", "decontaminate", "captions"]


def _captions_root(root: Path) -> Path:
    """Five caption files of 10 images for ``train`` and ``val`` (other captions)."""
    base = root / TASK2
    base.mkdir(parents=True)
    for split in ("train", "val"):
        for k in range(1, 6):
            lines = [f"{split} image {i} caption {k} of a dog" for i in range(1, 11)]
            (base / f"{split}.{k}.en.gz").write_bytes(
                gzip.compress(("\n".join(lines) + "\n").encode()))
    return root


@pytest.fixture(scope="module")
def world(m30k, tmp_path_factory) -> dict:
    """What the stages read: caption files, a captions output (a stage output to score) and
    a CTranslate2 model folder whose files pass the checks made before the output is claimed
    (the run is refused before any model loads)."""
    root = tmp_path_factory.mktemp("stages")
    captions = _captions_root(root / "captions")
    pairs = root / "pairs"
    write_caption_pairs(str(pairs), "train", limit=10, shard_rows=4, root=captions)
    model = root / "ct2"
    model.mkdir()
    name = b"TransformerSpec\0"
    (model / "model.bin").write_bytes((6).to_bytes(4, "little") + len(name).to_bytes(2, "little")
                                      + name + b"\0" * 64)
    for spm in ("source.spm", "target.spm"):
        (model / spm).write_bytes(b"sentencepiece")
    bitext = (f"bitext.inputs=[{{corpus: c, src_lang: de, src: '{m30k['val_de']}', "
              f"en: '{m30k['val_en']}', limit: 20}}]")
    return {"captions": captions, "pairs": pairs, "model": model, "bitext": bitext}


def _run(stage: str, world: dict, out: Path, overwrite: bool = False) -> object:
    """Run ``stage`` into ``out`` as its function (the command line's code path)."""
    if stage == "captions":
        return write_caption_pairs(str(out), "train", limit=10, shard_rows=4,
                                   overwrite=overwrite, root=world["captions"])
    sets = {
        "backtranslate": [f"backtranslate.model={world['model']}", world["bitext"]],
        "score": [f"score.input={world['pairs']}", "score.scorers=[{type: length}]"],
        "decontaminate": [world["bitext"]],
    }[stage]
    cfg = load_config(None, [*sets, f"{stage}.output={out}",
                             f"{stage}.overwrite={str(overwrite).lower()}"])
    module = {"backtranslate": backtranslate, "score": score, "decontaminate": decontaminate}
    return module[stage].run(getattr(cfg, stage), StageContext.of(cfg, progress=False))


def _encode_output(out: Path, marker: bool = True) -> None:
    """A ``paralib encode`` output: a vectors part, its shard marker and summary, and (with
    ``marker``) ``.paralib-output.json``; without it, a folder of the earlier layout whose
    shard marker names its stage."""
    (out / "data" / "a-00000").mkdir(parents=True)
    pd.DataFrame({"id": ["a:00000:1", "a:00000:2"], "text": ["A dog.", "A cat."]}).to_parquet(
        out / "data" / "a-00000" / "part-00000.parquet")
    write_marker(str(out), "a-00000", StageManifest(rows_in=2, rows_out=2, hypotheses=2,
                                                    stage="encode", fingerprint="0" * 16))
    (out / "_summary.json").write_text(json.dumps({"stage": "encode", "rows_in": 2}))
    if marker:
        owner = Owner(stage="encode", inputs=[str(out.parent / "a.txt")],
                      entries=list(OWN_ENTRIES))
        (out / OWNER).write_bytes(owner.dump())


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("overwrite", [False, True], ids=["resume", "overwrite"])
@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_never_writes_into_an_encode_output(stage, overwrite, world, tmp_path):
    out = tmp_path / "vectors"
    _encode_output(out)
    before = _tree(out)
    with pytest.raises(OutputOwnedError,
                       match=rf"{out} is an output of `paralib encode`; `paralib {stage}` "
                             r"never writes into or clears another stage's output"):
        _run(stage, world, out, overwrite)
    assert _tree(out) == before  # not one file deleted, written or rewritten


@pytest.mark.parametrize("stage", STAGES)
def test_an_output_of_the_earlier_layout_is_known_by_its_markers(stage, world, tmp_path):
    """No ``.paralib-output.json``: the shard markers say which stage made the folder."""
    out = tmp_path / "vectors"
    _encode_output(out, marker=False)
    before = _tree(out)
    with pytest.raises(OutputOwnedError, match=r"is an output of `paralib encode`"):
        _run(stage, world, out, overwrite=True)
    assert _tree(out) == before


def test_score_overwrite_into_an_encode_output_is_one_message(world, tmp_path, capsys):
    out = tmp_path / "vectors"
    _encode_output(out)
    before = _tree(out)
    code = main(["score", "--no-progress", "--set", f"score.input={world['pairs']}",
                 "--set", f"score.output={out}", "--set", "score.overwrite=true"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"score.output {out} is an output of `paralib encode`" in err
    assert "Traceback" not in err
    assert _tree(out) == before


def test_score_into_its_own_input_is_refused(world, capsys):
    inside = world["pairs"] / "scored"
    code = main(["score", "--no-progress", "--set", f"score.input={world['pairs']}",
                 "--set", f"score.output={inside}"])
    assert code == 2
    assert (f"score.output {inside} is also an input (score.input {world['pairs']})"
            in capsys.readouterr().err)
    assert not inside.exists()


def test_captions_of_other_inputs_need_overwrite(world, tmp_path):
    out = tmp_path / "pairs"
    first = write_caption_pairs(str(out), "train", limit=10, shard_rows=4,
                                root=world["captions"])
    assert read_owner(str(out)).stage == "captions"
    with pytest.raises(OtherInputsError, match=rf"--output {out} holds the output of "
                                               r"`paralib captions` made from other inputs"):
        write_caption_pairs(str(out), "val", limit=10, shard_rows=4, root=world["captions"])
    ids = set(read_output(str(out)).column("id").to_pylist())
    assert len(ids) == first.rows_out == 40
    assert all(r.startswith("train image") for r in read_output(str(out)).column("ref")
               .to_pylist())
    report = write_caption_pairs(str(out), "val", limit=10, shard_rows=4, overwrite=True,
                                 root=world["captions"])
    assert report.shards_skipped == 0 and report.rows_out == 40
    assert all(r.startswith("val image") for r in read_output(str(out)).column("ref")
               .to_pylist())


def test_a_smaller_rerun_of_the_same_inputs_is_not_refused(world, tmp_path):
    out = tmp_path / "pairs"
    write_caption_pairs(str(out), "train", limit=10, shard_rows=4, root=world["captions"])
    report = write_caption_pairs(str(out), "train", limit=8, shard_rows=4,
                                 root=world["captions"])
    assert (report.shards, report.shards_skipped, report.rows_in) == (2, 2, 32)
    assert sorted(p.name for p in (out / "_markers").iterdir()) == [
        "multi30k-captions-00000.json", "multi30k-captions-00001.json"]
    assert read_output(str(out)).num_rows == 32


def test_a_second_concurrent_writer_is_refused(world, tmp_path):
    out = tmp_path / "pairs"
    lock = OutputLock(str(out), "captions").acquire()  # another run holds the output
    try:
        with pytest.raises(OutputBusyError,
                           match=rf"output {out} is being written by another run \(paralib "
                                 rf"captions, pid {os.getpid()} on "):
            write_caption_pairs(str(out), "train", limit=10, shard_rows=4,
                                root=world["captions"])
        assert not (out / "data").exists() and not (out / "_markers").exists()
    finally:
        lock.release()
    report = write_caption_pairs(str(out), "train", limit=10, shard_rows=4,
                                 root=world["captions"])
    assert report.rows_out == 40  # the lock of a finished run never blocks
