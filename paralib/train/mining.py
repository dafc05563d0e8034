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
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def hardest(queries: torch.Tensor, pool: torch.Tensor, exclude: torch.Tensor) -> torch.Tensor:
    """Index in ``pool`` of the most cosine-similar row for every query, never one of the
    pool indices in ``exclude[i]`` (shape ``(n, k)``)."""
    sims = F.normalize(queries, dim=-1) @ F.normalize(pool, dim=-1).T
    sims.scatter_(1, exclude, float("-inf"))
    return sims.argmax(1)


def _update(best_v: torch.Tensor, best_i: torch.Tensor, v: torch.Tensor, i: torch.Tensor,
            start: int) -> None:
    """Keep the running maximum: rows where ``v`` beats ``best_v`` take ``i + start``; ties keep
    the earlier (lower) index, as ``argmax`` over a whole row would."""
    better = v > best_v
    best_v[better] = v[better]
    best_i[better] = i[better] + start


def hardest_in_pool(x: torch.Tensor, half: int, block: int = 1024) -> torch.Tensor:
    """For every row of ``x`` the index of its most cosine-similar other row, never ``i`` itself
    nor its partner ``i ± half`` (a monolingual mega-batch: ``x = [side 1; side 2]``).

    Walks the upper block triangle of ``x̂ x̂ᵀ`` (blocks of ``block`` rows): each block gives
    the maxima of its rows and, transposed, of its columns."""
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
              pool2: torch.Tensor | None = None, generator: torch.Generator | None = None
              ) -> tuple[torch.Tensor, torch.Tensor]:
    """Negatives ``(t1, t2)`` for the pairs ``(e1[i], e2[i])`` as indices into the text pool.

    ``pool1`` / ``pool2`` are the first / second sides of all pairs in the pool (default:
    ``e1`` / ``e2``); this worker's pairs sit at rows ``offset … offset + n`` of them. The text
    pool is ``side1 + side2`` (monolingual: indices ``< P`` are first sides), or for bilingual
    pairs the other language's side only: ``t1`` indexes ``pool2`` and ``t2`` indexes ``pool1``.
    """
    pool1 = e1 if pool1 is None else pool1
    pool2 = e2 if pool2 is None else pool2
    n, size = e1.shape[0], pool1.shape[0]
    own = torch.arange(offset, offset + n, device=e1.device)
    whole = offset == 0 and n == size
    if bilingual:
        exclude = own[:, None]
        if mode == "max" and whole:   # one product: its rows serve e1, its columns e2
            sims = F.normalize(e1, dim=-1) @ F.normalize(e2, dim=-1).T
            sims.diagonal().fill_(float("-inf"))
            return sims.argmax(1), sims.argmax(0)
        if mode == "max":
            return hardest(e1, pool2, exclude), hardest(e2, pool1, exclude)
        return (random_pick(exclude.cpu(), size, generator).to(e1.device),
                random_pick(exclude.cpu(), size, generator).to(e1.device))
    exclude = torch.stack([own, own + size], 1)
    if mode == "max" and whole:
        best = hardest_in_pool(torch.cat([e1, e2]), size)
        return best[:n], best[n:]
    if mode == "max":
        both = torch.cat([pool1, pool2])
        return hardest(e1, both, exclude), hardest(e2, both, exclude)
    return (random_pick(exclude.cpu(), 2 * size, generator).to(e1.device),
            random_pick(exclude.cpu(), 2 * size, generator).to(e1.device))
