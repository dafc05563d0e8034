"""``paralib encode --output FILE.npy``: a line that cannot be read is a reject with its
reason (a zero row, ``FILE.rejects.parquet``, counted), as in an output folder; an existing
file is replaced only with ``--overwrite``."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq

import paralib
from paralib.cli import main


def test_an_undecodable_line_is_a_reject_not_a_bug(tiny_encoder_dir, tmp_path, capsys):
    src = tmp_path / "in.txt"
    src.write_bytes(b"A dog runs.\n\xc3\x28 not UTF-8\n\nTwo men talk.\nNUL\x00here\n")
    out = tmp_path / "v.npy"
    assert main(["encode", "--model", str(tiny_encoder_dir), "--input", str(src),
                 "--output", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    vecs = np.load(out)
    assert vecs.shape == (5, 64)  # row i is line i
    want = paralib.load(tiny_encoder_dir).encode(["A dog runs.", "Two men talk."])
    np.testing.assert_allclose(vecs[[0, 3]], want, atol=1e-6)
    assert not vecs[[1, 2, 4]].any()
    rejects = pq.read_table(tmp_path / "v.rejects.parquet").to_pandas()
    assert rejects["line"].tolist() == [2, 5]
    assert rejects["reason"].str.startswith("undecodable bytes").iloc[0]
    assert rejects["reason"].str.startswith("NUL bytes").iloc[1]
    assert summary["rows_rejected"] == 2 and summary["empty_lines"] == 1
    assert sum(summary["reasons"].values()) == 2
    assert summary["rejects"] == str(tmp_path / "v.rejects.parquet")


def test_an_existing_file_is_replaced_only_with_overwrite(tiny_encoder_dir, tmp_path, capsys):
    src = tmp_path / "in.txt"
    src.write_text("A dog runs.\n")
    out = tmp_path / "thesis.npy"
    out.write_bytes(b"years of work")
    args = ["encode", "--model", str(tiny_encoder_dir), "--input", str(src), "--output",
            str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"--output {out}: {out} exists; paralib encode does not replace a file unless " \
           "--overwrite" in err
    assert out.read_bytes() == b"years of work"
    assert main([*args, "--overwrite"]) == 0
    assert np.load(out).shape == (1, 64)
    assert main(["encode", "--model", str(tiny_encoder_dir), "--input", str(src),
                 "--output", str(src.with_suffix(".npy")), "--overwrite"]) == 0
    capsys.readouterr()
    same = tmp_path / "same.npy"
    np.save(same, np.zeros(3))
    assert main(["encode", "--model", str(tiny_encoder_dir), "--input", str(same),
                 "--output", str(same), "--overwrite"]) == 2
    assert "is also an input (--input" in capsys.readouterr().err
