"""Stage references in a config (``"@score"``): resolved at validation, errors that name the
field and the stages, and the shipped configs writing each output path once."""

from __future__ import annotations

import pytest

from paralib.config import Config, ConfigError, load_config
from paralib.paths import PROJECT_ROOT
from paralib.select.config import SelectSpec
from paralib.wiring import Reads, reads_of

QUICKSTART = PROJECT_ROOT / "configs" / "quickstart.yaml"
STAGE_NAMES = ("analyze, backtranslate, classifier, decontaminate, encode, lm, mine, mt, "
               "paraphrase, pivot, score, select, train")


def write(tmp_path, text: str):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return path


def test_the_quickstart_writes_each_output_once_and_reads_it_by_name():
    text = QUICKSTART.read_text()
    for stage in ("backtranslate", "lm", "classifier", "score", "select"):
        assert text.count(f"output/quickstart/{stage}") == 1, stage
    cfg = load_config(QUICKSTART)
    assert cfg.lm.input == cfg.classifier.input == cfg.score.input == cfg.backtranslate.output
    assert cfg.select.input == cfg.analyze.input == cfg.score.output == "output/quickstart/score"
    assert cfg.select.exclude == ["output/quickstart/lm/heldout.parquet",
                                  "output/quickstart/classifier/heldout.parquet"]
    params = {s.type: s.params for s in cfg.score.scorers}
    assert params["lm"]["model"].endswith("output/quickstart/lm")
    assert params["classifier"]["model"].endswith("output/quickstart/classifier")
    assert [s.path for s in cfg.train.sources] == ["output/quickstart/select"]


def test_a_reference_follows_an_override_of_the_output_it_names():
    cfg = load_config(QUICKSTART, ["score.output=s3://bucket/scored",
                                   "lm.output=elsewhere/lm"])
    assert cfg.select.input == cfg.analyze.input == "s3://bucket/scored"
    assert cfg.select.exclude[0] == "elsewhere/lm/heldout.parquet"


def test_a_path_under_a_stage_output_and_a_default_output(tmp_path):
    cfg = load_config(write(tmp_path, 'select: {output: "s3://b/sel/"}\n'
                                      'mt: {valid_src: "@select/pairs.parquet#ref"}\n'
                                      'analyze: {input: "@score"}\n'))
    assert cfg.mt.valid_src == "s3://b/sel/pairs.parquet#ref"
    assert cfg.analyze.input == "output/score"  # score.output's default


def test_literal_paths_keep_working(tmp_path):
    cfg = load_config(write(tmp_path, "select: {input: a/b, exclude: [x/heldout.parquet]}\n"))
    assert (cfg.select.input, cfg.select.exclude) == ("a/b", ["x/heldout.parquet"])


def test_sections_given_as_objects_are_read_for_their_output():
    cfg = Config(select=SelectSpec(output="sel"), train={"sources": [
        {"kind": "pairs", "path": "@select"}]})
    assert cfg.train.sources[0].path == "sel"


def test_a_reference_to_no_stage_is_one_error_naming_the_field_and_the_stages(tmp_path):
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, 'select: {input: "@scor"}\n'))
    text = str(err.value)
    assert len(text.splitlines()) == 2
    assert f"select.input: '@scor' names none of the stages it can read: {STAGE_NAMES}" in text


def test_a_cycle_is_one_error_naming_its_fields(tmp_path):
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, 'score: {input: "@select"}\nselect: {input: "@score"}\n'))
    text = str(err.value)
    assert len(text.splitlines()) == 2
    assert "score.input, select.input: stages read each other in a cycle (score → select → " \
           "score" in text and STAGE_NAMES in text
    with pytest.raises(ConfigError, match="score.input: stages read each other"):
        load_config(write(tmp_path, 'score: {input: "@score"}\n'))


def test_an_output_cannot_name_a_stage(tmp_path):
    with pytest.raises(ConfigError, match="select.output: '@score': an output is where its own "
                                          "stage writes"):
        load_config(write(tmp_path, 'select: {output: "@score"}\n'))


def test_exclude_declares_the_stages_it_reads(tmp_path):
    assert reads_of(SelectSpec, "exclude") == Reads(("lm", "classifier"), "heldout.parquet")
    assert reads_of(SelectSpec, "input") is None
    with pytest.raises(ConfigError, match=r"select\.exclude\.1: '@score' names none of the "
                                          r"stages it can read: lm, classifier"):
        load_config(write(tmp_path, 'select: {exclude: ["@lm", "@score"]}\n'))
    cfg = load_config(write(tmp_path, 'lm: {output: "{data}/lm"}\n'
                                      'select: {exclude: ["@lm"]}\n'))
    assert cfg.select.exclude == [f"{cfg.lm.output}/heldout.parquet"]
