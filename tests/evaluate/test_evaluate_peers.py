"""``paralib evaluate`` on sentence-transformers and model2vec folders: a
paralib model exported to either library scores what the original scores, through the same
suites; folders are told by their files; foreign code in ``modules.json`` is refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paralib.io.context import StageContext

pytest.importorskip("sentence_transformers")
pytest.importorskip("model2vec")


@pytest.fixture(scope="module")
def folders(trained_sp, en_text, tmp_path_factory):
    """A trained SP model and an untrained TRIGRAM, as paralib folders and their exports."""
    import torch

    from paralib.export import export
    from paralib.models import ModelConfig, ParaphraseModel, fit_tokenizers, save_model

    root = tmp_path_factory.mktemp("peers")
    sp = save_model(trained_sp.model, root / "sp", ("en",), {"epoch": 3}, "# sp\n")
    cfg = ModelConfig(parts=[{"name": "trigram", "vocab_size": 400, "dim": 16}])
    torch.manual_seed(0)
    trigram = ParaphraseModel(cfg, fit_tokenizers(cfg, en_text[:1000]))
    trigram.initialise()
    trigram = save_model(trigram.eval(), root / "trigram", ("en",), {"epoch": 0}, "# trigram\n")
    return {"sp": sp, "trigram": trigram,
            "sp-st": export(sp, root / "sp-st", "sentence-transformers").out,
            "sp-m2v": export(sp, root / "sp-m2v", "model2vec").out,
            "trigram-st": export(trigram, root / "trigram-st", "sentence-transformers").out}


def test_folders_are_told_by_their_files(folders, tmp_path):
    from paralib.evaluate.peers import folder_kind

    kinds = {name: folder_kind(path) for name, path in folders.items()}
    assert kinds == {"sp": "paralib", "trigram": "paralib", "sp-st": "sentence-transformers",
                     "sp-m2v": "model2vec", "trigram-st": "sentence-transformers"}
    assert folder_kind(tmp_path) is None


def _pearson(report, suite, model, path):
    entry = report["tasks"][suite]["models"][model]
    for key in path:
        entry = entry[key]
    return entry


def test_exports_score_as_the_original(folders, data_dir):
    from paralib.evaluate import Evaluation, Settings, evaluate

    names = ("sp", "sp-st", "sp-m2v")
    report = evaluate(Evaluation({n: str(folders[n]) for n in names}, ["sts", "stsb"],
                                 settings=Settings(data=data_dir)),
                      StageContext(progress=False)).dump()
    for suite, path in (("sts", ("all", "pearson")), ("stsb", ("sets", "test", "pearson")),
                        ("stsb", ("sets", "dev", "pearson")), ("sts", ("all", "spearman"))):
        ours = _pearson(report, suite, "sp", path)
        for name in names[1:]:
            assert _pearson(report, suite, name, path) == pytest.approx(ours, abs=1e-4)
    assert report["models"]["sp-m2v"]["info"] == {"library": "model2vec"}
    assert report["models"]["sp-st"]["languages"] == ["en"]  # from the exported card
    assert report["models"]["sp-st"]["source"] == {"kind": "model", "ref": str(folders["sp-st"])}


def test_paralib_module_folder_scores_as_the_original(folders, data_dir):
    from paralib.evaluate import Evaluation, Settings, evaluate
    from paralib.evaluate.cli import _model_arg
    from paralib.evaluate.encoders import load_model_folder

    name, path = _model_arg(f"exported={folders['trigram-st']}")  # --model NAME=DIR
    models = {"trigram": str(folders["trigram"]), name: load_model_folder(path, name)}
    report = evaluate(Evaluation(models, ["stsb"], settings=Settings(data=data_dir)),
                      StageContext(progress=False)).dump()
    for split in ("dev", "test"):
        path = ("sets", split, "pearson")
        assert _pearson(report, "stsb", "exported", path) == pytest.approx(
            _pearson(report, "stsb", "trigram", path), abs=1e-4)
    assert report["models"]["exported"]["info"] == {"library": "sentence-transformers"}


def test_ray_actors_rebuild_the_exported_model(folders, stsb_sentences):
    from paralib.evaluate.encoders import EncoderSource

    want = EncoderSource("model", str(folders["sp"])).load().encode(stsb_sentences)
    for name in ("sp-st", "sp-m2v"):
        got = EncoderSource("model", str(folders[name])).load().encode(stsb_sentences,
                                                                       normalize=False)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def stsb_sentences(data_dir):
    from paralib.evaluate.loaders import read_stsb

    return read_stsb(data_dir, "dev").a[:300]


def test_foreign_code_is_refused(folders, tmp_path):
    import shutil

    from paralib.evaluate.encoders import EvaluateError, load_model_folder

    folder = tmp_path / "foreign"
    shutil.copytree(folders["sp-st"], folder)
    modules = json.loads((folder / "modules.json").read_text())
    modules[0]["type"] = "somebody.modeling.Evil"
    (folder / "modules.json").write_text(json.dumps(modules))
    with pytest.raises(EvaluateError, match=r"somebody\.modeling\.Evil.*does not run"):
        load_model_folder(folder)
    (folder / "modules.json").write_text("{not json")
    with pytest.raises(EvaluateError, match="modules.json: not a sentence-transformers"):
        load_model_folder(folder)
