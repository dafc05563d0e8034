"""The data root: ``$PARALIB_DATA`` when set, and a value that is no folder is one message,
never a silent fall back to ``../shared/data``."""

from __future__ import annotations

import pytest

from paralib.paths import DataNotFoundError, data_root


@pytest.mark.parametrize("kind", ["file", "missing"])
def test_paralib_data_that_is_no_folder_is_an_error(tmp_path, monkeypatch, kind):
    value = tmp_path / "data"
    if kind == "file":
        value.write_text("not a folder")
    monkeypatch.setenv("PARALIB_DATA", str(value))
    with pytest.raises(DataNotFoundError) as exc:
        data_root()
    message = str(exc.value)
    assert message.startswith(f"PARALIB_DATA={value}: ")
    assert ("is a file" if kind == "file" else "does not exist") in message
    assert "expected the paralib data folder" in message


def test_the_command_line_says_it_in_one_message(tmp_path, monkeypatch, capsys):
    from paralib.cli import main

    (tmp_path / "data").write_text("not a folder")
    monkeypatch.setenv("PARALIB_DATA", str(tmp_path / "data"))
    item = ("bitext.inputs=[{corpus: x, src_lang: de, src: '{data}/a.de', "
            "en: '{data}/a.en'}]")
    assert main(["config", "--set", item]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"paralib: error: PARALIB_DATA={tmp_path / 'data'}: is a file")
    assert "Traceback" not in err and len(err.splitlines()) == 2  # the message and its hint


def test_a_folder_is_the_data_root(tmp_path, monkeypatch):
    monkeypatch.setenv("PARALIB_DATA", str(tmp_path))
    assert data_root() == tmp_path.resolve()
