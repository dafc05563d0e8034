"""Negative mining: never the pair itself, the hardest found by one matrix product, equal to a
per-row loop, bilingual negatives from the other language only."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from paralib.train.mining import hardest, hardest_in_pool, negatives, random_pick


def loop_hardest(e1, e2):
    """The per-row reference: for each s1, the most similar other sentence of the batch."""
    n = len(e1)
    pool = torch.cat([e1, e2])
    out = []
    for i in range(n):
        best, arg = -2.0, -1
        for j in range(2 * n):
            if j in (i, i + n):
                continue
            c = F.cosine_similarity(e1[i], pool[j], dim=0).item()
            if c > best:
                best, arg = c, j
        out.append(arg)
    return torch.tensor(out)


def test_hardest_is_never_the_partner_even_when_it_is_closest():
    torch.manual_seed(0)
    e1 = torch.randn(50, 8)
    e2 = e1 + 0.01 * torch.randn(50, 8)  # each partner is by far the nearest
    t1, t2 = negatives(e1, e2, "max", bilingual=False)
    own = torch.arange(50)
    assert not torch.any(t1 == own) and not torch.any(t1 == own + 50)
    assert not torch.any(t2 == own) and not torch.any(t2 == own + 50)
    assert torch.equal(t1, loop_hardest(e1, e2))


def test_hardest_finds_a_planted_near_duplicate():
    torch.manual_seed(1)
    e1, e2 = torch.randn(20, 8), torch.randn(20, 8)
    e1[7] = e1[3] + 1e-3  # sentence 7 is almost sentence 3
    t1, _ = negatives(e1, e2, "max", bilingual=False)
    assert t1[3].item() == 7 and t1[7].item() == 3


def test_bilingual_negatives_come_from_the_other_language():
    torch.manual_seed(2)
    en, de = torch.randn(30, 8), torch.randn(30, 8)
    de[5] = en[9] * 3  # the German sentence most like English 9 belongs to pair 5
    t_en, t_de = negatives(en, de, "max", bilingual=True)
    assert t_en.max() < 30 and t_en[9].item() == 5  # an index into the German side
    assert not torch.any(t_en == torch.arange(30)) and not torch.any(t_de == torch.arange(30))


def test_random_negatives_avoid_the_pair_and_cover_the_pool():
    g = torch.Generator().manual_seed(0)
    exclude = torch.tensor([[0, 4]] * 4000)
    picks = random_pick(exclude, 8, g)
    assert set(picks.tolist()) == {1, 2, 3, 5, 6, 7}
    counts = torch.bincount(picks, minlength=8)[[1, 2, 3, 5, 6, 7]].float()
    assert counts.min() > 0.8 * counts.mean()


def test_gathered_pool_offsets_exclude_the_right_rows():
    torch.manual_seed(3)
    p1, p2 = torch.randn(12, 4), torch.randn(12, 4)
    mine1, mine2 = p1[4:8], p2[4:8]  # this worker holds pairs 4..7 of the pool
    p2[4:8] = mine1  # partners identical: would win if not excluded
    t1, _ = negatives(mine1, mine2, "max", False, offset=4, pool1=p1, pool2=p2)
    assert not any(t in (4 + i, 16 + i) for i, t in enumerate(t1.tolist()))
    assert torch.equal(hardest(mine1, torch.cat([p1, p2]),
                               torch.stack([torch.arange(4, 8), torch.arange(16, 20)], 1)), t1)


def test_block_triangle_matches_the_full_product_for_any_block_size():
    torch.manual_seed(4)
    n = 37  # not a multiple of any block below
    e1, e2 = torch.randn(n, 6), torch.randn(n, 6)
    e2[:5] = e1[:5] + 0.01 * torch.randn(5, 6)  # partners that would win if not excluded
    pool = torch.cat([e1, e2])
    own = torch.arange(n)
    full = hardest(pool, pool, torch.stack([torch.cat([own, own + n]),
                                            torch.cat([own + n, own])], 1))
    for block in (1, 8, 16, 37, 100):
        assert torch.equal(hardest_in_pool(pool, n, block), full), block


def test_bilingual_single_product_matches_two_products():
    torch.manual_seed(5)
    en, de = torch.randn(23, 6), torch.randn(23, 6)
    t_en, t_de = negatives(en, de, "max", bilingual=True)
    own = torch.arange(23)[:, None]
    assert torch.equal(t_en, hardest(en, de, own)) and torch.equal(t_de, hardest(de, en, own))


def test_a_planted_paraphrase_of_the_anchor_group_is_never_its_negative():
    torch.manual_seed(5)
    n = 40
    e1, e2 = torch.randn(n, 8), torch.randn(n, 8)
    e1[11] = e1[3] + 1e-3  # pair 11 is another caption of pair 3's image: nearest by far
    e2[11] = e2[3] + 1e-3
    groups = torch.arange(n)
    plain1, _ = negatives(e1, e2, "max", bilingual=False)
    assert plain1[3].item() in (11, 11 + n)  # without groups, the paraphrase is mined
    groups[11] = groups[3]
    for t1, t2 in (negatives(e1, e2, "max", False, groups=groups),
                   negatives(e1, e2, "max", False, offset=0, pool1=e1.clone(),
                             pool2=e2.clone(), groups=groups)):
        for i in (3, 11):
            assert t1[i].item() % n not in (3, 11) and t2[i].item() % n not in (3, 11)
    # the others are mined as before (pairs 3 and 11 only lose each other)
    masked, _ = negatives(e1, e2, "max", False, groups=groups)
    keep = [i for i in range(n) if plain1[i].item() % n not in (3, 11) and i not in (3, 11)]
    assert torch.equal(masked[keep], plain1[keep])


def test_group_aware_bilingual_and_random_negatives_skip_the_group():
    torch.manual_seed(6)
    n = 30
    en, de = torch.randn(n, 8), torch.randn(n, 8)
    de[5] = en[9] * 3  # the German side of pair 5 is closest to English 9 ...
    groups = torch.arange(n)
    groups[5] = groups[9]  # ... because pairs 5 and 9 share their English sentence
    t_en, _ = negatives(en, de, "max", bilingual=True, groups=groups)
    assert t_en[9].item() not in (5, 9)
    g = torch.Generator().manual_seed(0)
    groups = torch.arange(n) // 3  # groups of three pairs
    t1, t2 = negatives(en, de, "rand", bilingual=False, generator=g, groups=groups)
    for i, (a, b) in enumerate(zip(t1.tolist(), t2.tolist(), strict=True)):
        assert groups[a % n] != groups[i] and groups[b % n] != groups[i]


def test_a_pool_that_is_all_one_group_falls_back_to_excluding_the_pair():
    torch.manual_seed(7)
    e1, e2 = torch.randn(6, 4), torch.randn(6, 4)
    one = torch.zeros(6, dtype=torch.long)
    assert torch.equal(negatives(e1, e2, "max", False, groups=one)[0],
                       negatives(e1, e2, "max", False)[0])


def test_blocked_group_mask_equals_the_dense_masked_argmax_for_any_block():
    torch.manual_seed(8)
    n = 23
    e1, e2 = torch.randn(n, 5), torch.randn(n, 5)
    groups = torch.randint(0, 9, (n,))  # groups of about 2-3 pairs
    x = F.normalize(torch.cat([e1, e2]), dim=-1)
    sims = x @ x.T
    both = torch.cat([groups, groups])
    sims[both[:, None] == both[None, :]] = float("-inf")
    want = sims.argmax(1)
    for block in (3, 7, 46, 1024):
        assert torch.equal(hardest_in_pool(torch.cat([e1, e2]), n, block, both), want)
