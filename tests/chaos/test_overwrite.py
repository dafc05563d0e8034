"""``overwrite: true`` deletes only what a stage wrote, never a folder paralib did not make."""

from __future__ import annotations

import pytest

from paralib.cli import main
from paralib.io.stage import StageError, check_output, clear_output


def test_clear_output_keeps_what_paralib_did_not_write(tmp_path):
    out = tmp_path / "stage"
    (out / "data" / "c-00000").mkdir(parents=True)
    (out / "data" / "c-00000" / "part-0.parquet").write_bytes(b"x")
    (out / "_markers").mkdir()
    (out / "_summary.json").write_text("{}")
    (out / "_scorers.json").write_text("{}")
    clear_output(str(out), None, extra=("_scorers.json",))
    assert out.is_dir() and list(out.iterdir()) == []
    interrupted = tmp_path / "interrupted"  # a first run killed before any marker
    (interrupted / "data").mkdir(parents=True)
    assert check_output(str(interrupted), None) == ["data"]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    with pytest.raises(StageError, match=r"holds files that paralib did not write \(thesis.tex"):
        clear_output(str(mine), None)
    assert (mine / "thesis.tex").read_text() == "years of work"


def test_backtranslate_overwrite_refuses_a_users_folder(tmp_path, capsys, m30k):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    code = main(["backtranslate", "--set", f"backtranslate.output={mine}",
                 "--set", "backtranslate.overwrite=true", "--set",
                 f"bitext.inputs=[{{corpus: c, src_lang: de, src: '{m30k['val_de']}', "
                 f"en: '{m30k['val_en']}'}}]"])
    assert code == 2
    assert "holds files that paralib did not write (notes.txt)" in capsys.readouterr().err
    assert (mine / "notes.txt").read_text() == "keep me"
