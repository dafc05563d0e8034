"""``paralib export --to sentence-transformers``: every encoder kind loads in
``SentenceTransformer`` with paralib's vectors; the shipped model on the whole STS Benchmark
test set; the card; the output folder's safety; the command."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

import paralib
from paralib.export import ExportError, export

pytest.importorskip("sentence_transformers")  # the optional extra 'peers'
pytest.importorskip("model2vec")


def _st(folder, **kwargs):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(folder), device="cpu", local_files_only=True, **kwargs)


def _types(folder) -> list[str]:
    return [m["type"] for m in json.loads((folder / "modules.json").read_text())]


def test_static_models_export_as_static_embedding(static_kind, tiny_models, texts, tmp_path):
    kind = static_kind
    done = export(tiny_models[kind], tmp_path / "st", "sentence-transformers")
    assert done.module == "StaticEmbedding"
    assert _types(done.out) == [
        "sentence_transformers.sentence_transformer.modules.static_embedding.StaticEmbedding"]
    want = paralib.load(tiny_models[kind]).encode(texts)
    got = _st(done.out).encode(texts, batch_size=64)  # no paralib class, no remote code
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert not got[texts.index("")].any()


def test_other_models_export_as_paralib_module(other_kind, tiny_models, texts, tmp_path):
    kind = other_kind
    done = export(tiny_models[kind], tmp_path / "st", "sentence-transformers")
    assert done.module == "ParalibModule"
    assert _types(done.out) == ["paralib.export.st_module.ParalibModule"]
    with pytest.raises(ValueError, match="trust_remote_code"):
        _st(done.out)
    model = _st(done.out, trust_remote_code=True)
    assert model.get_embedding_dimension() == paralib.load(tiny_models[kind]).dim
    want = paralib.load(tiny_models[kind]).encode(texts)
    np.testing.assert_allclose(model.encode(texts, batch_size=64), want, rtol=1e-4, atol=1e-5)
    # the paralib model folder inside loads with paralib too
    inner = paralib.load(done.out / "0_ParalibModule")
    np.testing.assert_allclose(inner.encode(texts[:20]), want[:20], rtol=1e-5, atol=1e-6)


def test_shipped_model_matches_on_the_whole_stsb_test_set(shipped_exports, stsb_test,
                                                           cosines):
    sentences = list(dict.fromkeys(stsb_test.a + stsb_test.b))
    want = paralib.load(shipped_exports["source"]).encode(sentences)
    got = _st(shipped_exports["st"]).encode(sentences, batch_size=256)
    assert cosines(got, want).min() >= 0.9999


def test_sentence_transformers_evaluator_agrees_with_paralib_stsb(shipped_exports,
                                                                 stsb_test, data_dir):
    from sentence_transformers.sentence_transformer.evaluation import (
        EmbeddingSimilarityEvaluator,
    )

    from paralib.evaluate import Evaluation, Settings, evaluate
    from paralib.io.context import StageContext

    evaluator = EmbeddingSimilarityEvaluator(stsb_test.a, stsb_test.b, stsb_test.gold.tolist(),
                                             name="stsb-test", write_csv=False)
    theirs = evaluator(_st(shipped_exports["st"]))["stsb-test_pearson_cosine"] * 100
    report = evaluate(Evaluation({"paralib-en": str(shipped_exports["source"])}, ["stsb"],
                                 settings=Settings(data=data_dir)),
                      StageContext(progress=False)).dump()
    ours = report["tasks"]["stsb"]["models"]["paralib-en"]["sets"]["test"]["pearson"]
    assert theirs == pytest.approx(ours, abs=0.1)


def _front(folder) -> dict:
    import yaml

    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text[4:].split("\n---", 1)[0])


def test_cards_carry_languages_licence_and_scores(shipped_exports, tiny_models, tmp_path):
    from paralib.export.card import QUALITY, front_matter

    source = shipped_exports["source"]
    config = json.loads((source / "config.json").read_text())
    quality = json.loads(QUALITY.read_text())
    row = next(r for r in quality["rows"] if r["model"] == source.name)
    for key, library in (("st", "sentence-transformers"), ("m2v", "model2vec")):
        front = _front(shipped_exports[key])
        assert front["language"] == config["languages"]
        assert front["library_name"] == library
        assert front["license"] == front_matter(source / "README.md")["license"]
        assert front["datasets"] == front_matter(source / "README.md")["datasets"]
        results = front["model-index"][0]["results"]
        stsb = next(r for r in results if r["dataset"]["name"] == "STS Benchmark"
                    and r["dataset"]["split"] == "test")
        assert stsb["metrics"][0]["value"] == pytest.approx(row["STSB test"], abs=0.01)
    # a model without a row of quality.json: no model-index, a note, the MIT licence
    done = export(tiny_models["gran"], tmp_path / "g", "sentence-transformers")
    front = _front(done.out)
    assert "model-index" not in front and front["license"] == "mit"
    assert "trust_remote_code=True" in (done.out / "README.md").read_text()
    assert f"No row for {done.name}" in (done.out / "README.md").read_text()


def test_never_replaces_a_folder_paralib_did_not_make(tiny_models, tmp_path):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(ExportError, match="paralib did not make it"):
        export(tiny_models["sp"], foreign, "sentence-transformers")
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]
    with pytest.raises(ExportError, match="inside the model folder"):
        export(tiny_models["sp"], tiny_models["sp"], "sentence-transformers")
    with pytest.raises(ExportError, match="inside the model folder"):
        export(tiny_models["sp"], tiny_models["sp"] / "st", "sentence-transformers")
    with pytest.raises(ExportError, match="unknown export target 'tflite'"):
        export(tiny_models["sp"], tmp_path / "x", "tflite")
    # its own export is replaced, and nothing but the result is left beside it
    first = export(tiny_models["sp"], tmp_path / "st", "sentence-transformers").out
    export(tiny_models["word"], first, "sentence-transformers")
    assert json.loads((first / "tokenizer.json").read_text())["model"]["type"] == "BPE"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "st"]


def test_command(tiny_models, tmp_path, capsys):
    from paralib.cli import build_parser, leaf_parsers, main
    from paralib.errors import ParalibError
    from paralib.export.cli import add_parser, run

    export_help = dict(leaf_parsers(build_parser()))[("export",)].format_help()
    assert "example:\n  paralib export models/paralib-en" in export_help
    parser = argparse.ArgumentParser(prog="paralib")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["export", str(tiny_models["lstm"]), str(tmp_path / "out"),
                              "--to", "sentence-transformers"])
    assert run(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["module"] == "ParalibModule" and "trust_remote_code=True" in printed["load"]
    bad = ["export", str(tmp_path / "missing"), str(tmp_path / "o2"), "--to", "model2vec"]
    with pytest.raises(ParalibError, match="missing"):
        run(parser.parse_args(bad))
    assert main(bad) == 2  # one message with its hint
    err = capsys.readouterr().err
    assert err.startswith("paralib: error:") and "missing" in err and "hint:" in err
    assert not (tmp_path / "o2").exists()
