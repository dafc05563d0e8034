"""Experiment files: every shipped one validates, and a bad one fails with the file and key."""

from __future__ import annotations

import copy

import pytest
import yaml

from paralib.experiments import NotRunnable, list_experiments, load_experiment
from paralib.experiments.needs import unmet
from paralib.experiments.plan import plan_runs, run_tree
from paralib.experiments.runner import check_runnable
from paralib.experiments.spec import EXPERIMENTS_DIR, ExperimentError, Need, parse_experiment
from paralib.io.shards import write_marker
from paralib.io.stage import StageReport, finish
from paralib.overrides import OverrideError, apply, set_path

RUNNABLE = set(list_experiments())   # all 15 (their data outputs are checked per run)


@pytest.fixture()
def tree() -> dict:
    """A valid experiment tree (the mega-batching file) to break."""
    return yaml.safe_load((EXPERIMENTS_DIR / "mega-batching.yaml").read_text())


def test_every_issue_item_has_a_valid_file():
    names = list_experiments()
    numbers = sorted(load_experiment(n).number for n in names)
    assert numbers == list(range(1, 16))   # 15: experiment 7 with semi-hard negatives


def test_the_semihard_variant_is_experiment_7_with_only_its_negatives_changed(tree, tmp_path):
    semi = yaml.safe_load((EXPERIMENTS_DIR / "mega-batching-semihard.yaml").read_text())
    assert tree["base"]["train"].pop("negatives") == "max"   # the paper's runs stay
    assert semi["base"]["train"].pop("negatives") == "semihard"
    for key in ("base", "grid", "paper", "compare", "evaluate"):
        assert semi[key] == tree[key], key
    # the same sizes; only which runs of the full size were left unmade differs
    assert {k: v for k, v in semi["sizes"].items() if k != "full"} == \
        {k: v for k, v in tree["sizes"].items() if k != "full"}
    assert {k: v for k, v in semi["sizes"]["full"].items() if k != "skip"} == \
        {k: v for k, v in tree["sizes"]["full"].items() if k != "skip"}
    runs = [r for r in plan_runs(load_experiment("mega-batching-semihard"), "full", tmp_path)
            if not r.skipped]
    assert len(runs) == 7 and all(r.config.train.negatives == "semihard" for r in runs)


def test_an_experiment_with_unmet_needs_says_what_it_needs(tree, tmp_path):
    tree["needs"] = [{"todo": "a thing", "why": "the paper used it"},
                     {"path": str(tmp_path / "missing-model"), "why": "a model"}]
    exp = parse_experiment(tree, "x.yaml")
    with pytest.raises(NotRunnable, match=f"experiment {exp.name} is not yet runnable: needs "
                                          r"a thing \(the paper used it\); .*missing-model"):
        check_runnable(exp)


def test_a_stage_output_stopped_part_way_is_an_unmet_need(tmp_path):
    out = str(tmp_path / "score")
    need = Need(path=out, why="scored pairs")
    assert unmet(need) == f"{out} (scored pairs)"
    counts = {"rows_in": 3, "rows_out": 2, "rows_rejected": 1, "hypotheses": 2,
              "reasons": {"empty": 1}}
    write_marker(out, "m30k-00000", counts)          # one shard done, the stage killed
    assert "unfinished" in unmet(need) and "_summary.json" in unmet(need)
    report = StageReport(output=out, shards=1)
    report.add(counts)
    finish(report, None, 0.0)                        # the stage's last write
    assert unmet(need) is None
    plain = tmp_path / "model"                       # not a stage output: existing is enough
    plain.mkdir()
    assert unmet(Need(path=str(plain), why="a model")) is None


@pytest.mark.parametrize("name", sorted(RUNNABLE))
def test_runnable_experiments_validate_every_run_at_every_size(name, tmp_path):
    exp = load_experiment(name)
    check_runnable(exp)
    for size in exp.sizes:
        plans = plan_runs(exp, size, tmp_path)
        trained = [p for p in plans if p.config is not None]
        assert all(p.config.train.output == str(p.model_dir) for p in trained)
        assert len({p.folder for p in plans}) == len(plans)
        for p in trained:  # a tuned run's candidates: own folders, own selections
            assert len({c.folder for c in p.candidates}) == len(p.candidates)
            assert all(c.folder.parent == p.folder / "tune" for c in p.candidates)
            assert all(c.config.train.output == str(c.model_dir) for c in p.candidates)
            assert all(c.config.select.output == str(c.folder / "selection")
                       for c in p.candidates if c.select)


def test_unknown_run_key_names_the_run(tree):
    tree["grid"]["axes"]["M"]["20"]["sett"] = {"train.epochs": 1}
    with pytest.raises(ExperimentError, match=r"grid\.axes\.M\.20\.sett: unknown key"):
        parse_experiment(tree, "x.yaml")


def test_unknown_top_level_key(tree):
    tree["rnus"] = {}
    with pytest.raises(ExperimentError, match="rnus: unknown key"):
        parse_experiment(tree, "x.yaml")


def test_missing_paper_table(tree):
    del tree["paper"]["table"]
    with pytest.raises(ExperimentError, match=r"x\.yaml: paper\.table: missing"):
        parse_experiment(tree, "x.yaml")
    del tree["paper"]
    with pytest.raises(ExperimentError, match="paper.table: missing"):
        parse_experiment(tree, "x.yaml")


def test_cell_reading_an_undefined_run(tree):
    tree["ours"]["run"] = "{column} with M={row}"
    with pytest.raises(ExperimentError, match=r"cell \(M=1, WORD\) reads run 'WORD with M=M=1'"):
        parse_experiment(tree, "x.yaml")


def test_paper_value_outside_the_table(tree):
    tree["paper"]["values"]["M=80"] = {"WORD": 85.0}
    with pytest.raises(ExperimentError, match="row 'M=80' is not in paper.rows"):
        parse_experiment(tree, "x.yaml")


def test_comparison_of_a_row_not_in_the_table(tree):
    tree["compare"].append({"rows": ["M=60", "M=1"]})
    with pytest.raises(ExperimentError, match=r"compare\[3\]: cell \(M=60, WORD\)"):
        parse_experiment(tree, "x.yaml")


def test_size_glob_matching_no_run(tree):
    tree["sizes"]["small"]["match"]["GRAN*"] = {"train.epochs": 1}
    with pytest.raises(ExperimentError, match="sizes.small: 'GRAN\\*' matches no run"):
        parse_experiment(tree, "x.yaml")


def test_bad_train_override_fails_before_any_work(tree, tmp_path):
    tree["sizes"]["smoke"]["set"]["train.epochs"] = 0
    exp = parse_experiment(tree, "x.yaml")
    with pytest.raises(ExperimentError, match=r"(?s)run 'WORD M=1' \(smoke\).*train\.epochs"):
        plan_runs(exp, "smoke", tmp_path)


def test_name_must_match_file(tree, tmp_path):
    path = tmp_path / "other.yaml"
    path.write_text(yaml.safe_dump(tree))
    with pytest.raises(ExperimentError, match="name 'mega-batching' differs"):
        load_experiment(path)


def test_size_overrides_apply_after_run_overrides():
    exp = load_experiment("mega-batching")
    lstm = run_tree(exp, "LSTM M=40", "small")
    word = run_tree(exp, "WORD M=40", "small")
    assert lstm["train"]["model"]["parts"][0]["dim"] == 100  # size match beats the run's 300
    assert word["train"]["model"]["parts"][0]["dim"] == 300
    assert lstm["train"]["megabatch"]["size"] == word["train"]["megabatch"]["size"] == 40
    assert lstm["train"]["regularisation"]["scramble_rate"] == 0.3
    assert "regularisation" not in word["train"]


def test_overrides_copy_and_index_lists():
    base = {"train": {"model": {"parts": [{"name": "word", "dim": 300}]}}}
    out = apply(base, {"train.model.parts.0.dim": 16, "train.epochs": 1})
    assert out["train"]["model"]["parts"][0]["dim"] == 16 and out["train"]["epochs"] == 1
    assert base["train"]["model"]["parts"][0]["dim"] == 300  # the base is not touched
    tree = copy.deepcopy(base)
    with pytest.raises(OverrideError, match="parts is a list of 1; expected an index 0-0, got '3'"):
        set_path(tree, "train.model.parts.3.dim", 1)
    with pytest.raises(OverrideError, match=r"parts.0.name is a value \('word'\); expected a "
                                            "section or list to hold 'x'"):
        set_path(tree, "train.model.parts.0.name.x", 1)
