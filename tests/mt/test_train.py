"""``paralib mt train`` for a translation model: the language checks, the test-set BLEU and
the card (the X→X paraphrase case is in ``test_paraphrase_training.py``)."""

from __future__ import annotations

import json

from paralib.config import InputConfig, MTModelConfig, MTTrainConfig
from paralib.mt.data import load_pairs, read_text


def m30k_input(m30k, limit: int) -> InputConfig:
    return InputConfig(corpus="m30k", src_lang="de", src=m30k["val_de"], en=m30k["val_en"],
                       limit=limit)


def test_direction_follows_the_languages(m30k):
    de, en = read_text(m30k["val_de"])[0], read_text(m30k["val_en"])[0]
    assert load_pairs([m30k_input(m30k, 3)], "de", "en")[0][0] == (de, en)
    assert load_pairs([m30k_input(m30k, 3)], "en", "de")[0][0] == (en, de)
    pairs, skipped = load_pairs([m30k_input(m30k, 3)], "fr", "en")
    assert pairs == [] and skipped["wrong language"] == 3


def test_translation_model_reports_bleu(m30k, tmp_path):
    from paralib.mt.train import train_mt

    cfg = MTTrainConfig(
        src_lang="de", tgt_lang="en", inputs=[m30k_input(m30k, 400)],
        test_src=m30k["val_de"], test_ref=m30k["val_en"], output=str(tmp_path / "de-en"),
        decontaminate=False,  # trains and tests on the same rows, on purpose (a smoke test)
        model=MTModelConfig(vocab_size=400, d_model=32, encoder_layers=1, decoder_layers=1,
                            attention_heads=2, ffn_dim=64, max_positions=96),
        batch_tokens=1500, max_len=48, max_steps=4, eval_every=4, threads=1, beam_size=1)
    metrics = train_mt(cfg, progress=False)
    assert metrics["steps"] == 4 and 0 <= metrics["bleu_int8"] <= 100
    assert "self_bleu_int8" not in metrics and "copy_rate_int8" not in metrics
    card = (tmp_path / "de-en" / "ct2-int8" / "README.md").read_text()
    assert card.startswith("# paralib translation model de→en")
    assert "sacreBLEU on val.de.gz (beam 1, CTranslate2 int8)" in card
    meta = json.loads((tmp_path / "de-en" / "ct2-int8" / "paralib.json").read_text())
    assert meta["bleu_int8"] == metrics["bleu_int8"]


def test_device_choice():
    """``mt.device: auto`` trains on CUDA only where torch sees it; ``cuda`` without one is a
    resources error, not a crash inside torch."""
    import pytest
    import torch

    from paralib.errors import ResourcesError
    from paralib.mt.train import Device

    assert Device.choose("cpu").name == "cpu"
    assert Device.choose("auto").name == ("cuda" if torch.cuda.is_available() else "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ResourcesError, match="no CUDA device"):
            Device.choose("cuda")
