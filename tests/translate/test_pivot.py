"""Round-trip pivoting and paraphrase generation through chained Ray Data actor pools."""

from __future__ import annotations

import pytest

from paralib.config import ConfigError, load_config
from paralib.io.context import StageContext
from paralib.io.shards import read_output
from paralib.translate import paraphrase, pivot


@pytest.fixture()
def english(tmp_path, m30k):
    from paralib.mt.data import read_text

    lines = read_text(m30k["val_en"])[:60] + [""]
    path = tmp_path / "en.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_round_trip_kbest_on_both_legs(ray_session, tiny_mt, english, tmp_path):
    model = f"{tiny_mt}/ct2-int8"  # the tiny de→en model serves both legs: mechanics only
    cfg = load_config(None, [
        f"pivot.inputs=[{{corpus: en, src_lang: en, format: lines, path: '{english}'}}]",
        f"pivot.model={model}", f"pivot.model_back={model}", f"pivot.output={tmp_path}/pv",
        "pivot.beam_size=3", "pivot.pivot_hypotheses=2", "pivot.num_hypotheses=3",
        "pivot.max_decoding_length=30", "bitext.shard_rows=25"])
    report = pivot.run(cfg.pivot, StageContext.of(cfg, progress=False))
    assert (report.rows_in, report.rows_out, report.rows_rejected) == (61, 60, 1)
    assert report.hypotheses == 60 * 2 * 3
    data = read_output(f"{tmp_path}/pv").to_pandas()
    assert {"pivot_rank", "pivot_cost"} <= set(data.columns)
    pairs = sorted(zip(data["id"], data["pivot_rank"], data["rank"], strict=True))
    expected = sorted((i, p, r) for i in set(data["id"]) for p in range(2) for r in range(3))
    assert pairs == expected
    row = data[data["id"] == "en:00000:1"].iloc[0]
    assert row["ref"] == "A group of men are loading cotton onto a truck"
    assert read_output(f"{tmp_path}/pv", "rejects").column("reason").to_pylist() == [
        "empty source sentence"]


def test_paraphrase_generation(ray_session, tiny_mt, english, tmp_path):
    cfg = load_config(None, [
        f"paraphrase.inputs=[{{corpus: en, src_lang: en, format: lines, path: '{english}'}}]",
        f"paraphrase.model={tiny_mt}/ct2-int8", f"paraphrase.output={tmp_path}/pp",
        "paraphrase.num_hypotheses=2", "paraphrase.max_decoding_length=30"])
    report = paraphrase.run(cfg.paraphrase, StageContext.of(cfg, progress=False))
    assert (report.rows_out, report.hypotheses) == (60, 120)
    data = read_output(f"{tmp_path}/pp").to_pandas()
    assert (data["src"] == data["ref"]).all()


def test_pivot_hypotheses_must_fit_the_beam():
    with pytest.raises(ConfigError, match="pivot_hypotheses"):
        load_config(None, ["pivot.beam_size=2", "pivot.pivot_hypotheses=4"])
