"""The command line: subcommands parse, errors exit 2 with a message, no traceback."""

from __future__ import annotations

import subprocess
import sys

from paralib.cli import main


def test_bad_config_exits_2_with_message(capsys):
    assert main(["config", "--set", "bitext.shard_rows=0"]) == 2
    err = capsys.readouterr().err
    assert "bitext.shard_rows" in err and "greater than or equal to 1" in err


def test_missing_input_is_reported_before_work(capsys, tmp_path, tiny_mt):
    code = main(["backtranslate", "--set", f"backtranslate.model={tiny_mt}/ct2-int8",
                 "--set", f"backtranslate.output={tmp_path}/out", "--set",
                 "bitext.inputs=[{corpus: c, src_lang: de, src: /no/such.de, en: /no/such.en}]"])
    assert code == 2
    assert "bitext.inputs[0] (c): input file not found: /no/such.de" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_missing_model_is_reported(capsys, tmp_path):
    assert main(["backtranslate", "--set", f"backtranslate.model={tmp_path}"]) == 2
    assert "not a paralib translation model" in capsys.readouterr().err


def test_no_inputs_exits_2(capsys, tmp_path):
    assert main(["backtranslate", "--set", f"backtranslate.output={tmp_path}/out"]) == 2
    assert "backtranslate: no inputs configured (set bitext.inputs" in capsys.readouterr().err


def test_unreachable_ray_address_exits_2_before_work(tmp_path, m30k):
    import socket

    with socket.socket() as sock:  # a free port: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.run(
        [sys.executable, "-m", "paralib", "backtranslate", "--set", f"ray.address=127.0.0.1:{port}",
         "--set", f"backtranslate.output={tmp_path}/out", "--set",
         f"bitext.inputs=[{{corpus: c, src_lang: de, src: {m30k['val_de']}, "
         f"en: {m30k['val_en']}}}]"],
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert f"127.0.0.1:{port}" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_python_dash_m_prints_help():
    res = subprocess.run([sys.executable, "-m", "paralib", "--help"], capture_output=True,
                         text=True, check=True)
    for cmd in ("quickstart", "backtranslate", "mt"):
        assert cmd in res.stdout
