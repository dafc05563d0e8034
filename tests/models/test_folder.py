"""Model folders: paralib replaces only a folder it made."""

from __future__ import annotations

import subprocess
import sys

import pytest

from paralib.models.errors import ModelFolderError
from paralib.models.folder import MARKER, check_replaceable, made_by_paralib, replace_with


def test_a_users_folder_is_never_replaced(tmp_path):
    mine = tmp_path / "thesis"
    mine.mkdir()
    (mine / "chapter1.tex").write_text("years of work")
    new = tmp_path / "new"
    new.mkdir()
    (new / "model.safetensors").write_bytes(b"x")
    with pytest.raises(ModelFolderError, match=f"{mine}.*not a model folder"):
        replace_with(new, mine)
    assert (mine / "chapter1.tex").read_text() == "years of work"
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep")
    with pytest.raises(ModelFolderError):
        check_replaceable(a_file)
    assert a_file.read_text() == "keep"


def test_a_paralib_folder_an_old_one_and_an_empty_one_are_replaced(tmp_path):
    ours, old, empty = tmp_path / "ours", tmp_path / "old", tmp_path / "empty"
    for d in (ours, old, empty):
        d.mkdir()
    (ours / MARKER).write_text("{}")
    (old / "config.json").write_text('{"format": "paralib-encoder"}')
    assert all(made_by_paralib(d) for d in (ours, old, empty))
    for target in (ours, old, empty):
        new = tmp_path / f"new-{target.name}"
        new.mkdir()
        (new / "weights").write_text(target.name)
        replace_with(new, target)
        assert (target / "weights").read_text() == target.name and not new.exists()


@pytest.mark.slow
def test_paralib_train_refuses_before_any_work(tmp_path):
    """``paralib train`` into a user's folder: one error line naming it, exit 2, the folder
    as it was (checked before the sources are read)."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "data.csv").write_text("a,b\n")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"train:\n  sources: [{{kind: sts}}]\n  output: {mine}\n")
    done = subprocess.run([sys.executable, "-m", "paralib", "train", "--config", str(cfg)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"{mine} exists and is not a model folder" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in mine.iterdir()) == ["data.csv"]
