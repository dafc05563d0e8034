"""Selection: ``select`` applies a :class:`~paralib.select.config.SelectSpec` to scored pairs,
``run`` reads, selects and writes (2017 §3.2 and §4.2; see :mod:`paralib.select`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from paralib.contracts import SelectionReport
from paralib.io.context import StageContext
from paralib.select import steps
from paralib.select.config import SelectSpec
from paralib.select.files import read_pairs, write_selection
from paralib.select.steps import SelectError


def exclude_heldout(df: pd.DataFrame, heldout: pd.DataFrame) -> pd.DataFrame:
    """Drop rows whose reference (``corpus``/``id``, as text) is in ``heldout``."""
    keys = [c for c in ("corpus", "id") if c in df.columns and c in heldout.columns]
    if "id" not in keys:
        raise SelectError("an exclude file needs an 'id' column shared with the pairs, got "
                          f"{', '.join(map(str, heldout.columns))}")
    drop = pd.MultiIndex.from_frame(heldout[keys].astype(str).drop_duplicates())
    mine = pd.MultiIndex.from_frame(df[keys].astype(str))
    return df[~mine.isin(drop)]


def select(data: pd.DataFrame | pa.Table, spec: SelectSpec,
           excluded: list[pd.DataFrame] | None = None) -> tuple[pd.DataFrame, dict]:
    """Apply ``spec`` to scored pairs; returns the selected rows and the report.

    ``excluded`` are the held-out references (read from ``spec.exclude`` by
    :func:`run`). The report holds the spec, the seed, and per step the rows in, the
    rows kept and the values chosen (bounds, fold value ranges, noise pools).
    """
    df = data.to_pandas() if isinstance(data, pa.Table) else data
    # candidate paraphrases have ``trans``; mined bitext (``paralib mine``) has ``src``
    # instead, and only labelled output pairs ``ref`` with ``trans``
    needed = ["ref", *(["trans"] if spec.labelled else []), *[b.column for b in spec.bounds]]
    steps.require(df, needed, "selection bounds")
    for name, part in (("folds", spec.folds), ("noise", spec.noise)):
        if part is not None:
            steps.require(df, [part.column], f"selection {name}")
    rng = np.random.default_rng(spec.seed)
    log: list[dict] = [{"step": "input", "kept": len(df)}]
    for table in excluded or []:
        df = exclude_heldout(df, table)
        log.append({"step": "exclude", "kept": len(df)})
    df = steps.apply_bounds(df, spec.bounds, log)
    df = steps.choose_hypotheses(df, spec.hypotheses, rng, log)
    if spec.folds is not None:
        df = steps.keep_folds(df, spec.folds, rng, log)
    if spec.noise is not None:
        df = steps.noise_mix(df, spec.noise, spec.size, rng, log)
    elif spec.size is not None:
        df = steps.sample(df, spec.size, rng, log)
    if spec.labelled:
        df = steps.labelled(df, rng, log)
    report = {"seed": spec.seed, "rows_in": log[0]["kept"], "rows_out": len(df), "steps": log,
              "spec": spec.model_dump(mode="json")}
    return df.reset_index(drop=True), report


def run(spec: SelectSpec, ctx: StageContext) -> SelectionReport:
    """Read ``spec.input``, select, write to ``spec.output``; returns the report.
    Every ``s3://`` bucket of ``ctx.config`` is checked before any work."""
    ctx.check_buckets()
    excluded = [read_pairs(p, ctx.storage) for p in spec.exclude]
    df, report = select(read_pairs(spec.input, ctx.storage), spec, excluded)
    files = write_selection(df, report, spec.output, ctx.storage)
    return SelectionReport.load({**report, "files": files})
