"""Negative examples for the margin loss, mined as matrix operations (2017 §4.2, 2018 §4,
2019 §2).

Given the vectors of a mega-batch's pairs, each sentence gets a negative from a *pool*:

- monolingual pairs: every sentence of every pair in the mega-batch, except the two sentences
  of the sentence's own pair;
- bilingual pairs: only the sentences of the other language (2019 §2), except the partner.

``max`` takes the pool sentence with the highest cosine (one matrix product, the own pair
masked with −∞), ``rand`` a uniformly random one (never the own pair), and the trainer
alternates the two for ``mix``. The pool may include vectors gathered from other workers.

When the queries are the whole pool (one worker, or no gathering), the cosine matrix is
symmetric: :func:`hardest_in_pool` computes each block of it once and reads it by rows and by
columns, half the multiply-adds of the plain product (``benchmarks/train.py`` measures it).

Group-aware negatives (issue "A paraphrastic encoder worth downloading", item 1): with
``groups`` (one id per pair, :func:`paralib.decontaminate.pairs.group_components`) no sentence
of a pair in the anchor's group is ever its negative: not the other captions of its image,
not the other versions of its verse, not the same English sentence paired with another
language. Training's groups link every pair to the normal forms of both its sides, so a pool
sentence whose normal form equals the anchor's or its partner's is in the anchor's group too.
The group test is one comparison per cosine, done block by block beside the product. A query
whose whole pool is its own group keeps the old rule (only its own pair is excluded).
"""

from __future__ import annotations

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


def _fallback(best: torch.Tensor, sims_max: torch.Tensor, plain: torch.Tensor) -> torch.Tensor:
    """Rows whose every pool entry was masked (−∞) take ``plain`` (own pair excluded only)."""
    lost = torch.isneginf(sims_max)
    return torch.where(lost, plain, best) if bool(lost.any()) else best


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
    return _fallback(i, v, plain)


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
    if groups is not None:
        masked = _hardest_in_pool_grouped(x, half, block, groups)
        lost = masked < 0
        if bool(lost.any()):
            masked = torch.where(lost, hardest_in_pool(x, half, block), masked)
        return masked
    x = F.normalize(x, dim=-1)
    n = x.shape[0]
    best_v = torch.full((n,), float("-inf"), device=x.device, dtype=x.dtype)
    best_i = torch.zeros(n, dtype=torch.long, device=x.device)
    for a in range(0, n, block):
        xa = x[a:a + block]
        for b in range(a, n, block):
            sims = xa @ x[b:b + block].T
            for d in (0, half, -half):   # global column − row of the excluded entries
                offset = d - (b - a)
                if -sims.shape[0] < offset < sims.shape[1]:
                    sims.diagonal(offset).fill_(float("-inf"))
            v, i = sims.max(1)
            _update(best_v[a:a + len(xa)], best_i[a:a + len(xa)], v, i, b)
            if b != a:
                v, i = sims.max(0)
                _update(best_v[b:b + len(v)], best_i[b:b + len(v)], v, i, a)
    return best_i


def _hardest_in_pool_grouped(x: torch.Tensor, half: int, block: int,
                             groups: torch.Tensor) -> torch.Tensor:
    """:func:`hardest_in_pool` with the group mask; −1 for rows with no allowed entry."""
    x = F.normalize(x, dim=-1)
    n = x.shape[0]
    best_v = torch.full((n,), float("-inf"), device=x.device, dtype=x.dtype)
    best_i = torch.full((n,), -1, dtype=torch.long, device=x.device)
    gi, gj = same_group_pairs(groups, groups)  # (i, j) and (j, i): diagonal blocks need both
    for a in range(0, n, block):
        xa = x[a:a + block]
        in_rows = (gi >= a) & (gi < a + block)
        for b in range(a, n, block):
            sims = xa @ x[b:b + block].T
            for d in (0, half, -half):
                offset = d - (b - a)
                if -sims.shape[0] < offset < sims.shape[1]:
                    sims.diagonal(offset).fill_(float("-inf"))
            hit = in_rows & (gj >= b) & (gj < b + block)
            sims[gi[hit] - a, gj[hit] - b] = float("-inf")
            v, i = sims.max(1)
            _update(best_v[a:a + len(xa)], best_i[a:a + len(xa)], v, i, b)
            if b != a:
                v, i = sims.max(0)
                _update(best_v[b:b + len(v)], best_i[b:b + len(v)], v, i, a)
    best_i[torch.isneginf(best_v)] = -1
    return best_i


def random_pick_grouped(exclude: torch.Tensor, pool_size: int, query_groups: torch.Tensor,
                        pool_groups: torch.Tensor, generator: torch.Generator | None = None,
                        tries: int = 20) -> torch.Tensor:
    """:func:`random_pick`, redrawn (up to ``tries`` times) where the pick is in the query's
    group; rows still in their group after that keep the plain pick's rule (own pair only)."""
    pick = random_pick(exclude, pool_size, generator)
    for _ in range(tries):
        bad = pool_groups[pick] == query_groups
        if not bool(bad.any()):
            break
        again = random_pick(exclude[bad], pool_size, generator)
        pick[bad] = again
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
    """
    pool1 = e1 if pool1 is None else pool1
    pool2 = e2 if pool2 is None else pool2
    n, size = e1.shape[0], pool1.shape[0]
    own = torch.arange(offset, offset + n, device=e1.device)
    whole = offset == 0 and n == size
    g = None if groups is None else groups.to(own.device)
    qg = None if g is None else g[offset:offset + n]
    if bilingual:
        exclude = own[:, None]
        if mode == "max" and whole:   # one product: its rows serve e1, its columns e2
            sims = F.normalize(e1, dim=-1) @ F.normalize(e2, dim=-1).T
            sims.diagonal().fill_(float("-inf"))
            if g is None:
                return sims.argmax(1), sims.argmax(0)
            i, j = same_group_pairs(g, g)
            kept = sims[i, j]
            sims[i, j] = float("-inf")
            v1, i1 = sims.max(1)
            v2, i2 = sims.max(0)
            lost1, lost2 = torch.isneginf(v1), torch.isneginf(v2)
            if bool(lost1.any()) or bool(lost2.any()):   # whole pool in the group: own pair
                sims[i, j] = kept                        # excluded only (rare)
                i1 = torch.where(lost1, sims.argmax(1), i1)
                i2 = torch.where(lost2, sims.argmax(0), i2)
            return i1, i2
        if mode == "max":
            return hardest(e1, pool2, exclude, qg, g), hardest(e2, pool1, exclude, qg, g)
        return (_random(exclude, size, qg, g, generator).to(e1.device),
                _random(exclude, size, qg, g, generator).to(e1.device))
    exclude = torch.stack([own, own + size], 1)
    both_g = None if g is None else torch.cat([g, g])
    if mode == "max" and whole:
        best = hardest_in_pool(torch.cat([e1, e2]), size, groups=both_g)
        return best[:n], best[n:]
    if mode == "max":
        both = torch.cat([pool1, pool2])
        return (hardest(e1, both, exclude, qg, both_g),
                hardest(e2, both, exclude, qg, both_g))
    return (_random(exclude, 2 * size, qg, both_g, generator).to(e1.device),
            _random(exclude, 2 * size, qg, both_g, generator).to(e1.device))


def _random(exclude: torch.Tensor, pool_size: int, query_groups: torch.Tensor | None,
            pool_groups: torch.Tensor | None,
            generator: torch.Generator | None) -> torch.Tensor:
    """A random negative per row, out of the row's group when groups are given."""
    if query_groups is None or pool_groups is None:
        return random_pick(exclude.cpu(), pool_size, generator)
    return random_pick_grouped(exclude.cpu(), pool_size, query_groups.cpu(),
                               pool_groups.cpu(), generator)
