"""Fixtures for the tuning tests: a small scored set built here from real Multi30k task-2
captions (two captions of one image are a human paraphrase pair), scored by paralib's own
length, overlap and BLEU scorers, laid out as a stage output (``data/<shard>/part-*.parquet``)
so that the tests run on a clean clone where ``output/`` does not exist."""

from __future__ import annotations

import gzip
import json
import textwrap
from pathlib import Path

import pandas as pd
import pytest

CAPTIONS = "bitext/multi30k/task2/raw"
ROWS = 2000


def _captions(data_dir: Path, k: int, n: int) -> list[str]:
    with gzip.open(data_dir / CAPTIONS / f"train.{k}.en.gz", "rt", encoding="utf-8") as f:
        return [next(f).strip() for _ in range(n)]


@pytest.fixture(scope="session")
def scored_captions(tmp_path_factory, data_dir) -> Path:
    """A scored stage output of 2,000 caption pairs with len_trans, len_ref, overlap1..3 and
    bleu; returns its folder."""
    from paralib.filters import get_scorer

    ref, trans = _captions(data_dir, 1, ROWS), _captions(data_dir, 2, ROWS)
    df = pd.DataFrame({"id": [f"m30k-cap:00000:{i + 1}" for i in range(ROWS)],
                       "corpus": "m30k-cap", "src_lang": "en", "src": ref, "ref": ref,
                       "trans": trans, "rank": 0})
    df = df[(df["ref"].str.len() > 0) & (df["trans"].str.len() > 0)].reset_index(drop=True)
    for name in ("length", "overlap", "bleu"):
        scorer = get_scorer(name)
        ok = scorer.invalid(df) == ""
        df = df[ok].reset_index(drop=True)
        df = pd.concat([df, scorer.score(df).reset_index(drop=True)], axis=1)
    out = tmp_path_factory.mktemp("scored")
    part = out / "data" / "m30k-cap-00000"
    part.mkdir(parents=True)
    df.to_parquet(part / "part-00000.parquet", index=False)
    # a finished stage output: its summary is written last (paralib.io.shards refuses Parquet
    # parts without a completion marker)
    (out / "_summary.json").write_text(json.dumps({"stage": "score", "rows_out": len(df)}))
    return out


@pytest.fixture()
def space(tmp_path):
    """The smallest real search: two length ranges, a tiny SP encoder, one epoch."""
    from paralib.tune.space import read_space

    path = tmp_path / "lengths.yaml"
    path.write_text(textwrap.dedent("""
        description: two length ranges (2017 §5.5)
        name: lengths
        search: grid
        evaluate: [stsb]
        asha: {enabled: false}   # one epoch: nothing to stop early, and every trial completes
        set:
          select.size: 300
          train.model: {parts: [{name: sp, vocab_size: 400, dim: 16}]}
          train.megabatch: {size: 2}
          train.batch_size: 50
          train.epochs: 1
          train.cpus_per_worker: 0.5
        parameters:
          length_range: [[0, 14], [12, 100]]
    """))
    return read_space(path)


@pytest.fixture()
def space_config():
    """``space_config(space, scored, **sections)``: the base configuration of a search over
    ``scored`` with the space's ``set`` applied (``sections``: more config sections)."""
    from paralib.config import Config

    def make(space, scored, **sections) -> Config:
        tree: dict = {"select": {"input": str(scored)}, "train": {}, **sections}
        for key, value in space.spec.set.items():
            section, name = key.split(".", 1)
            tree[section][name] = value
        return Config.model_validate(tree)

    return make
