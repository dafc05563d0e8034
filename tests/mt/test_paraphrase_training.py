"""``paralib mt train`` with English on both sides (ParaNMT 2018 §6): pairs from a selection
(Parquet, ``ref`` → ``trans``), dev and test sides read as ``FILE#column``, and the
paraphrase metrics (copy baseline, self-BLEU, copy rate) by hand and after training."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from paralib.config import InputConfig, MTModelConfig, MTTrainConfig
from paralib.mt.data import load_pairs, read_side, read_text
from paralib.mt.metrics import paraphrase_metrics


@pytest.fixture(scope="module")
def selection(tiny_mt, m30k, tmp_path_factory):
    """A selection-like ``pairs.parquet`` of real pairs: Multi30k val references and the
    back-translations of their German side by the tiny model, plus one identical pair."""
    from paralib.translate.translator import Translator

    de, en = read_text(m30k["val_de"])[:600], read_text(m30k["val_en"])[:600]
    tr = Translator(tiny_mt / "ct2-int8", device="cpu", intra_threads=1)
    trans = [h[0].text for h in tr.translate(de, beam_size=1, max_decoding_length=40)]
    df = pd.DataFrame({"id": [f"m30k:00000:{i + 1}" for i in range(600)], "ref": en,
                       "trans": trans, "src": de})
    df.loc[5, "trans"] = df.loc[5, "ref"]
    path = tmp_path_factory.mktemp("sel") / "pairs.parquet"
    df.to_parquet(path)
    return path, df


def sel_input(path, **kw) -> InputConfig:
    return InputConfig(corpus="sel", src_lang="en", format="parquet", path=str(path),
                       src_field="ref", en_field="trans", **kw)


def test_english_pairs_keep_the_configured_direction(selection):
    path, df = selection
    pairs, skipped = load_pairs([sel_input(path)], "en", "en")
    assert pairs[0] == (df["ref"][0], df["trans"][0])  # source = src_field, target = en_field
    assert skipped["identical pair"] == 1 and len(pairs) == 600 - 1 - skipped["duplicate pair"]
    back, _ = load_pairs([InputConfig(corpus="sel", src_lang="en", format="parquet",
                                      path=str(path), src_field="trans", en_field="ref")],
                         "en", "en")
    assert back[0] == (df["trans"][0], df["ref"][0])


def test_english_model_needs_english_inputs(selection, m30k):
    de = InputConfig(corpus="m30k", src_lang="de", src=m30k["val_de"], en=m30k["val_en"])
    with pytest.raises(ValueError, match=r"en→en model needs inputs with src_lang en.*m30k \(de\)"):
        load_pairs([sel_input(selection[0]), de], "en", "en")
    with pytest.raises(ValueError, match="one side must be English"):
        load_pairs([de], "de", "fr")


def test_read_side_from_parquet_columns(selection, m30k):
    path, df = selection
    shuffled = path.parent / "shuffled.parquet"
    df.sample(frac=1, random_state=0).to_parquet(shuffled)
    assert read_side(f"{shuffled}#ref") == df.sort_values("id")["ref"].tolist()
    assert read_side(f"{shuffled}#trans") == df.sort_values("id")["trans"].tolist()
    assert read_side(m30k["val_en"])[:2] == read_text(m30k["val_en"])[:2]
    with pytest.raises(ValueError, match="no column 'hyp'"):
        read_side(f"{path}#hyp")


def test_paraphrase_metrics_by_hand():
    src = ["a man rides a red bike", "two dogs play in the snow"]
    m = paraphrase_metrics(src, [src[0], "two dogs are playing in snow"], src)
    assert m["copy_rate"] == 0.5 and m["copy_bleu"] == pytest.approx(100.0)
    assert m["self_bleu"] == m["bleu"] < 100
    assert m["length_ratio"] == pytest.approx(12 / 12)
    with pytest.raises(ValueError, match="as many hypotheses"):
        paraphrase_metrics(src, src[:1], src)


def test_train_english_to_english(selection, tmp_path):
    from paralib.mt.train import train_mt

    path, _ = selection
    test = f"{path}#ref"
    cfg = MTTrainConfig(
        src_lang="en", tgt_lang="en", inputs=[sel_input(path)],
        valid_src=test, valid_ref=f"{path}#trans", test_src=test, test_ref=f"{path}#trans",
        output=str(tmp_path / "en-en"),
        decontaminate=False,  # trains and tests on the same rows, on purpose (a smoke test)
        model=MTModelConfig(vocab_size=500, d_model=32, encoder_layers=1, decoder_layers=1,
                            attention_heads=2, ffn_dim=64, max_positions=96),
        batch_tokens=1500, max_len=48, lr=3e-3, warmup_steps=5, max_steps=12,
        eval_every=6, average_last=2, threads=1)
    metrics = train_mt(cfg, progress=False)
    assert metrics["steps"] == 12 and metrics["train_pairs"] > 500
    assert [h["step"] for h in metrics["history"]] == [6, 12]
    for key in ("bleu", "copy_bleu", "self_bleu", "copy_rate", "length_ratio"):
        assert f"{key}_int8" in metrics and f"{key}_float32" in metrics
    assert 0 <= metrics["copy_rate_int8"] <= 1
    meta = json.loads((tmp_path / "en-en" / "ct2-int8" / "paralib.json").read_text())
    assert (meta["src_lang"], meta["tgt_lang"]) == ("en", "en") and "self_bleu_int8" in meta
    card = (tmp_path / "en-en" / "ct2-int8" / "README.md").read_text()
    assert "paraphrase model (ParaNMT 2018 §6) en→en" in card and "self-BLEU" in card
    assert "on 1 thread(s)" in card
