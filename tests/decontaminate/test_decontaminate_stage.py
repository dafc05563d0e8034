"""``paralib decontaminate`` on Ray Data: every row out or rejected with its reason, the
evaluation set named, duplicates across shards removed once, resumable, readable by training."""

from __future__ import annotations

import gzip

import pytest

from paralib.config import Config
from paralib.decontaminate import stage
from paralib.decontaminate.stage import per_eval_set
from paralib.evaluate.loaders import read_sts_input
from paralib.io.context import StageContext
from paralib.io.shards import read_output
from paralib.train.sources import load_sources


@pytest.fixture
def planted(tmp_path, data_dir):
    """A German-English bitext of 12 lines with an STS 2014 sentence (re-cased), a repeated
    pair in another shard, an empty line and an untranslated line."""
    sts = read_sts_input(data_dir, 2014, "headlines")[0][0]
    pairs = [("Der Quartiermeister zählte Laternen.", "The quartermaster counted lanterns."),
             ("Die Ziege frisst Rhabarber.", "The goat eats rhubarb."),
             ("Irgendein Satz.", sts.lower()),
             ("Der Leuchtturm blinkt grün.", "The lighthouse blinks green."),
             ("", "An empty source."),
             ("Guten Morgen, Anna!", "Guten Morgen, Anna!"),
             ("Ich poliere die Tuba.", "I am polishing the tuba."),
             ("Es hagelt auf Sylt.", "It is hailing on Sylt."),
             ("Die Ziege frisst Rhabarber.", "The goat eats rhubarb."),
             ("Wir bauen ein Floß.", "We are building a raft."),
             ("Das Kanu ist ockerfarben.", "The canoe is ochre."),
             ("Er sammelt Bierdeckel.", "He collects beer mats.")]
    src, en = tmp_path / "x.de.gz", tmp_path / "x.en.gz"
    src.write_bytes(gzip.compress("\n".join(p[0] for p in pairs).encode() + b"\n"))
    en.write_bytes(gzip.compress("\n".join(p[1] for p in pairs).encode() + b"\n"))
    return Config.model_validate({
        "bitext": {"shard_rows": 4, "inputs": [
            {"corpus": "planted", "src_lang": "deu", "src": str(src), "en": str(en),
             "set": "t1"}]},
        "decontaminate": {"output": str(tmp_path / "out")},
        "train": {"sources": [{"kind": "corpus", "path": str(tmp_path / "out")}]}})


@pytest.mark.slow
def test_stage_accounts_for_every_row_and_names_the_eval_set(planted, ray_session):
    ctx = StageContext.of(planted, progress=False)
    report = stage.run(planted.decontaminate, ctx)
    assert report.rows_in == 12 and report.balanced()
    assert report.reasons == {"contaminated: sts2014 (exact)": 1, "duplicate pair": 1,
                              "empty source sentence": 1,
                              "untranslated: the English side equals the source": 1}
    assert per_eval_set(report.reasons) == {"sts2014": 1}
    data = read_output(planted.decontaminate.output).to_pandas()
    assert len(data) == 8 and data["ref"].tolist().count("The goat eats rhubarb.") == 1
    assert set(data["set"]) == {"t1"} and set(data["src_lang"]) == {"de"}
    assert data["group"].nunique() == 8
    rejects = read_output(planted.decontaminate.output, "rejects").to_pandas()
    assert len(rejects) == 4 and rejects["reason"].str.len().min() > 0

    again = stage.run(planted.decontaminate, ctx)  # resumed: every shard already done
    assert again.shards_skipped == again.shards == 3
    assert (again.rows_in, again.rows_out, again.reasons) == (12, 8, report.reasons)

    pairs, rejected = load_sources(planted.train, StageContext.of(planted))
    assert len(pairs) == 8 and rejected.empty
    assert set(pairs["lang2"]) == {"de"} and set(pairs["lang1"]) == {"en"}


def test_repeats_in_buckets_equal_one_global_pass():
    import numpy as np

    from paralib.decontaminate.stage import _repeats

    values = np.random.default_rng(0).integers(0, 5000, size=30_000).astype(np.int64)
    _, first = np.unique(values, return_index=True)
    want = np.ones(len(values), dtype=bool)
    want[first] = False
    for bucket_rows in (700, 30_000):
        assert np.array_equal(_repeats(values, bucket_rows), want)
