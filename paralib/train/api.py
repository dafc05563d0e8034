"""Training from Python on your own pairs, without a YAML file: :func:`fit`, a ``pairs``
source trained in process (:func:`paralib.train.run.train`, ``engine="local"``) with the margin
loss and mega-batched hardest negatives (2018 §4)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from paralib.config import ConfigError
from paralib.io.context import StageContext
from paralib.schema import format_errors
from paralib.train.config import TrainConfig


def _frame(pairs: Iterable[tuple[str, str]] | pd.DataFrame) -> pd.DataFrame:
    """``s1, s2`` (and ``group`` when given) of ``pairs``, every side checked to be text."""
    if isinstance(pairs, pd.DataFrame):
        missing = [c for c in ("s1", "s2") if c not in pairs.columns]
        if missing:
            raise ConfigError(f"fit(): the pairs DataFrame lacks column(s) {missing}; "
                              f"it has {list(map(str, pairs.columns))}, expected s1 and s2")
        df = pairs[[c for c in ("s1", "s2", "group") if c in pairs.columns]].copy()
    else:
        rows = []
        for i, pair in enumerate(pairs):
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise ConfigError(f"fit(): pair {i} is a {type(pair).__name__}; expected a "
                                  "(sentence, paraphrase) tuple of two strings")
            rows.append(pair)
        df = pd.DataFrame(rows, columns=["s1", "s2"])
    for col in ("s1", "s2"):
        bad = [i for i, v in enumerate(df[col]) if not isinstance(v, str)]
        if bad:
            raise ConfigError(f"fit(): {col} of pair {bad[0]} is a "
                              f"{type(df[col].iloc[bad[0]]).__name__}; expected a string "
                              f"({len(bad)} such pair(s))")
    return df


def fit(pairs: Iterable[tuple[str, str]] | pd.DataFrame, output: str | os.PathLike[str],
        **train: Any):
    """Train an encoder on ``pairs`` (``(sentence, paraphrase)`` tuples, or a DataFrame with
    ``s1``, ``s2`` and optionally ``group`` columns) and write it to ``output``; returns the
    loaded :class:`paralib.SentenceEncoder`.

    Keywords are ``train`` fields (``epochs``, ``batch_size``, ``lr``, ``dev``, ``model``,
    ``decontaminate``, ...). Pairs that share a sentence with an evaluation set are removed
    first (``decontaminate=False`` keeps them; the card says so).

    >>> import paralib, tempfile, os
    >>> pairs = [("A man plays a guitar.", "Someone is playing guitar."),
    ...          ("A dog runs in a field.", "A dog is running on grass."),
    ...          ("The stock market fell today.", "Shares dropped on Monday.")] * 20
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     model = paralib.fit(pairs, os.path.join(tmp, "model"), epochs=1, dev="none",
    ...                         batch_size=20, model={"parts": [{"dim": 16, "vocab_size": 200}]})
    ...     model.encode("A dog.").shape
    (16,)
    """
    from paralib.models.pretrained import load
    from paralib.train.run import train as run_training

    df = _frame(pairs)
    out = Path(output)
    with tempfile.TemporaryDirectory(prefix="paralib-fit-") as tmp:
        path = Path(tmp) / "pairs.parquet"
        df.to_parquet(path, index=False)
        section = {"sources": [{"kind": "pairs", "path": str(path), "s1_column": "s1",
                                "s2_column": "s2"}], "output": str(out), **train}
        try:
            tcfg = TrainConfig.model_validate(section)
        except ValidationError as exc:
            raise ConfigError(format_errors(exc, "paralib.fit()")) from None
        run_training(tcfg, StageContext(), engine="local")
    return load(out)
