"""A rerun with other options into the same output folder is one clear
message (exit 2, no traceback) that says how to start fresh, and leaves the output alone."""

from __future__ import annotations

import pytest

from paralib.cli import main
from paralib.io.shards import read_output


@pytest.mark.slow
def test_rerun_with_other_options_is_one_message(tiny_mt, m30k, tmp_path, capsys):
    out = tmp_path / "bt"
    args = ["backtranslate", "--no-progress", "--set", f"backtranslate.model={tiny_mt}/ct2-int8",
            "--set", f"backtranslate.output={out}", "--set", "bitext.shard_rows=50",
            "--set", "backtranslate.max_decoding_length=20",
            "--set", f"bitext.inputs=[{{corpus: m30k, src_lang: de, src: '{m30k['train_de']}', "
                     f"en: '{m30k['train_en']}', limit: 100}}]"]
    assert main(args) == 0
    rows = read_output(str(out)).num_rows
    capsys.readouterr()
    assert main(args + ["--set", "backtranslate.beam_size=2"]) == 2
    err = capsys.readouterr().err
    assert "was made from another input or with other options" in err
    assert "beam_size: 4 -> 2" in err  # the key that differs, as a reused train.name says
    assert "use another output folder or set overwrite: true" in err
    assert "Traceback" not in err
    assert read_output(str(out)).num_rows == rows  # nothing of the first run was touched
