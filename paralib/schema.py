"""The base of every config section (kept apart from :mod:`paralib.config` so that stage
subpackages can declare their own section classes without import cycles)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

from paralib.paths import expand

ExpandedPath = Annotated[str, AfterValidator(expand)]
"""A path field: ``{data}``, ``{models}``, ``~`` and environment variables are expanded."""


class Strict(BaseModel):
    """Base for config sections: unknown keys are errors, values are type-checked."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, validate_default=True)
