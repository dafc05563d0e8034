"""``paralib mt train`` streams its corpus into a token store: planted evaluation sentences,
held-out sentences and duplicates are left out with their reasons; the store is reused by
fingerprint, also from the resolved config another machine trains with; a planted checkpoint
runs no code."""

from __future__ import annotations

import gzip
import json
import os
import pickle
from pathlib import Path

import pytest

from paralib.config import InputConfig, MTModelConfig, MTTrainConfig, load_config
from paralib.mt.data import read_text
from paralib.mt.prepare import PreparedError, data_fingerprint, prepare


def _write(path, lines):
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return str(path)


@pytest.fixture()
def planted(tmp_path, m30k, data_dir):
    """200 Multi30k validation pairs plus planted lines, and a 5-pair validation set."""
    de, en = read_text(m30k["val_de"])[:200], read_text(m30k["val_en"])[:200]
    test_en = read_text(str(data_dir / "bitext/multi30k/task1/raw/test_2016_flickr.en.gz"))
    dev_de = ["Ein völlig neuer Satz für die Entwicklung steht hier.",
              "Noch ein zweiter Satz, nur für die Validierung gedacht."]
    dev_en = ["A completely new sentence for development is here.",
              "Another second sentence, meant only for validation."]
    plant_de = ["Planted one.", "Planted two.", dev_de[1], de[0], "Fast ein neuer Satz hier."]
    plant_en = [test_en[3],  # an evaluation sentence, exact
                test_en[4].upper().replace(".", " !"),  # re-cased, re-punctuated
                "Some English.",  # its German side is a validation sentence
                en[0],  # a duplicate pair
                "Almost a new sentence here."]  # a near miss of nothing: kept
    src = _write(tmp_path / "train.de.gz", de + plant_de)
    ref = _write(tmp_path / "train.en.gz", en + plant_en)
    vs = _write(tmp_path / "dev.de.gz", dev_de)
    vr = _write(tmp_path / "dev.en.gz", dev_en)
    return MTTrainConfig(
        src_lang="de", tgt_lang="en",
        inputs=[InputConfig(corpus="planted", src_lang="de", src=src, en=ref)],
        valid_src=vs, valid_ref=vr, output=str(tmp_path / "run"), shard_rows=64,
        model=MTModelConfig(vocab_size=300, d_model=32, encoder_layers=1, decoder_layers=1,
                            attention_heads=2, ffn_dim=64, max_positions=96),
        batch_tokens=800, max_len=48, max_steps=2, eval_every=2, threads=1)


def test_planted_pairs_are_left_out_with_reasons(planted):
    store, valid, vocab, info = prepare(planted, progress=False)
    skipped = info["skipped"]
    assert skipped["contaminated: multi30k-test (exact)"] >= 2
    assert skipped["in the validation or test set"] == 1
    assert skipped["duplicate pair"] >= 1
    assert info["per_eval_set"]["multi30k-test"] >= 2
    targets = {vocab.decode(store.pair(i)[1]) for i in range(len(store))}
    assert "Almost a new sentence here." in targets
    assert "Some English." not in targets
    assert len(valid) == 2
    # every line is kept or counted: 205 lines in
    reasons = sum(v for k, v in skipped.items())
    assert len(store) + reasons == 205


def test_store_is_reused_and_travels_with_the_resolved_config(planted, monkeypatch):
    prepare(planted, progress=False)
    out = planted.output
    marker = Path(f"{out}/data/train/store.json")
    before = marker.read_text()
    mtime = os.stat(marker).st_mtime_ns
    prepare(planted, progress=False)
    assert os.stat(marker).st_mtime_ns == mtime  # reused, not rewritten
    resolved = load_config(f"{out}/mt-config.yaml").mt
    assert resolved.corpora == [] and len(resolved.inputs) == 1
    assert data_fingerprint(resolved) == json.loads(before)["fingerprint"]
    # another vocabulary size is other data: prepared anew
    other = planted.model_copy(update={"model": planted.model.model_copy(
        update={"vocab_size": 280})})
    prepare(other, progress=False)
    assert json.loads(marker.read_text())["fingerprint"] != json.loads(before)["fingerprint"]


def test_a_trained_run_is_not_silently_given_other_data(planted):
    prepare(planted, progress=False)
    ck = Path(planted.output) / "checkpoints"
    ck.mkdir(parents=True)
    (ck / "last.pt").write_bytes(b"x")
    other = planted.model_copy(update={"max_len": 40})
    with pytest.raises(PreparedError, match="trained on other data"):
        prepare(other, progress=False)


class _Payload:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_a_planted_checkpoint_runs_no_code(planted, tmp_path):
    from paralib.mt.train import train_mt

    prepare(planted, progress=False)
    ran = tmp_path / "ran"
    ck = tmp_path / "run" / "checkpoints"
    ck.mkdir()
    with open(ck / "last.pt", "wb") as f:
        pickle.dump(_Payload(str(ran)), f)
    with pytest.raises(pickle.UnpicklingError):
        train_mt(planted, progress=False, convert_models=False)
    assert not ran.exists()


def test_an_output_folder_paralib_did_not_make_is_left_alone(planted):
    out = Path(planted.output)
    (out / "vocab").mkdir(parents=True)
    (out / "vocab" / "notes.txt").write_text("a user's file")
    with pytest.raises(PreparedError, match="holds files that paralib did not make"):
        prepare(planted, progress=False)
    assert (out / "vocab" / "notes.txt").read_text() == "a user's file"
    # a folder paralib prepared before is its own: prepared again in place
    (out / "vocab" / "notes.txt").unlink()
    (out / "vocab").rmdir()
    prepare(planted, progress=False)
    assert (out / "paralib-mt.json").is_file()
    other = planted.model_copy(update={"max_len": 40})
    prepare(other, progress=False)
    assert json.loads((out / "prepared.json").read_text())["fingerprint"] == \
        data_fingerprint(other)
