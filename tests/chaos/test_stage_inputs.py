"""A stage output is tied to the content of its inputs, a smaller rerun
leaves no stale shards behind, and every reader of a stage output refuses an unfinished one,
naming the stage that has to finish."""

from __future__ import annotations

import gzip
import os

import pandas as pd
import pytest

from paralib.cli import main
from paralib.config import Config, load_config
from paralib.decontaminate import stage
from paralib.filters.stage import input_shards
from paralib.io.context import StageContext
from paralib.io.fs import content_print
from paralib.io.shards import IncompleteOutputError, read_output, stage_files
from paralib.io.stage import StageError, StageReport
from paralib.select.files import read_pairs


def decontaminate(cfg: Config) -> StageReport:
    """The stage on ``cfg.decontaminate`` and ``cfg``'s context, without progress bars."""
    return stage.run(cfg.decontaminate, StageContext.of(cfg, progress=False))


def _texts(path: str, n: int) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [next(f) for _ in range(n)]


@pytest.fixture
def pair(m30k, tmp_path) -> dict[str, str]:
    """300 Multi30k validation pairs as two plain-text files of the user's."""
    paths = {"de": str(tmp_path / "in.de"), "en": str(tmp_path / "in.en")}
    for lang, key in (("de", "val_de"), ("en", "val_en")):
        with open(paths[lang], "w", encoding="utf-8") as f:
            f.writelines(_texts(m30k[key], 300))
    return paths


def _cfg(pair: dict[str, str], out, limit: int = 300):
    return load_config(None, [
        f"decontaminate.output={out}", "bitext.shard_rows=100",
        f"bitext.inputs=[{{corpus: c, src_lang: de, src: '{pair['de']}', en: '{pair['en']}', "
        f"limit: {limit}}}]"])


def test_content_print_sees_a_same_size_same_mtime_change(tmp_path):
    f = tmp_path / "a.txt"
    f.write_bytes(b"Ein Hund.\n" * 1000)
    before, stat = content_print(str(f)), os.stat(f)
    f.write_bytes(b"Ein Hund.\n" * 500 + b"Eine Kuh.\n" + b"Ein Hund.\n" * 499)
    os.utime(f, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same mtime
    assert os.stat(f).st_size == stat.st_size
    assert content_print(str(f)) != before
    big = tmp_path / "big.bin"  # above the full-hash size: size, mtime, head and tail
    big.write_bytes(os.urandom(1 << 16) * 600)
    first = content_print(str(big), full_below=1 << 20)
    with open(big, "r+b") as g:
        g.seek(-10, 2)
        g.write(b"0123456789")
    assert content_print(str(big), full_below=1 << 20) != first


@pytest.mark.slow
def test_a_replaced_input_is_noticed(ray_session, pair, tmp_path, capsys):
    out = tmp_path / "dc"
    decontaminate(_cfg(pair, out))
    first = read_output(str(out)).num_rows
    stat = os.stat(pair["en"])
    with open(pair["en"], "r+b") as f:  # one English sentence replaced, same bytes count
        data = f.read()
        f.seek(0)
        f.write(data.replace(b"loading cotton", b"loading barley", 1))
    os.utime(pair["en"], ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with pytest.raises(StageError, match=r"shard c-00000: its input changed .*in\.en"):
        decontaminate(_cfg(pair, out))
    assert read_output(str(out)).num_rows == first  # nothing of the first run was touched
    args = ["decontaminate", "--no-progress", "--set", f"decontaminate.output={out}",
            "--set", "bitext.shard_rows=100", "--set",
            f"bitext.inputs=[{{corpus: c, src_lang: de, src: '{pair['de']}', "
            f"en: '{pair['en']}', limit: 300}}]"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "its input changed" in err and "Traceback" not in err


@pytest.mark.slow
def test_a_smaller_rerun_leaves_no_stale_shards(ray_session, pair, tmp_path):
    out = tmp_path / "dc"
    decontaminate(_cfg(pair, out))
    assert sorted(p.name for p in (out / "data").iterdir()) == [
        "c-00000", "c-00001", "c-00002"]
    (out / "notes.txt").write_text("mine")  # the user's files are never deleted
    (out / "data" / "README.txt").write_text("mine too")
    report = decontaminate(_cfg(pair, out, limit=200))
    assert sorted(p.name for p in (out / "data").iterdir()) == [
        "README.txt", "c-00000", "c-00001"]
    assert sorted(p.name for p in (out / "_markers").iterdir()) == [
        "c-00000.json", "c-00001.json"]
    assert not (out / "rejects" / "c-00002").exists()
    data = read_output(str(out)).to_pandas()
    assert len(data) == report.rows_out and report.rows_in == 200
    assert data["id"].is_unique and len(read_pairs(str(out))) == report.rows_out
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "data" / "README.txt").read_text() == "mine too"


@pytest.mark.slow
def test_every_reader_refuses_an_unfinished_output(ray_session, pair, tmp_path, capsys):
    out = tmp_path / "dc"
    decontaminate(_cfg(pair, out))
    (out / "_summary.json").unlink()  # as a run killed before its last shard leaves it
    (out / "_markers" / "c-00002.json").unlink()
    message = r"unfinished output of `paralib decontaminate` \(2 of its shards complete"
    for read in (lambda: stage_files(str(out)), lambda: read_output(str(out)),
                 lambda: read_pairs(str(out)), lambda: input_shards(str(out), None)):
        with pytest.raises(IncompleteOutputError, match=message):
            read()
    assert main(["select", "--set", f"select.input={out}",
                 "--set", f"select.output={tmp_path / 'sel'}"]) == 2
    err = capsys.readouterr().err
    assert "run `paralib decontaminate` again to finish it" in err and "Traceback" not in err
    assert not (tmp_path / "sel").exists()
    bare = tmp_path / "bare"  # Parquet parts without a marker or a summary
    (bare / "data" / "x-00000").mkdir(parents=True)
    pd.DataFrame({"id": ["x"], "ref": ["A dog."]}).to_parquet(
        bare / "data" / "x-00000" / "part-0.parquet")
    with pytest.raises(IncompleteOutputError, match="no completion marker"):
        read_pairs(str(bare))
