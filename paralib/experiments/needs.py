"""Checking what an experiment or a run needs before anything runs."""

from __future__ import annotations

import importlib.util
import typing
from pathlib import Path

from paralib.experiments.spec import Need
from paralib.io.shards import SUMMARY, stopped_part_way
from paralib.paths import expand


def source_kinds() -> tuple[str, ...]:
    """The training source kinds ``paralib.train`` knows (``train.sources[].kind``)."""
    from paralib.train.config import SourceConfig

    return typing.get_args(SourceConfig.model_fields["kind"].annotation)


def unmet(need: Need) -> str | None:
    """``None`` when ``need`` is met, else what is missing and why.

    A path is met when it exists and, if it is a stage's output folder (one with shard
    markers), when that stage finished it (its ``_summary.json`` is written last).
    """
    if need.path is not None:
        path = Path(expand(need.path))
        if not path.exists():
            return f"{path} ({need.why})"
        if stopped_part_way(str(path)):
            return (f"{path} is unfinished: it has shard markers but no {SUMMARY}, which "
                    f"its stage writes last; run the stage again to finish it ({need.why})")
        return None
    if need.module is not None:
        try:
            found = importlib.util.find_spec(need.module) is not None
        except (ImportError, ValueError):
            found = False
        return None if found else f"module {need.module} ({need.why})"
    if need.source_kind is not None:
        kinds = source_kinds()
        return None if need.source_kind in kinds else (
            f"a '{need.source_kind}' training source (train.sources kinds are "
            f"{', '.join(kinds)}; {need.why})")
    return f"{need.todo} ({need.why})"


def unmet_all(needs: list[Need]) -> list[str]:
    """What is missing of ``needs``, in order."""
    return [m for m in map(unmet, needs) if m is not None]
