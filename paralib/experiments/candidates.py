"""The candidates of a tuned run: every combination of the tuned parameters' values
(:class:`paralib.experiments.spec.TuneSpec`, 2017 §5.5-5.7), how the table names one, and a
run's config with one candidate's values. Planning a tuned run
(:mod:`paralib.experiments.plan`) needs only these; making and choosing among the candidates
is :mod:`paralib.experiments.tuned`.
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

from paralib.config import Config
from paralib.experiments.spec import ExperimentError, TuneSpec
from paralib.paths import PROJECT_ROOT


def candidate_values(tune: TuneSpec, size: str) -> dict[str, list[Any]]:
    """Each parameter's candidate values: the space file's discrete domains, then the
    spec's ``parameters``, then those of ``sizes[size]`` (each replaces a whole parameter)."""
    values: dict[str, list[Any]] = {}
    if tune.space:
        from paralib.tune.space import SpaceError, read_space

        path = PROJECT_ROOT / tune.space if not tune.space.startswith("/") else tune.space
        try:
            space = read_space(path)
        except SpaceError as exc:
            raise ExperimentError(f"tune.space: {exc}") from None
        for p in space.params:
            if not p.discrete:
                raise ExperimentError(f"tune.space {tune.space}: parameter '{p.name}' is "
                                      f"{p.kind}; a tuned run needs discrete values (grid, "
                                      "choice, range)")
            values[p.name] = list(p.values or [])
    values.update(tune.parameters)
    values.update(tune.sizes.get(size, {}))  # type: ignore[call-overload]
    if not values:
        raise ExperimentError("tune: no parameters")
    return values


def candidates(tune: TuneSpec, size: str) -> list[dict[str, Any]]:
    """Every combination of the candidate values, in order."""
    values = candidate_values(tune, size)
    return [dict(zip(values, combo, strict=True)) for combo in itertools.product(*values.values())]


def _value_text(value: Any) -> str:
    if isinstance(value, float) and math.isinf(value):
        return "none"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value) if isinstance(value, (list, dict)) else str(value)


def label(params: dict[str, Any]) -> str:
    """``length_range [0, 10]``, ``cost_max 0.5``: a candidate as the table names it."""
    return ", ".join(f"{k} {_value_text(v)}" for k, v in params.items())


def apply_candidate(cfg: Config, params: dict[str, Any]) -> Config:
    """``cfg`` with one candidate's parameter values (``paralib tune``'s meanings)."""
    from paralib.tune.params import apply_parameters

    try:
        return apply_parameters(cfg, params)
    except ValueError as exc:
        raise ExperimentError(f"tune candidate {label(params)}: {exc}") from None
