"""A wrong or damaged file is one message naming the file, what was
expected and what was found; exit status 2 and no traceback from the command line."""

from __future__ import annotations

import gzip
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import paralib
from paralib.cli import main
from paralib.io.lines import CompressedInputError, count_lines, iter_lines
from paralib.io.parquet import ParquetInputError, read_parquet
from paralib.models.errors import ModelLoadError
from paralib.paths import models_root
from paralib.select.files import read_pairs
from paralib.translate.translator import CTranslate2ModelError, check_model_dir


def test_fake_and_truncated_gzip_name_the_file(tmp_path):
    fake = tmp_path / "fake.de.gz"
    fake.write_bytes(b"plain text with a .gz name\n")
    whole = gzip.compress(b"ein Satz\n" * 5000)
    cut = tmp_path / "cut.de.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    for path in (fake, cut):
        with pytest.raises(CompressedInputError, match=f"{path}: not a complete gzip file"):
            count_lines(str(path))
        with pytest.raises(CompressedInputError, match="expected gzip-compressed UTF-8"):
            list(iter_lines(str(path)))


def test_truncated_gzip_bitext_is_one_message_from_the_cli(tmp_path, capsys):
    whole = gzip.compress(b"ein Satz\n" * 5000)
    de, en = tmp_path / "x.de.gz", tmp_path / "x.en.gz"
    de.write_bytes(whole[: len(whole) // 2])
    en.write_bytes(gzip.compress(b"a sentence\n" * 5000))
    code = main(["decontaminate", "--set", f"decontaminate.output={tmp_path}/out", "--set",
                 f"bitext.inputs=[{{corpus: c, src_lang: de, src: '{de}', en: '{en}'}}]"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"paralib: error: {de}: not a complete gzip file" in err
    assert "Traceback" not in err


def test_not_parquet_and_wrong_columns(tmp_path):
    fake = tmp_path / "pairs.parquet"
    fake.write_text("id,src,en\n1,a,b\n")
    with pytest.raises(ParquetInputError, match=f"{fake}: not a readable Parquet file"):
        read_pairs(str(fake))
    good = tmp_path / "other.parquet"
    pq.write_table(pa.table({"a": [1], "b": ["x"]}), good)
    with pytest.raises(ParquetInputError, match=r"no column 'ref' \(it has a, b\)"):
        read_parquet(str(good), columns=["ref"], expected="scored pairs")
    assert read_parquet(str(good), columns=["b"]).column_names == ["b"]


def test_garbage_model_bin_is_refused_before_any_actor(tmp_path, capsys):
    bad = tmp_path / "bad-mt"
    shutil.copytree(models_root() / "de-en", bad)
    (bad / "model.bin").write_bytes(b"<html>not a model</html>" * 4)
    with pytest.raises(CTranslate2ModelError, match="not a CTranslate2 model"):
        check_model_dir(bad)
    code = main(["backtranslate", "--set", f"backtranslate.model={bad}",
                 "--set", f"backtranslate.output={tmp_path}/out"])
    err = capsys.readouterr().err
    assert code == 2 and f"{bad}/model.bin: not a CTranslate2 model" in err
    assert not (tmp_path / "out").exists()


def test_truncated_safetensors_names_the_file(tmp_path):
    bad = tmp_path / "enc"
    shutil.copytree(models_root() / "paralib-en", bad)
    weights = bad / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:4096])
    with pytest.raises(ModelLoadError, match=f"{weights}: not a readable safetensors file"):
        paralib.load(bad)
