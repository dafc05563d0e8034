"""paralib's one fingerprint (:mod:`paralib.fingerprint`): the fields it covers follow from the
schema's roles alone, every field that changes a trained model is in the training identity
and the run keys, the fingerprints of everything else are the ones made before (pinned), and
the records whose keys had to change are found again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from paralib.config import BacktranslateConfig, Config, load_config
from paralib.contracts import RunRecord
from paralib.decontaminate.index import fingerprint as index_print
from paralib.experiments import plan
from paralib.experiments.spec import load_experiment
from paralib.fingerprint import Scope, covered, digest, section_print, stage_print
from paralib.mt.prepare import data_fingerprint
from paralib.overrides import apply
from paralib.schema import RESUMABLE, Role, models_in, role_of
from paralib.train.config import TrainConfig
from paralib.train.identity import IDENTITY, RunIdentityError, check_run, identity

QUICKSTART = Path(__file__).resolve().parents[1] / "configs" / "quickstart.yaml"

# fingerprints computed before the schema's roles replaced the hand-kept lists (the stage's
# exclude set, the training identity's resumable keys) and the four hash functions
STAGE_PRINTS = {"backtranslate": "0af8048bbc44217b", "pivot": "a6412ca061e11d38",
                "paraphrase": "3d3c11c5be898b43"}
TRAIN_PRINT = "504cca1a548546d3"
MT_PRINT = "229b5c5a57d101b5"
INDEX_PRINT = "bd21fdf9eaadb120309f2bb6a8a1c393b45cd871a6c40c8eeb2dc59bd70c9f87"
RUN_KEYS = {("mega-batching", "WORD M=1"): ("1761d946349aff88", "b9557f0e86fbafcb"),
            ("encoders", "TRIGRAM (300)"): ("959a73842ff0093b", "a0b715c5984dcbf0"),
            ("synthetic-sts", "task-internal"): ("e0da15d261d14d1a", "4c4fc64604bb56be")}
# what the translation stage's markers left out, by the hand-kept set the roles replace
STAGE_LEFT_OUT = {"output", "overwrite", "actors", "min_actors", "num_cpus_per_actor",
                  "intra_threads", "inter_threads", "device", "actors_per_gpu",
                  "actor_resources", "rows_per_batch", "compute_type", "fuse_io"}


@pytest.fixture(scope="module")
def quickstart() -> Config:
    """The quickstart's config, its models at fixed paths (a stage's markers name the model
    folder, which is under the checkout)."""
    return load_config(QUICKSTART, ["backtranslate.model=/models/de-en",
                                    "pivot.model=/models/en-de", "pivot.model_back=/models/de-en",
                                    "paraphrase.model=/models/en-en"])


def test_one_hash_makes_the_fingerprints_made_before(quickstart):
    for section, made in STAGE_PRINTS.items():
        options = section_print(getattr(quickstart, section), Scope.WORK, mode="python")
        assert stage_print({"shard": 1}, options, quickstart.bitext.max_chars, [],
                           quickstart.bitext.checks.model_dump()) == made, section
    assert stage_print(identity(quickstart.train)) == TRAIN_PRINT
    assert data_fingerprint(quickstart.mt, []) == MT_PRINT
    assert index_print(Path("/nonexistent-paralib"), 10, 10) == INDEX_PRINT
    assert digest({"a": 1}) == digest({"a": 1}, algorithm="sha256", length=16)
    assert len(digest({"a": 1}, length=None)) == 64


def test_the_stage_markers_cover_what_the_exclude_set_left():
    for cls in BacktranslateConfig.__subclasses__() + [BacktranslateConfig]:
        section = cls()
        made = section.model_dump(exclude=STAGE_LEFT_OUT)
        assert section_print(section, Scope.WORK, mode="python") == made, cls.__name__


@pytest.mark.slow
def test_run_keys_are_the_ones_made_before(monkeypatch):
    monkeypatch.setattr(plan, "unmet_all", lambda needs: [])
    for (name, run), keys in RUN_KEYS.items():
        made = {p.name: p for p in plan.plan_runs(load_experiment(name), "full", Path("out"))}
        got = made[run]
        assert (got.former_keys if got.former_keys[0] else (got.train_key, got.eval_key)) \
            == keys, (name, run)


# one change per field of ``train`` (and of the ``decontaminate`` section training reads) that
# changes a trained model; test_every_model_field_has_a_change checks that none is missing
CHANGES: dict[str, Any] = {
    "sources": [{"kind": "sts"}], "loss": "contrastive", "margin": 0.3,
    "contrastive_margin": 0.5, "symmetric": False, "negatives": "rand", "bilingual": True,
    "megabatch.size": 4, "megabatch.start": 2, "megabatch.anneal_every": 10,
    "megabatch.across_workers": True, "regularisation.lambda_w": 0.1,
    "regularisation.lambda_c": 0.1, "regularisation.word_dropout": 0.2,
    "regularisation.scramble_rate": 0.3, "batch_size": 50, "lr": 0.01, "max_pairs": 100,
    "lang_temperature": 2.0, "caps": [{"lang": "de", "max_pairs": 5}],
    "corpus_temperature": 2.0, "dev": "none", "seed": 2, "vocab_sample": 1000,
    "vocab_sample_by": "language", "decontaminate": False, "group_negatives": False,
    "sparse": True, "model.combine": "sum", "model.parts.0.name": "trigram",
    "model.parts.0.encoder": "lstm", "model.parts.0.tokens": "trigram", "model.parts.0.dim": 64,
    "model.parts.0.hidden": 32, "model.parts.0.vocab_size": 500,
    "model.parts.0.sp_model_type": "bpe", "model.parts.0.max_tokens": 20,
    "model.parts.0.dropout": 0.5, "model.parts.0.dropout_on": "tokens",
    "model.parts.0.init": "normal", "model.parts.0.init_scale": 0.5,
    "model.parts.0.pretrained": "/tmp/vectors.txt",
}
READ_CHANGES: dict[str, Any] = {"decontaminate.ngram": 8, "decontaminate.min_tokens": 5,
                                "decontaminate.dedupe": False}
# fields that change a model but that a resumed run may change (run keys count them)
RESUMABLE_CHANGES: dict[str, Any] = {"epochs": 20, "workers": 2, "use_gpu": True}
# fields that cannot change a model: in no training identity, and in run keys only as kept
NOT_MODEL: dict[str, Any] = {"train.keep_checkpoints": 3, "ray.stall_timeout_s": 5.0,
                             "decontaminate.actors": 4, "decontaminate.output": "elsewhere"}
KEPT: dict[str, Any] = {"train.cpus_per_worker": 2.0, "train.name": "other",
                        "ray.address": "auto", "ray.num_cpus": 3, "backtranslate.actors": 4}


def model_fields(model: type[BaseModel], prefix: str = "") -> list[str]:
    """The dotted fields below ``model`` that the training identity covers (a list of
    sections: its first item's, ``.0.``)."""
    out = []
    for name, field in model.model_fields.items():
        role = role_of(field, name)
        if role in (Role.KEPT_FOR_OLD_RECORDS, Role.NOT_RESULTS) or RESUMABLE in field.metadata:
            continue
        section, is_list = models_in(field.annotation)
        if section is None or name in ("sources", "caps"):
            out.append(f"{prefix}{name}")
        else:
            out += model_fields(section, f"{prefix}{name}{'.0' if is_list else ''}.")
    return out


def test_every_model_field_has_a_change():
    from paralib.config import DecontaminateConfig

    assert sorted(model_fields(TrainConfig)) == sorted(CHANGES)
    assert sorted(model_fields(DecontaminateConfig, "decontaminate.")) == sorted(READ_CHANGES)


def _config(changes: dict[str, Any]) -> Config:
    """The default config (with a WORD model, named ``run``) with ``changes`` set."""
    train = TrainConfig(name="run", model={"parts": [{"name": "word"}]})
    tree = Config(train=train).model_dump(mode="json")
    return Config.model_validate(apply(tree, changes))


def _train(dotted: str, value: Any) -> dict[str, Any]:
    return {f"train.{dotted}": value} if dotted in CHANGES or dotted in RESUMABLE_CHANGES \
        else {dotted: value}


def _resumes(tmp_path: Path, cfg: Config) -> bool:
    """Whether training ``cfg`` resumes the run recorded in ``tmp_path`` (no: starts over)."""
    try:
        check_run(cfg.train, str(tmp_path / "run"), reads={"decontaminate": cfg.decontaminate})
    except RunIdentityError:
        return False
    return True


@pytest.mark.parametrize("dotted", sorted({**CHANGES, **READ_CHANGES}))
def test_a_model_field_makes_a_rerun_train_again(tmp_path, dotted):
    first = _config({})
    _resumes(tmp_path, first)
    changed = _config(_train(dotted, {**CHANGES, **READ_CHANGES}[dotted]))
    assert not _resumes(tmp_path, changed)           # the training run is not resumed
    assert plan.config_for_key(changed) != plan.config_for_key(first)  # nor the kept run used
    assert _resumes(tmp_path, first)


@pytest.mark.parametrize("dotted", sorted(RESUMABLE_CHANGES))
def test_a_resumable_field_resumes_but_makes_a_new_run(tmp_path, dotted):
    first = _config({})
    _resumes(tmp_path, first)
    changed = _config(_train(dotted, RESUMABLE_CHANGES[dotted]))
    assert _resumes(tmp_path, changed)
    assert plan.config_for_key(changed) != plan.config_for_key(first)


@pytest.mark.parametrize("dotted", sorted({**NOT_MODEL, **KEPT}))
def test_a_field_that_cannot_change_a_model_changes_no_identity(tmp_path, dotted):
    first = _config({})
    _resumes(tmp_path, first)
    changed = _config({dotted: {**NOT_MODEL, **KEPT}[dotted]})
    assert _resumes(tmp_path, changed)
    assert section_print(changed.train) == section_print(first.train)
    same = plan.config_for_key(changed) == plan.config_for_key(first)
    assert same is (dotted in NOT_MODEL)   # kept ones stay in run keys, for the old records


def test_a_record_made_before_the_read_sections_is_compared_on_train_and_rewritten(tmp_path):
    cfg = _config({"decontaminate.ngram": 8})
    run = tmp_path / "run"
    run.mkdir()
    made = identity(cfg.train)
    (run / IDENTITY).write_text(json.dumps({"made_by": "paralib train",
                                            "fingerprint": stage_print(made),
                                            "identity": made}))
    assert _resumes(tmp_path, cfg)                   # the record could not know ngram
    record = json.loads((run / IDENTITY).read_text())
    assert record["sections"] == ["train", "decontaminate"]
    assert record["identity"]["decontaminate.ngram"] == 8
    assert not _resumes(tmp_path, _config({}))       # now it does: 8 -> 10 is refused


def test_covered_follows_the_roles():
    tree = Config().model_dump(mode="json")
    keyed = covered(json.loads(json.dumps(tree)), Config)
    assert "decontaminate" not in keyed and "encode" not in keyed   # at defaults / never
    assert "address" in keyed["ray"] and "stall_timeout_s" not in keyed["ray"]
    work = covered(tree["backtranslate"], BacktranslateConfig, Scope.WORK)
    assert "beam_size" in work and "actors" not in work and "compute_type" not in work
    changed = Config.model_validate({"decontaminate": {"ngram": 8, "actors": 5}})
    assert plan.config_for_key(changed)["decontaminate"] == {"ngram": 8, "min_tokens": 10,
                                                            "dedupe": True}
    assert "decontaminate" not in plan.config_for_key(changed, legacy=True)


def test_a_kept_record_under_the_former_keys_is_rekeyed(monkeypatch):
    monkeypatch.setattr(plan, "unmet_all", lambda needs: [])
    run = {p.name: p for p in plan.plan_runs(load_experiment("synthetic-sts"), "full",
                                              Path("out"))}["task-internal"]
    assert run.former_keys == RUN_KEYS[("synthetic-sts", "task-internal")]
    assert run.train_key != run.former_keys[0]       # decontaminate: false is in the key now
    kept = RunRecord(name="task-internal", status="ok", train_key=run.former_keys[0],
                     eval_key=run.former_keys[1], results={"sts": {}})
    assert not kept.complete(run.train_key, run.eval_key)
    found = run.rekey(kept)
    assert found is not None and found.complete(run.train_key, run.eval_key)
    other = kept.model_copy(update={"train_key": "0" * 16})
    assert run.rekey(other) is other
    unchanged = {p.name: p for p in plan.plan_runs(load_experiment("mega-batching"), "full",
                                                    Path("out"))}["WORD M=1"]
    assert unchanged.former_keys == ("", "") and unchanged.rekey(kept) is kept
