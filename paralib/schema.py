"""The base of every config section (kept apart from :mod:`paralib.config` so that stage
subpackages can declare their own section classes without import cycles)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """Base for config sections: unknown keys are errors, values are type-checked."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, validate_default=True)
