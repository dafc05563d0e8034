"""Encoders: padding never changes an embedding, GRAN reduces to AVG, combinations, init."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from paralib.models import ModelConfig, ParaphraseModel, fit_tokenizers
from paralib.models.config import ENCODER_NAMES
from paralib.models.encoders import ENCODERS
from paralib.models.init import WordVectorsError, read_vectors

NAMES = ["word", "trigram", "sp", "lstm", "blstm", "gran", "gran-gru", "morfessor"]


def small(name: str, en_text, **kw) -> ParaphraseModel:
    part = {"name": name, "vocab_size": 400, "dim": 16, **kw}
    cfg = ModelConfig(parts=[part])
    torch.manual_seed(0)
    model = ParaphraseModel(cfg, fit_tokenizers(cfg, en_text))
    model.initialise()
    return model.eval()


@pytest.mark.parametrize("name", NAMES)
def test_padding_does_not_change_an_embedding(name, en_text):
    model = small(name, en_text)
    short = "Two dogs play."
    alone = model.embed([short])
    batched = model.embed([short, "A very long sentence about a man who walks his dog in the "
                                  "park on a sunny afternoon while children play nearby."])
    torch.testing.assert_close(alone[0], batched[0], rtol=1e-5, atol=1e-6)
    (ids, lengths), = model.batch(model.token_ids([short]))
    wider = torch.nn.functional.pad(ids, (0, 7))  # seven more padding columns
    torch.testing.assert_close(model([(wider, lengths)]), alone, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_empty_sentence_is_the_zero_vector(name, en_text):
    vec = small(name, en_text).embed(["", "a dog"])
    assert torch.all(vec[0] == 0) and torch.any(vec[1] != 0)


def test_average_training_path_equals_embedding_bag(en_text):
    model = small("sp", en_text)
    batches = model.batch(model.token_ids(["A dog runs.", "Two men are talking outside."]))
    fast = model(batches)
    model.train()
    model.parts[0].dropout.p = 1e-12  # take the explicit masked-mean path, no real dropout
    torch.testing.assert_close(model(batches), fast, rtol=1e-5, atol=1e-6)


def test_gran_with_open_gate_is_avg(en_text):
    gran = small("gran", en_text)
    avg = small("word", en_text)
    avg.parts[0].embedding.weight.data.copy_(gran.parts[0].embedding.weight.data)
    with torch.no_grad():
        gran.parts[0].gate_x.bias.fill_(50.0)  # sigmoid(...) = 1
    texts = ["A man rides a horse.", "Children playing soccer in a field."]
    torch.testing.assert_close(gran.embed(texts), avg.embed(texts), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["gran", "gran-gru"])
def test_gran_is_eq_1_averaged_over_the_tokens(name, en_text):
    """2017 eq. 1 written out over the padded batch, gradients included."""
    from paralib.models.encoders.base import masked_mean
    from paralib.models.encoders.recurrent import run_rnn

    enc = small(name, en_text).parts[0]
    ids = torch.tensor([[5, 9, 12, 0], [0, 0, 0, 0], [7, 3, 0, 0]])
    lengths = torch.tensor([3, 0, 2])
    x = enc.embedding(ids)
    h = run_rnn(enc.rnn, x, lengths)
    by_hand = masked_mean(x * torch.sigmoid(enc.gate_x(x) + enc.gate_h(h)), lengths)
    ours = enc(ids, lengths)
    torch.testing.assert_close(ours, by_hand)
    assert torch.all(ours[1] == 0)
    weights = torch.randn_like(ours)
    grads = [torch.autograd.grad((v * weights).sum(), list(enc.parameters()))
             for v in (ours, by_hand)]
    for a, b in zip(*grads, strict=True):
        torch.testing.assert_close(a, b)


def test_blstm_averages_directions(en_text):
    model = small("blstm", en_text, hidden=8)
    assert model.out_dim == 8 and model.embed(["a dog"]).shape == (1, 8)


def test_sum_and_concat_combinations(en_text):
    parts = [{"name": "word", "vocab_size": 300, "dim": 16},
             {"name": "trigram", "vocab_size": 300, "dim": 16}]
    for combine, dim in (("sum", 16), ("concat", 32)):
        cfg = ModelConfig(parts=parts, combine=combine)
        model = ParaphraseModel(cfg, fit_tokenizers(cfg, en_text)).eval()
        model.initialise()
        vec = model.embed(["a dog"])
        assert vec.shape == (1, dim)
        word = model.parts[0](*model.batch(model.token_ids(["a dog"]))[0])
        tri = model.parts[1](*model.batch(model.token_ids(["a dog"]))[1])
        want = word + tri if combine == "sum" else torch.cat([word, tri], -1)
        torch.testing.assert_close(vec, want)
    with pytest.raises(ValueError, match="one size"):
        ModelConfig(parts=[parts[0], {**parts[1], "dim": 8}], combine="sum")


def test_unknown_encoder_is_a_config_error():
    with pytest.raises(ValueError, match="unknown encoder 'transformer'"):
        ModelConfig(parts=[{"name": "transformer"}])
    assert set(ENCODER_NAMES) == set(ENCODERS)


def test_random_init_ranges_and_zero_padding(en_text):
    model = small("word", en_text, init="uniform", init_scale=0.01)
    w = model.parts[0].embedding.weight
    assert w[1:].abs().max() <= 0.01 and torch.all(w[0] == 0)


def test_glove_initialisation_copies_known_words(en_text):
    model = small("word", en_text, pretrained="glove")
    words, vecs = read_vectors("glove")
    row = model.tokenizers[0].pieces().index("dog")
    want = torch.as_tensor(vecs[words.index("dog")], dtype=torch.float32)
    torch.testing.assert_close(model.parts[0].embedding.weight[row].detach(), want)


def test_text_vector_file(en_text, tmp_path):
    path = tmp_path / "vecs.txt"
    path.write_text("2 16\ndog " + " ".join(["0.5"] * 16) + "\ncat " + " ".join(["1"] * 16)
                    + "\n")
    model = small("word", en_text, pretrained=str(path))
    row = model.tokenizers[0].pieces().index("dog")
    assert np.allclose(model.parts[0].embedding.weight[row].detach().numpy(), 0.5)
    bad = tmp_path / "bad.txt"
    bad.write_text("dog 0.1 x\n")
    with pytest.raises(WordVectorsError, match="bad.txt:1"):
        read_vectors(str(bad))
