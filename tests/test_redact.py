"""Secrets are never printed: ``paralib config``, config errors and log lines mask them."""

from __future__ import annotations

import logging
import subprocess
import sys

from paralib.redact import MASK, RedactingFilter, redact, redact_text

KEY_ID, SECRET = "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paralib", *args], capture_output=True,
                          text=True, timeout=120, check=False)


def test_paralib_config_masks_credentials(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"s3:\n  access_key: {KEY_ID}\n  secret_key: {SECRET}\n"
                   f"  endpoint_url: http://user:{SECRET}@127.0.0.1:9000\n")
    done = _run("config", "--config", str(cfg))
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout and KEY_ID not in done.stdout
    assert "secret_key: '***'" in done.stdout and "http://***@127.0.0.1:9000" in done.stdout
    assert "region: us-east-1" in done.stdout   # the rest is printed as it is


def test_config_errors_mask_the_secret_they_quote(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"s3:\n  secret_key: [{SECRET}]\n  endpoint_url: ftp://me:{SECRET}@x\n")
    done = _run("config", "--config", str(cfg))
    assert done.returncode == 2
    assert "s3.secret_key" in done.stderr and "s3.endpoint_url" in done.stderr
    assert SECRET not in done.stderr and SECRET not in done.stdout


def test_text_trees_and_log_records():
    assert redact_text(f"s3://{KEY_ID}:{SECRET}@bucket/x") == "s3://***@bucket/x"
    assert redact_text(f"failed with aws_secret_access_key={SECRET} here") == \
        "failed with aws_secret_access_key=*** here"
    assert redact_text(f"id {KEY_ID}") == "id ***"
    assert redact_text("s3://bucket/path and key=3") == "s3://bucket/path and key=3"
    tree = {"s3": {"secret_key": SECRET, "access_key": None, "region": "eu"},
            "inputs": [{"src": f"https://u:{SECRET}@h/f.gz"}], "api_token": 5}
    assert redact(tree) == {"s3": {"secret_key": "***", "access_key": None, "region": "eu"},
                            "inputs": [{"src": "https://***@h/f.gz"}], "api_token": "***"}
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "reading %s failed",
                               (f"s3://{KEY_ID}:{SECRET}@b/k",), None)
    RedactingFilter().filter(record)
    assert SECRET not in record.getMessage() and "s3://***@b/k" in record.getMessage()


def test_secrets_in_a_traceback_are_masked_in_the_log_and_on_the_terminal(tmp_path, capsys,
                                                                          monkeypatch):
    import paralib.cli as cli
    from paralib.errors import InputError

    url = f"http://user:{SECRET}@127.0.0.1:9000"

    def connect(args):
        logging.getLogger("paralib.io").warning("retrying %s", url)
        try:
            raise ConnectionError(f"Could not connect to the endpoint URL: {url}/bucket")
        except ConnectionError as exc:
            logging.getLogger("paralib.io").exception("reading failed")
            raise RuntimeError(f"aws_secret_access_key={SECRET} refused") from exc

    def user_error(args):
        raise InputError(f"{url}/bucket/in.tsv: not found") from ConnectionError(url)

    monkeypatch.setenv("PARALIB_LOG_DIR", str(tmp_path))
    for n, run in enumerate((connect, user_error)):
        monkeypatch.setattr(cli, "run", run)
        assert cli.main(["select", "--config", "configs/quickstart.yaml"]) == 1 + n
        err = capsys.readouterr().err
        assert "http://***@127.0.0.1:9000" in err and SECRET not in err
    logs = [p.read_text() for p in sorted(tmp_path.glob("select-*/paralib.log"))]
    assert len(logs) == 2 and all("Traceback" in log for log in logs)
    assert "ConnectionError: Could not connect to the endpoint URL: http://***@127.0.0.1" \
        in logs[0] and "aws_secret_access_key=***" in logs[0]
    assert "InputError: http://***@127.0.0.1:9000/bucket/in.tsv" in logs[1]
    assert not any(SECRET in log or "user:" in log for log in logs)


def test_verbose_tracebacks_are_masked(capsys):
    from paralib.redact import redacting_excepthook

    try:
        raise RuntimeError(f"endpoint http://user:{SECRET}@host:9000")
    except RuntimeError as exc:
        redacting_excepthook(type(exc), exc, exc.__traceback__)
    err = capsys.readouterr().err
    assert "Traceback" in err and "http://***@host:9000" in err and SECRET not in err


def test_summary_is_bounded_and_masks_what_it_cuts():
    from paralib.redact import summary

    url = f"http://user:{SECRET}@127.0.0.1:9000/"
    nested: list = ["lol"] * 10
    for _ in range(7):  # 10**8 strings, shared: a repr would expand every one
        nested = [nested] * 10
    for value in (url + "x" * 5000, [url] * 1000, {"s3": {"secret_key": SECRET, "url": url}},
                  nested, {"k": nested}):
        text = summary(value)
        assert len(text) <= 200 and SECRET not in text and SECRET[:12] not in text, text
    assert summary({"secret_key": SECRET}) == "{'secret_key': ***}"
    assert summary([1, "two", 3.0]) == "[1, 'two', 3.0]"
    assert summary(nested).startswith("[[[[...], [...], ")


def test_the_tokenisers_words_are_not_taken_for_secrets():
    text = ("models/x/tokenizer.json: vocab_size is 'lots'; tokenizers: 2; "
            "model.parts.0.max_tokens: 30; tokens: sp")
    assert redact_text(text) == text
    assert redact_text("tokens_per_batch: 300") == "tokens_per_batch: 300"
    masked = redact_text("token: abc session_token=def auth_token: ghi access_tokens=jkl "
                         "GITHUB_TOKENS: mno Authorization: pqr")
    for secret in ("abc", "def", "ghi", "jkl", "mno", "pqr"):
        assert secret not in masked
    assert redact({"tokens": "sp", "github_token": "x"}) == {"tokens": "sp",
                                                            "github_token": MASK}
