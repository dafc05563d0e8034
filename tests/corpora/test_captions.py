"""``paralib captions``: Multi30k task-2 caption pairs in the back-translation schema, scored
and selected like candidate pairs (2017 §5.3-5.7)."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest

from paralib.config import load_config
from paralib.corpora.captions import TASK2, write_caption_pairs
from paralib.filters import stage as scoring
from paralib.filters.base import get_scorer
from paralib.io.bitext import BitextError
from paralib.io.context import StageContext
from paralib.io.shards import read_output
from paralib.io.stage import StageError
from paralib.paths import PROJECT_ROOT
from paralib.select import run as selection
from paralib.translate.stages import OUTPUT_SCHEMA


def _first_lines(data_dir, n: int) -> list[list[str]]:
    caps = []
    for k in range(1, 6):
        with gzip.open(data_dir / TASK2 / f"train.{k}.en.gz", "rt", encoding="utf-8") as f:
            caps.append([next(f).strip() for _ in range(n)])
    return caps


def test_caption_pairs_have_the_backtranslation_columns(data_dir, tmp_path):
    out = str(tmp_path / "pairs")
    report = write_caption_pairs(out, "train", limit=10, shard_rows=4)
    assert (report.rows_in, report.rows_out, report.rows_rejected, report.shards) == (
        40, 40, 0, 3)
    table = read_output(out)
    assert table.schema.names == OUTPUT_SCHEMA.names
    assert table.schema.equals(OUTPUT_SCHEMA)
    df = table.to_pandas().set_index("id")
    caps = _first_lines(data_dir, 10)
    row = df.loc["multi30k-captions:00000:1:1"]
    assert (row["ref"], row["trans"]) == (caps[0][0], caps[1][0])
    row = df.loc["multi30k-captions:00002:10:4"]  # image 10 is in shard 2 (4 images each)
    assert (row["ref"], row["trans"]) == (caps[3][9], caps[4][9])
    assert df.index.is_unique
    assert (df["rank"] == 0).all() and df["cost"].isna().all() and df["src"].isna().all()
    assert set(df["corpus"]) == {"multi30k-captions"} and set(df["src_lang"]) == {"en"}
    again = write_caption_pairs(out, "train", limit=10, shard_rows=4)
    assert (again.shards_skipped, again.rows_out) == (3, 40)
    with pytest.raises(StageError, match="other options"):
        write_caption_pairs(out, "train", limit=11, shard_rows=4)  # the last shard grew


def _task2(root, captions: list[list[bytes]]) -> None:
    base = root / TASK2
    base.mkdir(parents=True)
    for k, lines in enumerate(captions, 1):
        (base / f"train.{k}.en.gz").write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))


def test_bad_captions_are_rejects_with_reasons(tmp_path):
    good = [b"a dog runs", b"a cat sleeps", b"two men talk"]
    caps = [list(good) for _ in range(5)]
    caps[2][1] = b"   "  # image 2, caption 3: pairs 2 (2-3) and 3 (3-4)
    caps[0][2] = b"\xff a bird"  # image 3, caption 1: pair 1
    _task2(tmp_path, caps)
    out = str(tmp_path / "out")
    report = write_caption_pairs(out, "train", root=tmp_path)
    assert (report.rows_in, report.rows_out, report.rows_rejected) == (12, 9, 3)
    assert report.reasons == {"empty caption 3": 2, "undecodable bytes in caption 1": 1}
    rejects = read_output(out, "rejects").to_pandas().set_index("id")
    assert rejects.loc["multi30k-captions:00000:3:1", "detail"] == (
        "utf-8: invalid start byte at byte 0")
    assert rejects.loc["multi30k-captions:00000:2:2", "reason"] == "empty caption 3"
    assert rejects.loc["multi30k-captions:00000:3:1", "line"] == 3
    caps[4] = caps[4][:2]
    _task2(tmp_path / "short", caps)
    with pytest.raises(BitextError, match="differ in line count"):
        write_caption_pairs(str(tmp_path / "o2"), "train", root=tmp_path / "short")
    with pytest.raises(BitextError, match="train.1.en.gz not found"):
        write_caption_pairs(str(tmp_path / "o3"), "train", root=tmp_path / "none")


def test_cost_scorer_names_the_missing_cost(tmp_path):
    out = str(tmp_path / "pairs")
    write_caption_pairs(out, "train", limit=2)
    df = read_output(out).to_pandas()
    assert get_scorer("cost").invalid(df).tolist() == ["cost is NaN"] * 8


@pytest.mark.slow
def test_captions_config_scores_and_selects(ray_session, tmp_path):
    pairs, scored, chosen = (str(tmp_path / d) for d in ("pairs", "score", "select"))
    write_caption_pairs(pairs, "train", limit=30, shard_rows=15)
    cfg = load_config(PROJECT_ROOT / "configs" / "captions.yaml", [
        f"score.input={pairs}", f"score.output={scored}", f"select.input={scored}",
        f"select.output={chosen}", "select.size=20",
        "select.bounds=[{column: len_trans, lower: 0, upper: 12}]"])
    assert [s.type for s in cfg.score.scorers] == ["length", "overlap", "bleu", "duplicates"]
    ctx = StageContext.of(cfg, progress=False)
    report = scoring.run(cfg.score, ctx)
    assert report.rows_in == 120 and report.balanced()
    df = read_output(scored).to_pandas()
    for col in ("len_trans", "len_ref", "overlap1", "overlap2", "overlap3", "bleu",
                "duplicate", "identical"):
        assert df[col].notna().all(), col
    row = df[df["id"] == "multi30k-captions:00000:1:1"].iloc[0]
    # "Two young , White males are outside near many bushes ." (punctuation is a token)
    assert (row["len_trans"], row["len_ref"]) == (11, 17)
    sel = selection.run(cfg.select, ctx)
    picked = pd.read_parquet(sel["files"]["pairs"])
    assert len(picked) == 20 and (picked["len_trans"] <= 12).all()
