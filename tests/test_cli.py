"""The command line: subcommands parse, errors exit 2 with a message, no traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

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
    out = tmp_path / "out"  # nothing written: at most the output's (released) lock file
    assert not out.exists() or {p.name for p in out.iterdir()} <= {".paralib-lock"}


def test_python_dash_m_prints_help():
    res = subprocess.run([sys.executable, "-m", "paralib", "--help"], capture_output=True,
                         text=True, check=True)
    for cmd in ("quickstart", "backtranslate", "mt"):
        assert cmd in res.stdout


def test_every_subcommand_has_a_description_and_an_example():
    from paralib.cli import EXAMPLES, build_parser, leaf_parsers

    leaves = leaf_parsers(build_parser())
    assert len(leaves) >= 20
    for path, parser in leaves:
        name = " ".join(path)
        assert parser.description, name
        assert name in EXAMPLES and parser.epilog.startswith("example:"), name
        assert EXAMPLES[name].startswith(f"paralib {name}"), name
        assert "--verbose" in parser.format_help(), name


def test_a_user_error_inside_ray_is_one_message(capsys):
    """A ParalibError wrapped by another exception (as Ray wraps a task's) is found and
    printed as one message with its hint, no traceback."""
    from paralib.cli import _report_error
    from paralib.io.bitext import BitextError

    inner = BitextError("in.de:3: not UTF-8")
    try:
        try:
            raise inner
        except BitextError as e:
            raise RuntimeError("task failed") from e
    except RuntimeError as outer:
        assert _report_error(outer, verbose=False, log_file=None) == 2
    err = capsys.readouterr().err
    assert err.startswith("paralib: error: in.de:3: not UTF-8\n  hint: ")
    assert "Traceback" not in err


def test_a_bug_is_one_line_and_its_traceback_goes_to_the_log(capsys, tmp_path, monkeypatch):
    import paralib.cli as cli

    def broken(args):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(cli, "run", broken)
    monkeypatch.setenv("PARALIB_LOG_DIR", str(tmp_path))
    assert cli.main(["select", "--config", "configs/quickstart.yaml"]) == 1
    err = capsys.readouterr().err
    assert "internal error (a bug in paralib" in err and "ZeroDivisionError" in err
    assert "Traceback" not in err
    log = next(tmp_path.glob("select-*/paralib.log")).read_text()
    assert "Traceback" in log and "ZeroDivisionError: division by zero" in log
    monkeypatch.setattr(cli, "run", broken)
    with pytest.raises(ZeroDivisionError):  # --verbose keeps the traceback
        cli.main(["select", "--verbose"])
