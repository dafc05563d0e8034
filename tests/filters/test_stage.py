"""The scoring stage on Ray Data: score columns, counted rejects, early errors, resume."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from paralib.config import Config, load_config
from paralib.filters import stage
from paralib.filters.base import ScorerError
from paralib.io.context import StageContext
from paralib.io.shards import read_output, write_marker, write_part
from paralib.io.stage import StageReport
from paralib.mt.data import read_text


def score(cfg: Config) -> StageReport:
    """The stage on ``cfg.score`` and ``cfg``'s context, without progress bars."""
    return stage.run(cfg.score, StageContext.of(cfg, progress=False))


@pytest.fixture()
def candidates(tmp_path, m30k):
    """A stage output of 2 shards: real Multi30k pairs plus rows that cannot be scored."""
    refs = read_text(m30k["val_en"])[:120]
    rows = []
    for i, ref in enumerate(refs):
        trans = refs[i + 1] if i + 1 < len(refs) else refs[0]
        rows.append({"id": f"m:{i // 60:05d}:{i + 1}", "corpus": "m", "src_lang": "de",
                     "src": "x", "ref": ref, "trans": trans, "rank": 0, "cost": 0.5 + i / 100})
    rows[3]["trans"] = ""
    rows[70]["cost"] = float("nan")
    out = tmp_path / "bt"
    df = pd.DataFrame(rows)
    df["rank"] = df["rank"].astype(np.int32)
    for shard in (0, 1):
        key = f"m-{shard:05d}"
        part = df[df["id"].str.startswith(f"m:{shard:05d}:")]
        write_part(str(out), "data", key, pa.Table.from_pandas(part, preserve_index=False))
        write_marker(str(out), key, {"rows_in": len(part)})
    (out / "_summary.json").write_text("{}")  # a finished stage output
    return out


def config(candidates, tmp_path, scorers="[{type: length}, {type: cost}, {type: bleu}]"):
    return load_config(None, [f"score.input={candidates}", f"score.output={tmp_path}/sc",
                              f"score.scorers={scorers}"])


@pytest.mark.slow
def test_scores_and_rejects(ray_session, candidates, tmp_path):
    report = score(config(candidates, tmp_path))
    assert (report.rows_in, report.rows_out, report.rows_rejected) == (120, 118, 2)
    assert report.reasons == {"empty trans": 1, "cost is NaN": 1}
    data = read_output(f"{tmp_path}/sc").to_pandas()
    assert {"len_trans", "len_ref", "cost", "bleu"} <= set(data.columns)
    assert len(data) == 118 and data["bleu"].between(0, 1).all()
    rejects = read_output(f"{tmp_path}/sc", "rejects").to_pandas()
    assert sorted(rejects["line"]) == [4, 71]
    again = score(config(candidates, tmp_path))
    assert again.shards_skipped == 2 and again.rows_in == 120


def test_shard_of_only_rejects(ray_session, candidates, tmp_path):
    """An upstream shard whose every row was a reject has a marker but no data files."""
    write_marker(str(candidates), "m-00002", {"rows_in": 0})
    report = score(config(candidates, tmp_path))
    assert report.shards == 3 and report.rows_in == 120


def test_missing_column_fails_before_work(tmp_path):
    inp = tmp_path / "nocost"
    write_part(str(inp), "data", "m-00000", pa.table({"id": ["m:00000:1"], "ref": ["A dog."],
                                                      "trans": ["A dog runs."]}))
    write_marker(str(inp), "m-00000", {"rows_in": 1})
    (inp / "_summary.json").write_text("{}")
    with pytest.raises(ScorerError, match="scorer 'cost' needs column"):
        score(config(inp, tmp_path, "[{type: length}, {type: cost}]"))
    assert not (tmp_path / "sc").exists()


def test_unknown_scorer_is_a_config_error(candidates, tmp_path):
    from paralib.config import ConfigError

    with pytest.raises(ConfigError, match="unknown scorer 'blue'"):
        config(candidates, tmp_path, "[{type: blue}]")
