"""Fixtures of the export tests: a tiny model folder of every encoder kind, the texts to compare
them on, and the shipped model's exports."""

from __future__ import annotations

import pytest

# name -> the model section's parts (max_tokens 8 on "sp-cut": long texts are cut)
TINY = {
    "sp": [{"name": "sp", "vocab_size": 300, "dim": 16}],
    "sp-bpe": [{"name": "sp", "vocab_size": 300, "dim": 16, "sp_model_type": "bpe"}],
    "sp-cut": [{"name": "sp", "vocab_size": 300, "dim": 16, "max_tokens": 8}],
    "word": [{"name": "word", "vocab_size": 400, "dim": 16}],
    "trigram": [{"name": "trigram", "vocab_size": 400, "dim": 16}],
    "morfessor": [{"name": "morfessor", "vocab_size": 400, "dim": 16}],
    "lstm": [{"name": "lstm", "vocab_size": 300, "dim": 16}],
    "blstm": [{"name": "blstm", "vocab_size": 300, "dim": 16}],
    "gran": [{"name": "gran", "vocab_size": 300, "dim": 16}],
    "sp+trigram": [{"name": "sp", "vocab_size": 300, "dim": 16},
                   {"name": "trigram", "vocab_size": 400, "dim": 16}],
}
STATIC = ("sp", "sp-bpe", "sp-cut", "word")
# text that tokenisers get wrong easily: case, Greek final sigma, characters no piece holds,
# the markers' own characters, whitespace of every kind, nothing at all
EDGE = ["", " ", "A dog runs.", "ΟΔΟΣ ΣΟΦΟΣ. ΑΣ' Σ", "İstanbul'da ẞ ǅ", "emoji 🤖🤖 x🤖y 🤖",
        "zxqv qqqq jjjj!!!", "<pad> <unk> <s>", "a\u2581b \u2581 \u2581! \ue000 \ue001x",
        "tab\tnew\nline\x1cfs\u00a0nbsp\u3000ideo", "  leading and   inner  ",
        "ｆｕｌｌ ｗｉｄｔｈ", "日本語のテキストです。", "Привет, мир!", "مرحبا بالعالم",
        "don't 12³ ½ snake_case", "word " * 40]


@pytest.fixture(params=STATIC)
def static_kind(request) -> str:
    """Each kind sentence-transformers' StaticEmbedding and model2vec express."""
    return request.param


@pytest.fixture(params=[k for k in TINY if k not in STATIC])
def other_kind(request) -> str:
    """Each kind that exports as paralib's own sentence-transformers module."""
    return request.param


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory, en_text):
    """A saved tiny model folder of each kind of :data:`TINY` (untrained: random vectors,
    the ``<unk>`` row included, so a dropped or misplaced token shows)."""
    import torch

    from paralib.models import ModelConfig, ParaphraseModel, fit_tokenizers, save_model

    root = tmp_path_factory.mktemp("tiny-models")
    out = {}
    for i, (name, parts) in enumerate(TINY.items()):
        cfg = ModelConfig(parts=parts, combine="sum" if len(parts) > 1 else "concat")
        torch.manual_seed(i)
        model = ParaphraseModel(cfg, fit_tokenizers(cfg, en_text[:1000]))
        model.initialise()
        out[name] = save_model(model.eval(), root / name, ("en", "de"), {"epoch": 1},
                               "# tiny\n")
    return out


@pytest.fixture(scope="session")
def texts(en_text, data_dir):
    """Multi30k sentences (unseen and seen), STS Benchmark test sentences and :data:`EDGE`."""
    from paralib.evaluate.loaders import read_stsb

    stsb = read_stsb(data_dir, "test")
    return en_text[2000:2300] + en_text[:50] + stsb.a[:150] + stsb.b[:150] + EDGE


@pytest.fixture(scope="session")
def stsb_test(data_dir):
    """The STS Benchmark test pairs."""
    from paralib.evaluate.loaders import read_stsb

    return read_stsb(data_dir, "test")


@pytest.fixture(scope="session")
def shipped_exports(tmp_path_factory):
    """``models/paralib-en`` exported to both libraries, once."""
    pytest.importorskip("sentencepiece")
    from paralib.export import export
    from paralib.paths import models_root

    root = tmp_path_factory.mktemp("shipped-exports")
    source = models_root() / "paralib-en"
    return {"source": source,
            "st": export(source, root / "st", "sentence-transformers").out,
            "m2v": export(source, root / "m2v", "model2vec").out}


@pytest.fixture(scope="session")
def cosines():
    """Row cosines of two arrays (1 for two zero rows, 0 for one)."""
    import numpy as np

    def rows(a, b):
        na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
        cos = (a * b).sum(1) / np.maximum(na * nb, 1e-30)
        return np.where((na == 0) & (nb == 0), 1.0, cos)

    return rows
