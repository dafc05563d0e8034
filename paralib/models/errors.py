"""Errors of the model folder, importable without torch (the CLI catches them)."""

from __future__ import annotations

import reprlib
from typing import TYPE_CHECKING

from paralib.errors import ConfigurationError, MissingError

if TYPE_CHECKING:
    from pydantic import ValidationError


class ModelLoadError(MissingError, ValueError):
    """A model folder is missing, incomplete or does not match its weights."""


class ModelFileError(ModelLoadError):
    """A file of a model folder holds something paralib did not write there (a wrong type, an
    unknown key, a size its weights do not have, a path leading out of the folder)."""

    hint = ("the model folder was changed after paralib wrote it: restore its files, or "
            "train or export the model again")


class ModelFolderError(ConfigurationError, ValueError):
    """An output folder that paralib did not make: it is never replaced."""


def one_line(exc: ValidationError, path: object, prefix: str = "") -> str:
    """A validation error of the file ``path`` as one line: every field (under ``prefix``)
    with what was expected and the value found. (No ``name:`` follows a file or field name:
    the redaction of printed errors masks what follows ``tokenizer.json:``.)"""
    fields = []
    for err in exc.errors():
        loc = prefix + ".".join(str(p) for p in err["loc"]) or "(top level)"
        if err["type"] == "extra_forbidden":
            fields.append(f"{loc} is an unknown key")
        else:
            fields.append(f"in {loc}, {err['msg']} (got {reprlib.repr(err.get('input'))})")
    return f"{path} is invalid: {'; '.join(fields)}"
