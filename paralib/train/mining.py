"""Negative examples for the margin loss, mined as matrix operations (2017 §4.2, 2018 §4,
2019 §2).

Given the vectors of a mega-batch's pairs, each sentence gets a negative from a *pool*:

- monolingual pairs: every sentence of every pair in the mega-batch, except the two sentences
  of the sentence's own pair;
- bilingual pairs: only the sentences of the other language (2019 §2), except the partner.

``max`` takes the pool sentence with the highest cosine (one matrix product, the own pair
masked with −∞), ``rand`` a uniformly random one (never the own pair), and the trainer
alternates the two for ``mix``. The pool may include vectors gathered from other workers.

``semihard`` (FaceNet, Schroff et al. 2015, §3.2) takes the hardest pool sentence that is
still farther from the anchor than its partner: the highest cosine *below*
``cos(anchor, partner)``. A row with no such sentence (every allowed one is closer than the
partner) falls back to the hardest allowed one, as ``max`` would choose. On caption pairs the
hardest negatives are mostly captions of other images of similar scenes, closer to the anchor
than its own partner (``benchmarks/caption_groups.py``), and ``max`` then collapses to a
constant encoder (results book experiment 7); semi-hard negatives are never closer.

When the queries are the whole pool (one worker, or no gathering), the cosine matrix is
symmetric: :func:`hardest_in_pool` computes each block of it once and reads it by rows and by
columns, half the multiply-adds of the plain product (``benchmarks/train.py`` measures it).

Group-aware negatives (a pair of the anchor's group is a paraphrase, not a negative): with
``groups`` (one id per pair, :func:`paralib.decontaminate.pairs.group_components`) no sentence
of a pair in the anchor's group is ever its negative: not the other captions of its image,
not the other versions of its verse, not the same English sentence paired with another
language. Training's groups link every pair to the normal forms of both its sides, so a pool
sentence whose normal form equals the anchor's or its partner's is in the anchor's group too.
The group test is one comparison per cosine, done block by block beside the product. A query
whose whole pool is its own group keeps the old rule (only its own pair is excluded).
"""

from __future__ import annotations

from collections.abc import Iterator

import torch
import torch.nn.functional as F


def same_group_pairs(rows: torch.Tensor, cols: torch.Tensor
                     ) -> tuple[torch.Tensor, torch.Tensor]:
    """Every ``(i, j)`` with ``rows[i] == cols[j]``, as two index tensors, found by sorting
    (no ``len(rows) x len(cols)`` comparison: most groups hold one pair, so there are few)."""
    uniq, inv = torch.unique(torch.cat([rows, cols]), return_inverse=True)
    rg, cg = inv[:len(rows)], inv[len(rows):]
    order = torch.argsort(cg, stable=True)
    counts = torch.bincount(cg, minlength=len(uniq))
    starts = torch.cumsum(counts, 0) - counts
    per_row = counts[rg]
    total = int(per_row.sum())
    i = torch.repeat_interleave(torch.arange(len(rows), device=rows.device), per_row)
    within = torch.arange(total, device=rows.device) - torch.repeat_interleave(
        torch.cumsum(per_row, 0) - per_row, per_row)
    j = order[torch.repeat_interleave(starts[rg], per_row) + within]
    return i, j


def _mask_groups(sims: torch.Tensor, rows: torch.Tensor | None, cols: torch.Tensor | None
                 ) -> None:
    """Set ``sims[i, j]`` to −∞ where ``rows[i] == cols[j]`` (same group)."""
    if rows is not None and cols is not None:
        i, j = same_group_pairs(rows, cols)
        sims[i, j] = float("-inf")


def hardest(queries: torch.Tensor, pool: torch.Tensor, exclude: torch.Tensor,
            query_groups: torch.Tensor | None = None,
            pool_groups: torch.Tensor | None = None) -> torch.Tensor:
    """Index in ``pool`` of the most cosine-similar row for every query, never one of the
    pool indices in ``exclude[i]`` (shape ``(n, k)``), nor (with groups) a row of the
    query's group."""
    sims = F.normalize(queries, dim=-1) @ F.normalize(pool, dim=-1).T
    sims.scatter_(1, exclude, float("-inf"))
    if query_groups is None or pool_groups is None:
        return sims.argmax(1)
    plain = sims.argmax(1)
    _mask_groups(sims, query_groups, pool_groups)
    v, i = sims.max(1)
    lost = torch.isneginf(v)  # every pool entry masked: own pair excluded only
    return torch.where(lost, plain, i) if bool(lost.any()) else i


def _update(best_v: torch.Tensor, best_i: torch.Tensor, v: torch.Tensor, i: torch.Tensor,
            start: int) -> None:
    """Keep the running maximum: rows where ``v`` beats ``best_v`` take ``i + start``; ties keep
    the earlier (lower) index, as ``argmax`` over a whole row would."""
    better = v > best_v
    best_v[better] = v[better]
    best_i[better] = i[better] + start


def hardest_in_pool(x: torch.Tensor, half: int, block: int = 1024,
                    groups: torch.Tensor | None = None) -> torch.Tensor:
    """For every row of ``x`` the index of its most cosine-similar other row, never ``i`` itself
    nor its partner ``i ± half`` (a monolingual mega-batch: ``x = [side 1; side 2]``), nor a
    row of its group (``groups``: one id per row of ``x``).

    Walks the upper block triangle of ``x̂ x̂ᵀ`` (blocks of ``block`` rows): each block gives
    the maxima of its rows and, transposed, of its columns (the group mask is symmetric)."""
    if groups is None:
        return _walk_pool(x, half, block)
    masked = _walk_pool(x, half, block, groups)
    lost = masked < 0
    if bool(lost.any()):
        masked = torch.where(lost, _walk_pool(x, half, block), masked)
    return masked


def _pool_blocks(x: torch.Tensor, half: int, block: int, groups: torch.Tensor | None
                 ) -> Iterator[tuple[int, int, torch.Tensor]]:
    """The blocks ``(a, b, x[a:a+block] x[b:b+block]ᵀ)`` of the upper block triangle of
    ``x xᵀ``, with each row's own entry, its partner's (``i ± half``) and (with ``groups``)
    those of its group at −∞."""
    n = x.shape[0]
    if groups is not None:
        gi, gj = same_group_pairs(groups, groups)  # (i, j) and (j, i): diagonal blocks need both
    for a in range(0, n, block):
        xa = x[a:a + block]
        if groups is not None:
            in_rows = (gi >= a) & (gi < a + block)
        for b in range(a, n, block):
            sims = xa @ x[b:b + block].T
            for d in (0, half, -half):   # global column − row of the excluded entries
                offset = d - (b - a)
                if -sims.shape[0] < offset < sims.shape[1]:
                    sims.diagonal(offset).fill_(float("-inf"))
            if groups is not None:
                hit = in_rows & (gj >= b) & (gj < b + block)
                sims[gi[hit] - a, gj[hit] - b] = float("-inf")
            yield a, b, sims


def _walk_pool(x: torch.Tensor, half: int, block: int,
               groups: torch.Tensor | None = None) -> torch.Tensor:
    """:func:`hardest_in_pool` without its fallback: with ``groups``, −1 for rows with no
    allowed entry."""
    x = F.normalize(x, dim=-1)
    n = x.shape[0]
    best_v = torch.full((n,), float("-inf"), device=x.device, dtype=x.dtype)
    best_i = torch.full((n,), 0 if groups is None else -1, dtype=torch.long, device=x.device)
    for a, b, sims in _pool_blocks(x, half, block, groups):
        v, i = sims.max(1)
        _update(best_v[a:a + len(v)], best_i[a:a + len(v)], v, i, b)
        if b != a:
            v, i = sims.max(0)
            _update(best_v[b:b + len(v)], best_i[b:b + len(v)], v, i, a)
    return best_i


def partner_cosines(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``cos(a[i], b[i])`` for every row: each anchor's threshold in ``semihard`` mining."""
    return (F.normalize(a, dim=-1) * F.normalize(b, dim=-1)).sum(-1)


def _below(sims: torch.Tensor, thresholds: torch.Tensor, dim: int
           ) -> tuple[torch.Tensor, torch.Tensor]:
    """Maximum and its index along ``dim`` among the entries below the row's (``dim=1``) or
    column's (``dim=0``) threshold; the value is −∞ where there is none."""
    t = thresholds[:, None] if dim == 1 else thresholds[None, :]
    return torch.where(sims < t, sims, float("-inf")).max(dim)


def _semihard_pick(sims: torch.Tensor, thresholds: torch.Tensor | None, dim: int
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """Along ``dim``: the semi-hard index (the hardest below the threshold, else the hardest;
    with no thresholds simply the hardest), and the hardest value (−∞: nothing allowed)."""
    v, i = sims.max(dim)
    if thresholds is None:
        return i, v
    under, j = _below(sims, thresholds, dim)
    return torch.where(torch.isneginf(under), i, j), v


def semihardest(queries: torch.Tensor, pool: torch.Tensor, exclude: torch.Tensor,
                thresholds: torch.Tensor, query_groups: torch.Tensor | None = None,
                pool_groups: torch.Tensor | None = None) -> torch.Tensor:
    """:func:`hardest` for semi-hard negatives (FaceNet §3.2): per query the most similar
    allowed pool row whose cosine is below ``thresholds[i]`` (the query's cosine with its
    partner, :func:`partner_cosines`); a query with no such row takes its hardest allowed
    row. A query whose whole pool is its group keeps the old rule (own pair excluded only)."""
    sims = F.normalize(queries, dim=-1) @ F.normalize(pool, dim=-1).T
    sims.scatter_(1, exclude, float("-inf"))
    _mask_groups(sims, query_groups, pool_groups)
    pick, v = _semihard_pick(sims, thresholds, 1)
    lost = torch.isneginf(v)
    if query_groups is not None and pool_groups is not None and bool(lost.any()):
        pick[lost] = semihardest(queries[lost], pool, exclude[lost], thresholds[lost])
    return pick


def semihard_in_pool(x: torch.Tensor, half: int, block: int = 1024,
                     groups: torch.Tensor | None = None) -> torch.Tensor:
    """:func:`hardest_in_pool` for semi-hard negatives (FaceNet §3.2): for row ``i`` of
    ``x = [side 1; side 2]`` the most similar allowed row whose cosine is below
    ``cos(x[i], x[i ± half])`` (its partner's), else (no such row) the most similar allowed row.

    The same upper block triangle, with two running maxima per row: the hardest overall and the
    hardest below the row's threshold; a block's columns are read against their own rows'
    thresholds. Rows whose whole pool is their group fall back to ``groups=None``."""
    x = F.normalize(x, dim=-1)
    n = x.shape[0]
    t = (x[:half] * x[half:2 * half]).sum(-1)
    t = torch.cat([t, t])
    hard_v = torch.full((n,), float("-inf"), device=x.device, dtype=x.dtype)
    semi_v = hard_v.clone()
    hard_i = torch.zeros(n, dtype=torch.long, device=x.device)
    semi_i = hard_i.clone()
    for a, b, sims in _pool_blocks(x, half, block, groups):
        rows, cols = slice(a, a + sims.shape[0]), slice(b, b + sims.shape[1])
        v, i = sims.max(1)
        _update(hard_v[rows], hard_i[rows], v, i, b)
        v, i = _below(sims, t[rows], 1)
        _update(semi_v[rows], semi_i[rows], v, i, b)
        if b != a:
            v, i = sims.max(0)
            _update(hard_v[cols], hard_i[cols], v, i, a)
            v, i = _below(sims, t[cols], 0)
            _update(semi_v[cols], semi_i[cols], v, i, a)
    pick = torch.where(torch.isneginf(semi_v), hard_i, semi_i)
    lost = torch.isneginf(hard_v)
    if groups is not None and bool(lost.any()):
        pick = torch.where(lost, semihard_in_pool(x, half, block), pick)
    return pick


def random_pick(exclude: torch.Tensor, pool_size: int, generator: torch.Generator | None = None
                ) -> torch.Tensor:
    """A uniformly random pool index per row that is none of ``exclude[i]`` (distinct ids).

    Draw in ``[0, pool_size − k)`` and step over the excluded indices in ascending order, so
    every allowed index is equally likely and no row is resampled."""
    n, k = exclude.shape
    if pool_size <= k:
        raise ValueError(f"a pool of {pool_size} has no sentence outside the {k} excluded")
    pick = torch.randint(0, pool_size - k, (n,), generator=generator)
    for col in exclude.sort(1).values.T:
        pick = pick + (pick >= col).long()
    return pick


def negatives(e1: torch.Tensor, e2: torch.Tensor, mode: str, bilingual: bool,
              offset: int = 0, pool1: torch.Tensor | None = None,
              pool2: torch.Tensor | None = None, generator: torch.Generator | None = None,
              groups: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Negatives ``(t1, t2)`` for the pairs ``(e1[i], e2[i])`` as indices into the text pool.

    ``pool1`` / ``pool2`` are the first / second sides of all pairs in the pool (default:
    ``e1`` / ``e2``); this worker's pairs sit at rows ``offset … offset + n`` of them. The text
    pool is ``side1 + side2`` (monolingual: indices ``< P`` are first sides), or for bilingual
    pairs the other language's side only: ``t1`` indexes ``pool2`` and ``t2`` indexes ``pool1``.
    ``groups`` (one id per pair of the pool) keeps every pair of the anchor's group out.
    ``mode``: ``max`` (hardest), ``semihard`` (hardest farther than the partner) or ``rand``.
    """
    pool1 = e1 if pool1 is None else pool1
    pool2 = e2 if pool2 is None else pool2
    n, size = e1.shape[0], pool1.shape[0]
    own = torch.arange(offset, offset + n, device=e1.device)
    whole = offset == 0 and n == size
    g = None if groups is None else groups.to(own.device)
    qg = None if g is None else g[offset:offset + n]
    hard = mode in ("max", "semihard")
    if bilingual:
        if hard and whole:
            return _bilingual_whole(e1, e2, g, mode == "semihard")
        exclude, pool_g, pool_size = own[:, None], g, size
        pools = (pool2, pool1)
    else:
        exclude, pool_size = torch.stack([own, own + size], 1), 2 * size
        pool_g = None if g is None else torch.cat([g, g])
        if hard and whole:
            in_pool = hardest_in_pool if mode == "max" else semihard_in_pool
            best = in_pool(torch.cat([e1, e2]), size, groups=pool_g)
            return best[:n], best[n:]
        pools = (torch.cat([pool1, pool2]),) * 2 if hard else ()
    if mode == "max":
        return (hardest(e1, pools[0], exclude, qg, pool_g),
                hardest(e2, pools[1], exclude, qg, pool_g))
    if mode == "semihard":
        t = partner_cosines(e1, e2)
        return (semihardest(e1, pools[0], exclude, t, qg, pool_g),
                semihardest(e2, pools[1], exclude, t, qg, pool_g))
    return (_random(exclude, pool_size, qg, pool_g, generator).to(e1.device),
            _random(exclude, pool_size, qg, pool_g, generator).to(e1.device))


def _bilingual_whole(e1: torch.Tensor, e2: torch.Tensor, g: torch.Tensor | None,
                     semi: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """Bilingual negatives of a whole pool from one product: its rows serve ``e1``, its
    columns ``e2``; ``semi``: semi-hard, each pair's threshold the product's diagonal."""
    sims = F.normalize(e1, dim=-1) @ F.normalize(e2, dim=-1).T
    t = sims.diagonal().clone() if semi else None
    sims.diagonal().fill_(float("-inf"))
    if g is None and t is None:
        return sims.argmax(1), sims.argmax(0)
    if g is None:
        return _semihard_pick(sims, t, 1)[0], _semihard_pick(sims, t, 0)[0]
    i, j = same_group_pairs(g, g)
    kept = sims[i, j]
    sims[i, j] = float("-inf")
    i1, v1 = _semihard_pick(sims, t, 1)
    i2, v2 = _semihard_pick(sims, t, 0)
    lost1, lost2 = torch.isneginf(v1), torch.isneginf(v2)
    if bool(lost1.any()) or bool(lost2.any()):   # whole pool in the group: own pair
        sims[i, j] = kept                        # excluded only (rare)
        i1 = torch.where(lost1, _semihard_pick(sims, t, 1)[0], i1)
        i2 = torch.where(lost2, _semihard_pick(sims, t, 0)[0], i2)
    return i1, i2


def _random(exclude: torch.Tensor, pool_size: int, query_groups: torch.Tensor | None,
            pool_groups: torch.Tensor | None, generator: torch.Generator | None,
            tries: int = 20) -> torch.Tensor:
    """A random negative per row (:func:`random_pick`); with groups, redrawn (up to ``tries``
    times) where the pick is in the query's group, and rows still in their group after that
    keep the plain pick's rule (own pair only)."""
    exclude = exclude.cpu()
    pick = random_pick(exclude, pool_size, generator)
    if query_groups is None or pool_groups is None:
        return pick
    query_groups, pool_groups = query_groups.cpu(), pool_groups.cpu()
    for _ in range(tries):
        bad = pool_groups[pick] == query_groups
        if not bool(bad.any()):
            break
        pick[bad] = random_pick(exclude[bad], pool_size, generator)
    return pick
