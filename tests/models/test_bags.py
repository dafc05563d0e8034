"""Token-id bags: the flat form training cuts batches and negatives from, and the encoders'
bag path against the padded path."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
import torch

from paralib.models.bags import Bags
from paralib.models.config import ModelConfig
from paralib.models.encoders import ENCODERS

SEQS = [[5, 6, 7], [], [8], [9, 10, 11, 12, 13], [3, 4]]


def test_take_concat_slice_and_arrow_keep_every_sentence():
    bags = Bags.from_lists(SEQS)
    assert bags.to_lists() == SEQS
    assert bags.take([3, 1, 0, 0]).to_lists() == [SEQS[3], [], SEQS[0], SEQS[0]]
    assert Bags.concat([bags, bags.take([4])]).to_lists() == SEQS + [SEQS[4]]
    assert bags.slice(1, 4).to_lists() == SEQS[1:4]
    sliced = pa.array(SEQS, type=pa.list_(pa.int32())).slice(2, 3)
    assert Bags.from_arrow(sliced).to_lists() == SEQS[2:5]
    assert Bags.from_lists(SEQS, max_tokens=2).to_lists() == [s[:2] for s in SEQS]


def test_word_dropout_keeps_one_token_and_scrambling_keeps_the_multiset():
    rng = np.random.default_rng(0)
    bags = Bags.from_lists([list(range(2, 12))] * 200 + [[7]] * 50)
    dropped = bags.noised(0.9, 0.0, rng)
    lengths = dropped.lengths
    assert lengths.min() >= 1 and lengths[-50:].tolist() == [1] * 50   # singletons stay
    assert 0.05 < lengths[:200].mean() / 10 < 0.2                       # about 10 % kept
    assert all(set(s) <= set(range(2, 12)) for s in dropped.to_lists())
    mixed = bags.noised(0.0, 1.0, rng).to_lists()
    assert all(sorted(s) == sorted(t) for s, t in zip(mixed, bags.to_lists(), strict=True))
    assert sum(s != t for s, t in zip(mixed, bags.to_lists(), strict=True)) > 150
    kept = bags.noised(0.0, 0.0, rng)
    assert kept.to_lists() == bags.to_lists()


@pytest.mark.parametrize("name", ["avg", "lstm", "gran"])
def test_bag_path_equals_padded_path(name):
    """Encoding bags gives the vectors of the padded batch (the averaging encoder reads the
    bags without padding, the others through their padded form)."""
    torch.manual_seed(0)
    kwargs = {} if name == "avg" else {"hidden": 16}
    enc = ENCODERS[name](20, 16, **kwargs).eval()
    seqs = [s for s in SEQS if s]
    with torch.no_grad():
        padded = enc(*Bags.from_lists(seqs, 100).padded())
        bagged = enc.forward_bags(Bags.from_lists(seqs))
    assert torch.allclose(padded, bagged, atol=1e-6)


def test_sentence_dropout_drops_whole_dimensions_of_the_mean():
    """``dropout_on: sentence`` is one mask per sentence: every output entry is 0 or the
    mean scaled by 1 / (1 - p); ``tokens`` noise differs token by token, so it is neither."""
    torch.manual_seed(0)
    bags = Bags.from_lists([[2, 3, 4, 5]] * 50)
    sentence = ENCODERS["avg"](8, 32, dropout=0.5, dropout_on="sentence").train()
    tokens = ENCODERS["avg"](8, 32, dropout=0.5, dropout_on="tokens").train()
    tokens.load_state_dict(sentence.state_dict())
    with torch.no_grad():
        mean = sentence.eval().forward_bags(bags)
        out = sentence.train().forward_bags(bags)
        noisy = tokens.forward_bags(bags)
    scaled = torch.isclose(out, 2 * mean, atol=1e-6) | (out == 0)
    assert bool(scaled.all()) and 0.3 < float((out == 0).float().mean()) < 0.7
    assert not bool((torch.isclose(noisy, 2 * mean, atol=1e-6) | (noisy == 0)).all())


def test_dropout_on_is_validated():
    with pytest.raises(ValueError, match="dropout_on"):
        ModelConfig(parts=[{"name": "sp", "dropout_on": "pieces"}])
