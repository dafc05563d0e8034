"""Semi-hard negatives (``train.negatives: semihard``, FaceNet §3.2): the hardest negative that
is farther from the anchor than its partner, else the hardest; in every mining path (whole pool
by block triangle, gathered pool, bilingual), with groups; ``max`` unchanged."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from pydantic import ValidationError

from paralib.fingerprint import covered
from paralib.train.config import TrainConfig
from paralib.train.mining import (
    hardest,
    negatives,
    partner_cosines,
    semihard_in_pool,
    semihardest,
)


def loop_semihard(e1, e2, groups=None):
    """The per-row reference for a monolingual pool ``[e1; e2]``: for each sentence the most
    similar allowed one below its partner's cosine, else the most similar allowed one."""
    n = len(e1)
    pool = F.normalize(torch.cat([e1, e2]), dim=-1)
    out = []
    for i in range(2 * n):
        partner = (i + n) % (2 * n)
        t = float(pool[i] @ pool[partner])
        below, best = (-2.0, -1), (-2.0, -1)
        for j in range(2 * n):
            if j in (i, partner) or (groups is not None and groups[j % n] == groups[i % n]):
                continue
            c = float(pool[i] @ pool[j])
            best = max(best, (c, j), key=lambda p: p[0])
            if c < t:
                below = max(below, (c, j), key=lambda p: p[0])
        out.append(below[1] if below[1] >= 0 else best[1])
    return torch.tensor(out)


def cos(x, i, j):
    x = F.normalize(x, dim=-1)
    return float(x[i] @ x[j])


def test_a_negative_closer_than_the_partner_is_mined_by_max_never_by_semihard():
    torch.manual_seed(0)
    n = 30
    e1, e2 = torch.randn(n, 8), torch.randn(n, 8)
    e1[7] = e1[3] + 0.05 * torch.randn(8)  # closer to sentence 3 than its partner e2[3]
    pool = torch.cat([e1, e2])
    assert cos(pool, 3, 7) > cos(pool, 3, 3 + n)
    hard, _ = negatives(e1, e2, "max", bilingual=False)
    semi, semi2 = negatives(e1, e2, "semihard", bilingual=False)
    assert hard[3].item() == 7
    assert semi[3].item() != 7
    for i, t in enumerate(torch.cat([semi, semi2]).tolist()):  # every pick is below its partner
        assert cos(pool, i, t) < cos(pool, i, (i + n) % (2 * n))
    assert torch.equal(torch.cat([semi, semi2]), loop_semihard(e1, e2))


def test_a_row_with_no_negative_below_its_partner_takes_the_hardest():
    torch.manual_seed(1)
    n = 20
    e1, e2 = torch.randn(n, 8), torch.randn(n, 8)
    e2[4] = -e1[4]  # cosine −1 with its partner: every other sentence is closer
    hard, _ = negatives(e1, e2, "max", bilingual=False)
    semi, _ = negatives(e1, e2, "semihard", bilingual=False)
    assert semi[4].item() == hard[4].item()
    assert (semi != hard).any()  # the other rows are not simply the hardest
    assert torch.equal(semi, loop_semihard(e1, e2)[:n])


def test_block_triangle_equals_the_full_product_for_any_block_with_and_without_groups():
    torch.manual_seed(2)
    n = 37  # not a multiple of any block below
    e1, e2 = torch.randn(n, 6), torch.randn(n, 6)
    e1[:6] = e2[6:12] + 0.05 * torch.randn(6, 6)  # negatives closer than the partners
    groups = torch.randint(0, 12, (n,))  # groups of about 3 pairs
    pool = torch.cat([e1, e2])
    own = torch.arange(n)
    exclude = torch.stack([torch.cat([own, own + n]), torch.cat([own + n, own])], 1)
    t = partner_cosines(e1, e2).repeat(2)
    both = torch.cat([groups, groups])
    for g in (None, both):
        full = semihardest(pool, pool, exclude, t, g, g)
        assert torch.equal(full, loop_semihard(e1, e2, None if g is None else groups))
        for block in (1, 8, 16, 37, 100):
            assert torch.equal(semihard_in_pool(pool, n, block, g), full), block


def test_groups_are_respected_and_an_all_group_pool_falls_back_to_the_pair_rule():
    torch.manual_seed(3)
    n = 40
    e1, e2 = torch.randn(n, 8), torch.randn(n, 8)
    e1[11] = e1[3] + 0.3 * torch.randn(8)  # pair 11: another caption of pair 3's image
    e2[11] = e2[3] + 0.3 * torch.randn(8)
    groups = torch.arange(n)
    groups[11] = groups[3]
    # every semi-hard pick of pair 3 is below its partner, but might still be pair 11 unless the
    # group is masked: check the mask by each path
    for t1, t2 in (negatives(e1, e2, "semihard", False, groups=groups),
                   negatives(e1, e2, "semihard", False, offset=0, pool1=e1.clone(),
                             pool2=e2.clone(), groups=groups)):
        for i in (3, 11):
            assert t1[i].item() % n not in (3, 11) and t2[i].item() % n not in (3, 11)
        assert torch.equal(torch.cat([t1, t2]), loop_semihard(e1, e2, groups))
    one = torch.zeros(n, dtype=torch.long)
    assert torch.equal(negatives(e1, e2, "semihard", False, groups=one)[0],
                       negatives(e1, e2, "semihard", False)[0])


def test_gathered_pool_gives_this_workers_rows_of_the_whole_pool():
    torch.manual_seed(4)
    p1, p2 = torch.randn(12, 4), torch.randn(12, 4)
    p1[9] = p1[5] + 0.05 * torch.randn(4)  # closer to sentence 5 than its partner
    mine1, mine2 = p1[4:8], p2[4:8]  # this worker holds pairs 4..7 of the pool
    groups = torch.tensor([0, 1, 2, 3, 4, 5, 6, 7, 4, 9, 10, 11])  # pairs 4 and 8: one image
    for g in (None, groups):
        t1, t2 = negatives(mine1, mine2, "semihard", False, offset=4, pool1=p1, pool2=p2,
                           groups=g)
        whole = semihard_in_pool(torch.cat([p1, p2]), 12, 5,
                                 None if g is None else torch.cat([g, g]))
        assert torch.equal(t1, whole[4:8]) and torch.equal(t2, whole[16:20])
        assert t1[1].item() != 9
    hard, _ = negatives(mine1, mine2, "max", False, offset=4, pool1=p1, pool2=p2)
    assert hard[1].item() == 9


def test_bilingual_semihard_one_product_equals_the_gathered_path():
    torch.manual_seed(5)
    n = 23
    en, de = torch.randn(n, 6), torch.randn(n, 6)
    de[5] = en[9] * 3  # the German side of pair 5 is closer to English 9 than its partner
    groups = torch.arange(n) // 2
    own = torch.arange(n)[:, None]
    t = partner_cosines(en, de)
    for g in (None, groups):
        t_en, t_de = negatives(en, de, "semihard", bilingual=True, groups=g)
        assert torch.equal(t_en, semihardest(en, de, own, t, g, g))
        assert torch.equal(t_de, semihardest(de, en, own, t, g, g))
        far = negatives(en[:8], de[:8], "semihard", True, offset=0, pool1=en, pool2=de,
                        groups=g)
        assert torch.equal(far[0], t_en[:8]) and torch.equal(far[1], t_de[:8])
        assert t_en[9].item() != 5 and t_en.max() < n
        for i, j in enumerate(t_en.tolist()):
            if g is None or g[j] != g[i]:
                assert cos(torch.cat([en, de]), i, n + j) < t[i] or j == hardest(
                    en[i:i + 1], de, own[i:i + 1]).item()
    assert negatives(en, de, "max", bilingual=True)[0][9].item() == 5


def test_semihard_is_an_option_and_max_stays_the_default():
    assert TrainConfig().negatives == "max"
    default = covered(TrainConfig().model_dump(mode="json"), TrainConfig)
    assert default["negatives"] == "max"
    semi = covered(TrainConfig(negatives="semihard").model_dump(mode="json"), TrainConfig)
    assert semi != default and semi["negatives"] == "semihard"
    with pytest.raises(ValidationError):
        TrainConfig(negatives="semi-hard")
