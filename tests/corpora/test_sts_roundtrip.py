"""STS 2016 sentences as a lines file, round-tripped by ``paralib pivot`` with the shipped
models and read back by the ``pairs`` training source (DCU 2016 §3.2)."""

from __future__ import annotations

from paralib.config import Config, load_config
from paralib.corpora.sts_sentences import sts_sentences, write_sts_sentences
from paralib.evaluate.loaders import STS_YEARS, read_sts
from paralib.io.context import StageContext
from paralib.io.shards import read_output
from paralib.paths import PROJECT_ROOT
from paralib.train.config import TrainConfig
from paralib.train.sources import load_sources
from paralib.translate import pivot
from paralib.translate.pivot import PIVOT_SCHEMA


def test_every_sts2016_sentence_once(data_dir, tmp_path):
    every, sets = sts_sentences(2016)
    scored, _ = sts_sentences(2016, scored_only=True)
    assert (len(every), len(scored)) == (11241, 1870)
    assert len(set(every)) == len(every) and all(s and s == s.strip() for s in every)
    first = (data_dir / "sts/STS16-en-test/STS.input.answer-answer.txt").read_text(
        encoding="utf-8").split("\n", 1)[0].split("\t")
    assert every[:2] == first
    assert first[0] not in scored  # the first pair of answer-answer has no gold score
    answers = read_sts(data_dir, 2016, "answer-answer")
    assert scored[:2] == [answers.a[0].strip(), answers.b[0].strip()]
    assert set(sets) == set(STS_YEARS[2016])
    assert sets["postediting"]["pairs"] == 3287
    evaluated = read_sts(data_dir, 2016, "headlines")
    assert {s.strip() for s in evaluated.a + evaluated.b} <= set(scored) <= set(every)
    out = tmp_path / "s.txt"
    report = write_sts_sentences(str(out), 2016, scored_only=True)
    assert report["sentences"] == 1870
    assert out.read_text(encoding="utf-8").split("\n")[:-1] == scored


def test_round_trip_output_is_a_pairs_source(ray_session, tmp_path):
    sentences = sts_sentences(2016, scored_only=True)[0][:12]
    lines = tmp_path / "sentences.txt"
    lines.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    out = tmp_path / "roundtrip"
    cfg = load_config(PROJECT_ROOT / "configs" / "sts2016-roundtrip.yaml", [
        f"pivot.output={out}", "pivot.beam_size=2", "pivot.max_decoding_length=60"])
    assert cfg.pivot.inputs[0].path == "output/sts2016/sentences.txt"
    assert (cfg.pivot.pivot_hypotheses, cfg.pivot.num_hypotheses) == (1, 1)
    cfg.pivot.inputs[0].path = str(lines)
    report = pivot.run(cfg.pivot, StageContext.of(cfg, progress=False))
    assert (report.rows_in, report.rows_out, report.rows_rejected) == (12, 12, 0)
    table = read_output(str(out))
    assert table.schema.names == PIVOT_SCHEMA.names
    df = table.to_pandas().sort_values("id")
    assert sorted(df["ref"]) == sorted(sentences)
    assert df["trans"].str.strip().ne("").all() and (df["rank"] == 0).all()
    assert set(df["src_lang"]) == {"de"} and set(df["corpus"]) == {"sts2016"}
    # round trips of STS test sentences are contaminated by design (DCU §3.2)
    assert len(load_sources(TrainConfig.model_validate({"sources": [
        {"kind": "pairs", "path": str(out)}]}), StageContext())[0]) == 0
    train = Config.model_validate({"train": {"sources": [{"kind": "pairs", "path": str(out)}],
                                             "decontaminate": False}})
    data, rejects = load_sources(train.train, StageContext.of(train))
    assert len(data) == 12 and rejects.empty
    assert dict(zip(data["s1"], data["s2"], strict=True)) == dict(
        zip(df["ref"], df["trans"], strict=True))
