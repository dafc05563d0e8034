"""Examples for the reference/translation classifier (2017 §5.6.1).

References (with their k-best lists) are held out from mining and split 40,000 / 5,000 /
5,000 into train, dev and test; a smaller corpus gets the same 8:1:1 proportions of at most
``max_fraction`` of its references. Each reference is one example labelled 1 and one
hypothesis of its k-best list one example labelled 0: at random, or (``hardest``) the one the
current model finds most reference-like, re-chosen every epoch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from paralib.errors import InputError

PAPER_SPLIT = (40_000, 5_000, 5_000)


class ClassifierDataError(InputError, ValueError):
    """The pairs cannot make a classifier data set (missing columns, too few references)."""


@dataclass
class Split:
    """One part of the data: references, and all hypotheses with the index of their group."""

    refs: list[str]
    hyps: list[str]
    group: np.ndarray  # hyps[i] belongs to refs[group[i]]
    keys: pd.DataFrame  # corpus/id of each reference (the held-out rows)

    def random_negatives(self, rng: np.random.Generator) -> list[str]:
        """One hypothesis per reference, uniformly from its k-best list."""
        order = rng.permutation(len(self.hyps))
        first = pd.Series(order, index=self.group[order]).groupby(level=0).first()
        return [self.hyps[i] for i in first.sort_index().to_numpy()]

    def hardest_negatives(self, p_ref: np.ndarray) -> list[str]:
        """Per reference, the hypothesis with the highest P(reference)."""
        best = pd.Series(p_ref).groupby(self.group).idxmax().sort_index().to_numpy()
        return [self.hyps[i] for i in best]


def split_sizes(n_refs: int, max_fraction: float,
                sizes: tuple[int, int, int] = PAPER_SPLIT) -> tuple[int, int, int]:
    """Train/dev/test sizes: ``sizes`` when the corpus allows, else proportionally smaller."""
    total = min(sum(sizes), int(n_refs * max_fraction))
    dev = round(total * sizes[1] / sum(sizes))
    test = round(total * sizes[2] / sum(sizes))
    train = total - dev - test
    if min(train, dev, test) < 1:
        raise ClassifierDataError(
            f"{n_refs} references with max_fraction={max_fraction} leave {total} for the "
            "classifier: too few for a train/dev/test split")
    return train, dev, test


def make_splits(pairs: pd.DataFrame, max_fraction: float, seed: int) -> dict[str, Split]:
    """Hold out references with their k-best lists and split them into train/dev/test.

    Hypotheses identical to their reference are dropped (the same sentence cannot carry both
    labels), and so are references left with no hypothesis.
    """
    missing = [c for c in ("id", "ref", "trans") if c not in pairs.columns]
    if missing:
        raise ClassifierDataError(
            f"classifier training needs column(s) {', '.join(missing)}; the pairs have "
            f"{', '.join(map(str, pairs.columns))}")
    keys = ["corpus", "id"] if "corpus" in pairs.columns else ["id"]
    df = pairs.loc[:, [*keys, "ref", "trans"]].dropna(subset=["ref", "trans"])
    df = df[(df["ref"].str.strip() != "") & (df["trans"].str.strip() != "")]
    df = df[df["ref"] != df["trans"]].reset_index(drop=True)
    group = df.groupby(keys, sort=True).ngroup().to_numpy()
    n_groups = int(group.max()) + 1 if len(group) else 0
    train_n, dev_n, test_n = split_sizes(n_groups, max_fraction)
    chosen = np.random.default_rng(seed).permutation(n_groups)
    bounds = {"train": chosen[:train_n], "dev": chosen[train_n:train_n + dev_n],
              "test": chosen[train_n + dev_n:train_n + dev_n + test_n]}
    out = {}
    for name, groups in bounds.items():
        remap = np.full(n_groups, -1)
        remap[groups] = np.arange(len(groups))
        rows = df[remap[group] >= 0]
        local = remap[group[rows.index.to_numpy()]]
        firsts = rows.groupby(local, sort=True).head(1)
        firsts = firsts.iloc[np.argsort(remap[group[firsts.index.to_numpy()]], kind="stable")]
        out[name] = Split(refs=firsts["ref"].tolist(), hyps=rows["trans"].tolist(),
                          group=local, keys=firsts[keys].reset_index(drop=True))
    return out
