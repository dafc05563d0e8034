"""``paralib evaluate --model DIR`` on sentence-transformers and model2vec folders that were
changed by someone else: no code from the folder ever runs (paralib's own module is handed to
sentence-transformers, remote code stays off), and a broken file is one user error naming it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from paralib.cli import main

pytest.importorskip("sentence_transformers")
pytest.importorskip("model2vec")

TRANSFORMER = "sentence_transformers.sentence_transformer.modules.Transformer"


@pytest.fixture(scope="module")
def exported(en_text, tmp_path_factory) -> dict[str, Path]:
    """A small TRIGRAM model (a ParalibModule export) and a WORD model (a model2vec
    export), each as a paralib folder and its export."""
    import torch

    from paralib.export import export
    from paralib.models import ModelConfig, ParaphraseModel, fit_tokenizers, save_model

    root = tmp_path_factory.mktemp("hostile-peers")
    out = {}
    for name, part in (("trigram", {"name": "trigram", "vocab_size": 400, "dim": 16}),
                       ("word", {"name": "word", "vocab_size": 400, "dim": 16})):
        cfg = ModelConfig(parts=[part])
        torch.manual_seed(0)
        model = ParaphraseModel(cfg, fit_tokenizers(cfg, en_text[:1000]))
        model.initialise()
        out[name] = save_model(model.eval(), root / name, ("en",), {}, f"# {name}\n")
    out["trigram-st"] = export(out["trigram"], root / "trigram-st", "sentence-transformers").out
    out["word-m2v"] = export(out["word"], root / "word-m2v", "model2vec").out
    return out


def _plant_remote_code(src: Path, dst: Path, marker: Path, auto_map: bool = True) -> Path:
    """A copy of the ParalibModule export ``src`` with a ``Transformer`` module first, whose
    config would have transformers import ``evil.py`` from the folder (which writes
    ``marker`` when imported)."""
    shutil.copytree(src, dst)
    code = (f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\n"
            "from transformers import PretrainedConfig\n"
            "class EvilConfig(PretrainedConfig):\n    model_type = 'evil'\n")
    module = dst / "0_Transformer"
    module.mkdir()
    for where in (dst, module):
        (where / "evil.py").write_text(code)
    config: dict = {"model_type": "evil"}
    if auto_map:
        config["auto_map"] = {"AutoConfig": "evil.EvilConfig", "AutoModel": "evil.EvilModel"}
    (module / "config.json").write_text(json.dumps(config))
    (module / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 8}))
    own = json.loads((dst / "modules.json").read_text())
    modules = [{"idx": 0, "name": "0", "path": "0_Transformer", "type": TRANSFORMER}]
    modules += [dict(m, idx=i + 1, name=str(i + 1)) for i, m in enumerate(own)]
    (dst / "modules.json").write_text(json.dumps(modules))
    return dst


def _one_error(err: str) -> str:
    """The one ``paralib: error:`` line of what the command printed (no internal error)."""
    assert "internal error" not in err and "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("paralib: error: ")]
    assert len(lines) == 1, err
    return lines[0]


def test_remote_code_in_a_folder_is_refused_and_never_imported(exported, tmp_path, capsys):
    marker = tmp_path / "imported.txt"
    folder = _plant_remote_code(exported["trigram-st"], tmp_path / "evil", marker)
    assert main(["evaluate", "--model", str(folder), "--suite", "sts", "--out",
                 str(folder.parent / "out")]) == 2
    line = _one_error(capsys.readouterr().err)
    assert str(folder) in line and TRANSFORMER in line
    assert "0_Transformer/config.json sets auto_map" in line
    assert not marker.exists()


def test_remote_code_stays_off_for_every_module(exported, tmp_path, monkeypatch):
    """Past the folder check, sentence-transformers itself is asked for no remote code: the
    ParalibModule entry does not turn it on for the folder's other modules."""
    from paralib.evaluate import peers
    from paralib.evaluate.encoders import EvaluateError, load_model_folder

    marker = tmp_path / "imported.txt"
    folder = _plant_remote_code(exported["trigram-st"], tmp_path / "evil", marker)
    monkeypatch.setattr(peers, "refuse_folder_code", lambda folder, modules: None)
    with pytest.raises(EvaluateError, match="sentence-transformers cannot load") as err:
        load_model_folder(folder)
    assert "\n" not in str(err.value)
    assert not marker.exists()


def test_module_paths_stay_inside_the_folder(exported, tmp_path):
    from paralib.evaluate.encoders import EvaluateError, load_model_folder

    folder = Path(shutil.copytree(exported["trigram-st"], tmp_path / "st"))
    outside = shutil.move(folder / "0_ParalibModule", tmp_path / "outside")
    (folder / "0_ParalibModule").symlink_to(outside)
    with pytest.raises(EvaluateError, match=r"0_ParalibModule.*outside the model folder"):
        load_model_folder(folder)


def test_the_paralib_module_loads_without_remote_code(exported):
    """An unchanged export loads (paralib's class handed over, trust_remote_code off) and
    encodes as the paralib folder it came from."""
    import paralib
    from paralib.evaluate.encoders import load_model_folder

    texts = ["A dog runs in the park.", "Two women sit on a bench.", ""]
    got = load_model_folder(exported["trigram-st"]).encoder.encode(texts)
    want = paralib.load(exported["trigram"]).encode(texts)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_truncated_model2vec_tokenizer_is_one_user_error(exported, tmp_path, capsys):
    folder = Path(shutil.copytree(exported["word-m2v"], tmp_path / "m2v"))
    name = "tokenizer.json"
    path = folder / name
    path.write_text(path.read_text()[: len(path.read_text()) // 2])
    assert main(["evaluate", "--model", str(folder), "--suite", "sts", "--out",
                 str(folder.parent / "out")]) == 2
    line = _one_error(capsys.readouterr().err)
    assert f"{path} is not readable JSON" in line and f"the {name} that model2vec saved" in line


def test_unreadable_model2vec_weights_are_one_user_error(exported, tmp_path, capsys):
    folder = Path(shutil.copytree(exported["word-m2v"], tmp_path / "m2v"))
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])
    assert main(["evaluate", "--model", str(folder), "--suite", "sts", "--out",
                 str(tmp_path / "out")]) == 2
    line = _one_error(capsys.readouterr().err)
    assert f"{folder}: model2vec cannot load this folder" in line
