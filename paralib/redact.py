"""Credentials never printed: redaction of secret-like values in configs, errors and logs
(a log or an error report is shared; a secret in it is leaked).

A value is secret when its key names a credential (``secret_key``, ``access_key``,
``password``, ``token``, ``api_key``, ``credentials``, ``private_key``...), and inside any
text: the user and password of a URL (``s3://AKIA…:secret@host``), AWS access key ids, and
``key=value`` / ``key: value`` pairs whose key names a credential.
"""

from __future__ import annotations

import itertools
import logging
import re
import reprlib
import sys
import traceback
from types import TracebackType
from typing import Any

MASK = "***"
# the words that name a credential, in a config key or before "=" / ":" in a text; "token"
# and "X_tokens" (access_tokens), but not the tokeniser's words (tokenizer.json, tokenizers,
# tokens: sp, max_tokens, tokens_per_batch)
_WORDS = (r"secret|passw(?:or)?d|token(?!i[sz]|s\b|s_)|(?<!max)_tokens\b|api[_-]?key|"
          r"access[_-]?key|credential|private[_-]?key|session[_-]?key|authorization|bearer")
SECRET_KEY = re.compile(f"({_WORDS})", re.IGNORECASE)
# user[:password]@ after a scheme (a password may hold "/"; over-masking a path with "@"
# after a port is the safe side)
_URL_USER = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)(?P<user>[^/\s:@]+(:[^\s@]*)?)@",
                       re.IGNORECASE)
_AWS_ID = re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b")
_PAIR = re.compile(rf"(?P<key>[\w.-]*(?:{_WORDS})[\w.-]*)(?P<sep>['\"]?\s*[=:]\s*['\"]?)"
                   r"(?P<value>[^\s'\",}]+)", re.IGNORECASE)


def redact_text(text: str) -> str:
    """``text`` with URL credentials, AWS key ids and ``secret=...`` values masked."""
    text = _URL_USER.sub(lambda m: f"{m['scheme']}{MASK}@", text)
    text = _AWS_ID.sub(MASK, text)
    return _PAIR.sub(lambda m: f"{m['key']}{m['sep']}{MASK}", text)


def redact(value: Any, key: str = "") -> Any:
    """A copy of a config tree (dicts, lists, strings) with every secret value masked."""
    if isinstance(value, dict):
        return {k: redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, key) for v in value]
    if value is not None and key and SECRET_KEY.search(key):
        return MASK
    if isinstance(value, str):
        return redact_text(value)
    return value


SUMMARY_CHARS = 200
"""The most characters :func:`summary` gives for one value."""


class _Summary(reprlib.Repr):
    """``reprlib`` with secrets masked: each string before it is cut, each value under a
    credential key as a whole."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxtuple = self.maxlist = self.maxarray = self.maxdict = 6
        self.maxset = self.maxfrozenset = self.maxdeque = 6
        self.maxstring, self.maxlong, self.maxother = 80, 40, 80

    def repr_str(self, x: str, level: int) -> str:
        return super().repr_str(redact_text(x), level)

    def repr_dict(self, x: dict, level: int) -> str:
        if not x:
            return "{}"
        if level <= 0:
            return "{...}"
        pieces = [f"{self.repr1(key, level - 1)}: "
                  f"{MASK if SECRET_KEY.search(str(key)) else self.repr1(x[key], level - 1)}"
                  for key in itertools.islice(x, self.maxdict)]
        return "{" + ", ".join(pieces + ["..."] * (len(x) > self.maxdict)) + "}"


_SUMMARY = _Summary()


def summary(value: Any, limit: int = SUMMARY_CHARS) -> str:
    """A bounded ``repr`` of ``value`` for a message: at most ``limit`` characters, nested
    and long containers cut (``[[1, 2, ...], ...]``) without expanding them, secrets masked.
    """
    text = redact_text(_SUMMARY.repr(value))
    return text if len(text) <= limit else text[:limit - 3] + "..."


class RedactingFilter(logging.Filter):
    """A logging filter that masks secrets in every record's message."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact_text(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


class RedactingFormatter(logging.Formatter):
    """A logging formatter whose whole output is masked: the message, the traceback of
    ``exc_info`` (with its chained causes) and ``stack_info``; every handler of the command
    line's terminal and log files formats with one."""

    def format(self, record: logging.LogRecord) -> str:
        return redact_text(super().format(record))


def redacting_excepthook(kind: type[BaseException], exc: BaseException,
                         tb: TracebackType | None) -> None:
    """A :data:`sys.excepthook` that prints the traceback with secrets masked (the command
    line's ``--verbose`` leaves a bug's traceback to the interpreter)."""
    sys.stderr.write(redact_text("".join(traceback.format_exception(kind, exc, tb))))
