"""The base of every config section (kept apart from :mod:`paralib.config` so that stage
subpackages can declare their own section classes without import cycles)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict

from paralib.paths import expand

ExpandedPath = Annotated[str, AfterValidator(expand)]
"""A path field: ``{data}``, ``{models}``, ``~`` and environment variables are expanded."""


class Strict(BaseModel):
    """Base for config sections: unknown keys are errors, values are type-checked."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, validate_default=True)


def read_yaml(path: Path, error: type[Exception]) -> Any:
    """The parsed YAML of ``path``; a syntax error raises ``error`` naming the file."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise error(f"{path}: not valid YAML: {exc}") from exc
