"""Checks run before any trial starts: every parameter value applied to the base
configuration, the columns the selection needs present in the scored pairs, a metric the
trials report on a development set (:mod:`paralib.tune.metric`), evaluation suites that
exist. Errors name the space file and the key."""

from __future__ import annotations

import itertools
import math
import random
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from paralib.config import Config
from paralib.io import fs
from paralib.paths import expand
from paralib.tune.metric import check_metric, tune_metric
from paralib.tune.params import apply_parameters, uses_selection
from paralib.tune.space import Param, Space, SpaceError


def grid_points(space: Space, seed: int) -> list[dict[str, Any]]:
    """The grid's points (the cross product of the discrete domains, repeated ``samples``
    times) in a random order: ASHA compares a trial with those that reached the same epoch
    before it, so a grid ordered from weak to strong settings would stop nothing."""
    for p in space.params:
        if not p.discrete:
            raise SpaceError(
                f"{space.path}: parameters.{p.name}: grid search needs discrete values "
                f"({p.kind} is continuous); use grid, choice or range, or --search random "
                "or optuna")
    names = [p.name for p in space.params]
    points = [dict(zip(names, combo, strict=True))
              for combo in itertools.product(*(p.values for p in space.params))]
    points = points * space.spec.samples
    random.Random(seed).shuffle(points)
    return points


def _probe_values(p: Param) -> list[Any]:
    if p.discrete:
        return list(p.values or [])
    if p.kind == "randint":
        return [int(p.low), int(p.high)]
    return [p.low, p.high]


def probe_points(space: Space) -> list[dict[str, Any]]:
    """Points that cover every value (or both ends) of every parameter, the others at their
    first value: enough to find a value the configuration rejects."""
    first = {p.name: _probe_values(p)[0] for p in space.params}
    return [{**first, p.name: v} for p in space.params for v in _probe_values(p)]


def _errors(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(x) for x in e['loc']) or 'config'}: {e['msg']}"
                     for e in exc.errors())


def _is_path(annotation: Any) -> bool:
    if typing.get_origin(annotation) is typing.Annotated:
        return any(getattr(m, "func", None) is expand for m in annotation.__metadata__)
    return any(_is_path(a) for a in typing.get_args(annotation))


def _absolute(value: Any) -> Any:
    if isinstance(value, str) and value and "://" not in value and Path(value).exists():
        return str(Path(value).resolve())
    if isinstance(value, list):
        return [_absolute(v) for v in value]
    return value


def absolute_paths(cfg: BaseModel) -> dict[str, Any]:
    """The configuration as a tree with every existing relative path field made absolute
    (Tune runs each trial in its own working directory)."""
    tree: dict[str, Any] = {}
    for name, info in type(cfg).model_fields.items():
        value = getattr(cfg, name)
        if isinstance(value, BaseModel):
            tree[name] = absolute_paths(value)
        elif isinstance(value, list) and value and isinstance(value[0], BaseModel):
            tree[name] = [absolute_paths(v) for v in value]
        elif _is_path(info.annotation) or any(getattr(m, "func", None) is expand
                                              for m in info.metadata):
            tree[name] = _absolute(value)
        else:
            tree[name] = value
    return tree


def _scored_columns(path: str, cfg: Config) -> set[str]:
    s3 = cfg.s3.options()
    if path.endswith(".parquet") or any(ch in path for ch in "*?["):
        files = fs.expand_glob(path, s3)
    elif fs.exists(fs.join(path, "pairs.parquet"), s3):
        files = [fs.join(path, "pairs.parquet")]
    else:
        files = fs.expand_glob(fs.join(path, "data", "*", "*.parquet"), s3)
    if not files:
        raise FileNotFoundError(path)
    import pyarrow.parquet as pq

    filesystem, inner = fs.resolve(files[0], s3)
    return set(pq.read_schema(inner, filesystem=filesystem).names)


def _found(path: str, cfg: Config) -> bool:
    """Whether a file or folder is at ``path`` (local or ``s3://``)."""
    import pyarrow.fs as pafs

    filesystem, inner = fs.resolve(path, cfg.s3.options())
    return filesystem.get_file_info(inner).type != pafs.FileType.NotFound


def _needed_columns(cfg: Config) -> set[str]:
    sel = cfg.select
    return {b.column for b in sel.bounds} | {part.column for part in (sel.folds, sel.noise)
                                              if part is not None}


def space_selects(space: Space, base: Config) -> bool:
    """Whether the trials of ``space`` on ``base`` run ``paralib select`` (the searched
    parameters and the ``set:`` keys, :func:`paralib.tune.params.uses_selection`)."""
    return uses_selection(base, [p.name for p in space.params] + list(space.spec.set))


def validate_space(space: Space, base: Config, search: str) -> list[dict[str, Any]]:
    """Check ``space`` against ``base`` before anything starts; returns the grid points
    (shuffled) for a grid search, else ``[]``. Raises :class:`SpaceError`."""
    where = str(space.path)
    metric = tune_metric(space.spec.metric, base.train.dev)
    check_metric(metric, base.train.dev, where)
    space.spec = space.spec.model_copy(update={"metric": metric})
    from paralib.evaluate.run import resolve_suites

    try:
        resolve_suites(space.spec.evaluate)
    except ValueError as exc:
        raise SpaceError(f"{where}: evaluate: {exc}") from None
    points = grid_points(space, space.spec.seed) if search == "grid" else []
    configs = []
    for point in points or probe_points(space):
        try:
            configs.append(apply_parameters(base, point))
        except ValidationError as exc:
            raise SpaceError(f"{where}: parameters {_show(point)}: the configuration rejects "
                             f"these values: {_errors(exc)}") from None
        except ValueError as exc:
            raise SpaceError(f"{where}: parameters {_show(point)}: {exc}") from None
    for cfg in configs:  # a parameter or set: key may change train.dev
        check_metric(metric, cfg.train.dev, where)
    if not space_selects(space, base):  # the trials train on train.sources as they are
        for cfg in configs:
            for src in cfg.train.sources:
                if src.path and src.kind in ("pairs", "corpus") and \
                        not _found(src.path, cfg):
                    raise SpaceError(f"{where}: train.sources: no {src.kind} at {src.path} "
                                     "(a corpus comes from paralib decontaminate)")
        return points
    try:
        have = _scored_columns(base.select.input, base)
    except FileNotFoundError:
        raise SpaceError(f"{where}: select.input: no scored pairs at {base.select.input} "
                         "(run paralib score first, or set select.input)") from None
    for cfg in configs:
        missing = sorted(_needed_columns(cfg) - have)
        if missing:
            raise SpaceError(f"{where}: the selection needs column(s) {', '.join(missing)}, "
                             f"which the scored pairs in {base.select.input} do not have "
                             "(add the scorer that computes them)")
    return points


def _show(point: dict[str, Any]) -> str:
    def fmt(v: Any) -> str:
        return "inf" if isinstance(v, float) and math.isinf(v) else repr(v)
    return "{" + ", ".join(f"{k}: {fmt(v)}" for k, v in point.items()) + "}"
