"""The committed models on real English sentences through the Ray Data actors: round trips
with ``models/en-de`` and ``models/de-en`` (DCU 2016 §3.2) and paraphrases from
``models/en-en-paraphrase`` (ParaNMT 2018 §6). Multi30k test 2016 and 2017 English are
outside every model's training data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sacrebleu

from paralib.analysis.canonical import word_overlap, words
from paralib.config import load_config
from paralib.io.context import StageContext
from paralib.io.shards import read_output
from paralib.mt.data import read_text
from paralib.paths import PROJECT_ROOT, models_root
from paralib.translate import paraphrase, pivot

GERMAN = {"ein", "eine", "einem", "einer", "einen", "der", "die", "das", "dem", "den", "mit",
          "und", "auf", "im", "steht", "sitzt", "spielt"}


def lines_file(tmp_path, sentences: list[str]) -> str:
    path = tmp_path / "en.txt"
    path.write_text("\n".join(sentences) + "\n")
    return f"[{{corpus: en, src_lang: en, format: lines, path: '{path}'}}]"


def by_line(data: pd.DataFrame, n: int) -> np.ndarray:
    """Input row number (0-based) of every output row, from ids ``en:00000:LINE``."""
    idx = np.array([int(str(i).rsplit(":", 1)[1]) - 1 for i in data["id"]])
    assert idx.min() >= 0 and idx.max() < n
    return idx


@pytest.fixture(scope="module")
def test2016(data_dir):
    base = data_dir / "bitext/multi30k/task1/raw"
    return (read_text(str(base / "test_2016_flickr.en.gz"))[:48],
            read_text(str(base / "test_2016_flickr.de.gz"))[:48])


@pytest.mark.slow
def test_round_trip_with_the_shipped_models(ray_session, test2016, tmp_path):
    en, de = test2016
    cfg = load_config(None, [
        f"pivot.inputs={lines_file(tmp_path, en)}", f"pivot.output={tmp_path}/pv",
        'pivot.model="{models}/en-de"', 'pivot.model_back="{models}/de-en"',
        "pivot.beam_size=4", "pivot.pivot_hypotheses=2", "pivot.num_hypotheses=2",
        "pivot.max_decoding_length=60", "bitext.shard_rows=16"])
    report = pivot.run(cfg.pivot, StageContext.of(cfg, progress=False))
    assert (report.rows_in, report.rows_out, report.hypotheses) == (48, 48, 48 * 2 * 2)
    data = read_output(f"{tmp_path}/pv").to_pandas()
    data["line"] = by_line(data, len(en))
    assert (data["ref"] == [en[i] for i in data["line"]]).all()
    assert np.isfinite(data[["cost", "pivot_cost"]].to_numpy(dtype=float)).all()
    best = data[(data["pivot_rank"] == 0) & (data["rank"] == 0)].sort_values("line")
    assert best["line"].tolist() == list(range(48))
    # the pivot is German: German function words, and BLEU against the real German side
    german = [bool(GERMAN & set(words([s])[0])) for s in best["src"]]
    assert np.mean(german) >= 0.9
    assert sacrebleu.corpus_bleu(best["src"].tolist(), [de]).score >= 5
    # the way back is English close to its own original, not to any other sentence
    assert sacrebleu.corpus_bleu(best["trans"].tolist(), [en]).score >= 5
    back = words(best["trans"].tolist())
    own = word_overlap(back, words(en)).mean()
    other = word_overlap(back, words(en[1:] + en[:1])).mean()
    assert own > 1.5 * other  # weak models (BLEU 12 and 39): close, not faithful


def test_paraphrases_from_the_shipped_model(ray_session, data_dir, tmp_path):
    en = read_text(str(data_dir / "bitext/multi30k/task1/raw/test_2017_flickr.en.gz"))[:24]
    cfg = load_config(PROJECT_ROOT / "configs" / "paraphrase.yaml", [
        f"paraphrase.inputs={lines_file(tmp_path, en)}", f"paraphrase.output={tmp_path}/pp",
        "paraphrase.num_hypotheses=3", "paraphrase.max_decoding_length=60",
        "bitext.shard_rows=12"])
    shipped = str(models_root() / "en-en-paraphrase")
    assert cfg.paraphrase.model == load_config(None).paraphrase.model == shipped
    report = paraphrase.run(cfg.paraphrase, StageContext.of(cfg, progress=False))
    assert (report.rows_out, report.hypotheses) == (24, 72)
    data = read_output(f"{tmp_path}/pp").to_pandas()
    data["line"] = by_line(data, len(en))
    assert (data["src"] == data["ref"]).all() and (data["trans"].str.strip() != "").all()
    for _, g in data.groupby("line"):
        assert sorted(g["rank"]) == [0, 1, 2] and g["trans"].nunique() == 3
        assert g.sort_values("rank")["cost"].is_monotonic_increasing
    best = data[data["rank"] == 0].sort_values("line")
    out, inp = words(best["trans"].tolist()), words(en)
    own, other = word_overlap(out, inp).mean(), word_overlap(out, inp[1:] + inp[:1]).mean()
    assert own >= 0.6 and own > other + 0.3  # a paraphrase of its own input
    assert (best["trans"] != best["ref"]).mean() >= 0.3  # not a copying machine
