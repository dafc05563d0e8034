"""Search-space files (``tune/spaces/*.yaml``): parameters, their domains and the search.

A space file names the parameters and their values, the search (grid, random or a
model-based searcher), the metric, ASHA early stopping and fixed settings::

    description: 2017 §5.5 length ranges
    search: grid                    # grid | random | optuna
    set: {train.epochs: 20, select.size: 24000}
    parameters:
      length_range: {grid: [[0, 10], [0, 15], [10, 30]]}
      lr: {loguniform: [1.0e-4, 1.0e-2]}

A domain is one of ``grid`` / ``choice`` (a list of values; a bare list means ``grid``),
``range: [start, stop, step]`` (both ends included), ``uniform: [lo, hi]``,
``loguniform: [lo, hi]`` or ``randint: [lo, hi]`` (both ends included). Every problem (an
unknown parameter or key, an empty range, a value the configuration rejects) is a
:class:`SpaceError` naming the file and the key, raised before any trial starts.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from paralib.config import Config
from paralib.errors import ConfigurationError
from paralib.overrides import check_key
from paralib.schema import Strict, read_yaml
from paralib.tune.params import UnknownParameter, check_parameter

DISCRETE = ("grid", "choice", "range")
CONTINUOUS = ("uniform", "loguniform", "randint")
SEARCHES = ("grid", "random", "optuna")
METRICS = {"dev_score": "max", "dev_pearson": "max", "loss": "min"}


class SpaceError(ConfigurationError, ValueError):
    """A search-space file is invalid (the message names the file and the key)."""


class AshaSpec(Strict):
    """ASHA early stopping (asynchronous successive halving) over epochs; ``max_t`` is the
    largest number of epochs a trial can run."""

    enabled: bool = True
    grace_period: int = Field(default=1, ge=1)
    reduction_factor: float = Field(default=2.0, gt=1)


class SpaceFile(Strict):
    """The schema of a space file."""

    description: str = ""
    name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]+$")
    search: Literal["grid", "random", "optuna"] = "grid"
    samples: int = Field(default=1, ge=1)
    # None: the dev set's own (dev_pearson on an STS set, else dev_score), resolved by
    # paralib.tune.validate.validate_space against the configuration
    metric: Literal["dev_score", "dev_pearson", "loss"] | None = None
    seed: int = 0
    storage_path: str = "output/tune"
    concurrent: int | None = Field(default=None, ge=1)
    trial_cpus: float = Field(default=1.0, ge=1)
    asha: AshaSpec = Field(default_factory=AshaSpec)
    evaluate: list[str] = Field(default_factory=lambda: ["sts", "stsb"])
    set: dict[str, Any] = Field(default_factory=dict)
    parameters: dict[str, Any] = Field(min_length=1)


@dataclass
class Param:
    """One searched parameter: ``values`` for a discrete domain, ``low``/``high`` for a
    continuous one (``kind``: grid, uniform, loguniform or randint)."""

    name: str
    kind: str
    values: list[Any] | None = None
    low: float | None = None
    high: float | None = None

    @property
    def discrete(self) -> bool:
        return self.values is not None

    def labels(self) -> list[Any]:
        """The values as Ray Tune sees them (lists and mappings as JSON text)."""
        return [encode(v) for v in self.values or []]


@dataclass
class Space:
    """A validated space file."""

    path: Path
    spec: SpaceFile
    params: list[Param]

    @property
    def name(self) -> str:
        return self.spec.name or self.path.stem

    @property
    def mode(self) -> str:
        return METRICS[self.spec.metric or "dev_score"]

    def decode(self, config: dict[str, Any]) -> dict[str, Any]:
        """A trial's Tune config back to parameter values (JSON text to lists)."""
        return {p.name: decode(config[p.name]) for p in self.params}


def encode(value: Any) -> Any:
    """Lists and mappings become JSON text: Tune's variant generator and Optuna's
    categorical distributions take scalars only."""
    return json.dumps(value) if isinstance(value, (list, tuple, dict)) else value


def decode(value: Any) -> Any:
    """Inverse of :func:`encode`."""
    if isinstance(value, str) and value[:1] in "[{":
        return json.loads(value)
    return value


def _range(values: Any) -> list[float]:
    if not isinstance(values, list) or len(values) != 3:
        raise ValueError("range takes [start, stop, step]")
    start, stop, step = (float(v) for v in values)
    if step <= 0:
        raise ValueError(f"range step must be positive, got {step:g}")
    n = math.floor((stop - start) / step + 1e-9) + 1
    out = [round(start + i * step, 10) for i in range(max(n, 0))]
    if all(float(v).is_integer() for v in values):
        out = [int(v) for v in out]
    return out


def parse_domain(name: str, raw: Any) -> Param:
    """One parameter's domain; raises ``ValueError`` with what is wrong."""
    if isinstance(raw, list):
        raw = {"grid": raw}
    if not isinstance(raw, dict) or len(raw) != 1:
        kinds = ", ".join(DISCRETE + CONTINUOUS)
        raise ValueError(f"give exactly one of {kinds} (or a list of values), got {raw!r}")
    kind, value = next(iter(raw.items()))
    if kind in ("grid", "choice"):
        if not isinstance(value, list):
            raise ValueError(f"{kind} takes a list of values, got {value!r}")
        if not value:
            raise ValueError(f"empty range: {kind} has no values")
        labels = [encode(v) for v in value]
        if len(set(map(repr, labels))) != len(labels):
            raise ValueError(f"{kind} repeats a value: {value}")
        return Param(name, "grid", values=list(value))
    if kind == "range":
        values = _range(value)
        if not values:
            raise ValueError(f"empty range: {value} has no values")
        return Param(name, "grid", values=values)
    if kind in CONTINUOUS:
        if not isinstance(value, list) or len(value) != 2:
            raise ValueError(f"{kind} takes [low, high], got {value!r}")
        low, high = float(value[0]), float(value[1])
        empty = high < low if kind == "randint" else high <= low
        if empty:
            raise ValueError(f"empty range: {kind} [{value[0]}, {value[1]}]")
        if kind == "loguniform" and low <= 0:
            raise ValueError(f"loguniform needs a positive low end, got {value[0]}")
        if kind == "randint" and not (low.is_integer() and high.is_integer()):
            raise ValueError(f"randint takes integers, got {value}")
        return Param(name, kind, low=low, high=high)
    raise ValueError(f"unknown domain '{kind}' (known: {', '.join(DISCRETE + CONTINUOUS)})")


def read_space(path: str | Path) -> Space:
    """Read and check a space file's structure, parameter names and domains (the values are
    checked against a configuration by :func:`paralib.tune.validate.validate_space`)."""
    path = Path(path)
    if not path.is_file():
        raise SpaceError(f"search space file not found: {path}")
    raw = read_yaml(path, SpaceError)
    if not isinstance(raw, dict):
        raise SpaceError(f"{path}: the top level must be a mapping")
    try:
        spec = SpaceFile.model_validate(raw)
    except ValidationError as exc:
        lines = [f"{path}: invalid search space:"]
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
            msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
            lines.append(f"  {loc}: {msg}")
        raise SpaceError("\n".join(lines)) from None
    for key in spec.set:
        try:
            check_key(Config, key, "parameter")
        except UnknownParameter as exc:
            raise SpaceError(f"{path}: set.{key}: unknown configuration key: {exc}") from None
    params = []
    for name, raw_domain in spec.parameters.items():
        try:
            check_parameter(name)
            params.append(parse_domain(name, raw_domain))
        except ValueError as exc:  # UnknownParameter included
            raise SpaceError(f"{path}: parameters.{name}: {exc}") from None
    return Space(path, spec, params)
