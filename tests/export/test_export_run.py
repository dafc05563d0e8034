"""What ``paralib export`` may write over: only an earlier export's folder (its own marker) or an
empty one, never a trained model, a file or a user's folder, never the model itself; what it
writes has the umask's modes, as training output does."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from paralib.export import ExportError, export
from paralib.export.run import EXPORT_MARKER
from paralib.models.folder import MARKER
from paralib.paths import models_root

pytest.importorskip("model2vec")
pytest.importorskip("sentencepiece")


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    """A copy of the shipped ``paralib-en`` (the source of every export here)."""
    return Path(shutil.copytree(models_root() / "paralib-en",
                                tmp_path_factory.mktemp("src") / "paralib-en"))


def _listing(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_size for p in folder.rglob("*")}


def _main_error(capsys, *argv: str) -> str:
    from paralib.cli import main

    assert main(["export", *argv, "--to", "model2vec"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("paralib: error: ") and "Traceback" not in err
    return err.splitlines()[0]


def test_a_trained_model_is_never_replaced(model, tmp_path, capsys):
    multi = Path(shutil.copytree(models_root() / "paralib-multi", tmp_path / "paralib-multi"))
    before = _listing(multi)
    err = _main_error(capsys, str(model), str(multi))
    assert str(multi) in err and "paralib model folder" in err
    assert _listing(multi) == before
    # a `paralib train` output: its marker, no format in config.json
    trained = tmp_path / "trained"
    trained.mkdir()
    (trained / MARKER).write_text(json.dumps({"made_by": "paralib", "kind": "model"}))
    (trained / "model.safetensors").write_bytes(b"weights")
    with pytest.raises(ExportError, match="paralib model folder"):
        export(model, trained, "model2vec")
    assert (trained / "model.safetensors").read_bytes() == b"weights"


def test_only_an_earlier_export_is_replaced(model, tmp_path):
    out = export(model, tmp_path / "m2v", "model2vec").out
    marker = json.loads((out / EXPORT_MARKER).read_text())
    assert marker["stage"] == "export" and marker["target"] == "model2vec"
    (out / "stale.txt").write_text("from the first export")
    export(model, out, "model2vec")
    assert not (out / "stale.txt").exists() and (out / "model.safetensors").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m2v"]  # nothing left beside it
    # a marker that says another stage does not count
    (out / EXPORT_MARKER).write_text(json.dumps({"made_by": "paralib", "stage": "train"}))
    with pytest.raises(ExportError, match="paralib did not make it"):
        export(model, out, "model2vec")
    assert (out / "model.safetensors").is_file()


def test_the_model_folder_and_its_parents_are_refused(model, tmp_path):
    inner = Path(shutil.copytree(model / "tokenizers", tmp_path / "a" / "model" / "tokenizers"))
    shutil.copy(model / "config.json", inner.parent)
    shutil.copy(model / "model.safetensors", inner.parent)
    for out in (inner.parent, inner.parent / "st", tmp_path / "a"):
        with pytest.raises(ExportError, match="is, holds or lies inside the model folder"):
            export(inner.parent, out, "model2vec")
    assert (inner.parent / "model.safetensors").is_file()


def test_out_under_a_file_is_one_message(model, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    for out in (tmp_path / "file" / "m2v", tmp_path / "file" / "sub" / "m2v"):
        err = _main_error(capsys, str(model), str(out))
        assert str(out) in err and f"{tmp_path / 'file'}, which is a file" in err
        assert "Errno" not in err and "FileExistsError" not in err
    err = _main_error(capsys, str(model), str(tmp_path / "file"))
    assert f"{tmp_path / 'file'} is a file" in err
    assert (tmp_path / "file").read_text() == "x"


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_modes_follow_the_umask(model, tmp_path, umask):
    old = os.umask(umask)
    try:
        out = export(model, tmp_path / "m2v", "model2vec").out
    finally:
        os.umask(old)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in [out, *out.rglob("*")]}
    assert modes.pop("m2v") == 0o777 & ~umask
    assert "model.safetensors" in modes
    assert modes == dict.fromkeys(modes, 0o666 & ~umask)
