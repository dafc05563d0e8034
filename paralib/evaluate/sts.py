"""Semantic textual similarity: STS 2012-2016, STS Benchmark and SICK relatedness.

The similarity of a pair is the cosine of its two embeddings (or a pair scorer's score);
Pearson's r and Spearman's ρ with the gold scores, × 100. STS 2012-2016 follows ParaNMT
(2018 §5.1, Table 8): the mean over the datasets of each year (not the competitions' weighted
mean), and the mean over all datasets (2019 Table 1). STS Benchmark dev and test as in 2018
Table 9; SICK relatedness as in Opusparcus Table 7.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from paralib.evaluate.base import Task, load_sets, register
from paralib.evaluate.encode import pair_similarities
from paralib.evaluate.evalmodel import EvalModel
from paralib.evaluate.loaders import STS_YEARS, Pairs, read_sick, read_sts, read_stsb
from paralib.evaluate.metrics import correlations, mean_of


class PairCorrelationTask(Task):
    """A task whose sets are scored pairs evaluated by correlation."""

    needs_encoder = False

    def languages(self, set_name: str, data: Pairs) -> tuple[str, ...]:
        return tuple(dict.fromkeys((data.lang_a, data.lang_b)))

    def run_set(self, model: EvalModel, set_name: str, data: Pairs) -> dict:
        sims = pair_similarities(model, data.a, data.b, data.lang_a, data.lang_b, self.settings)
        return correlations(sims, data.gold)


def sts_set_name(year: int, dataset: str) -> str:
    """The key of an STS 2012-2016 set: ``"2012 MSRpar"``."""
    return f"{year} {dataset.removeprefix('surprise.')}"


@register
class STS(PairCorrelationTask):
    """STS 2012-2016 (the 24 English test sets here)."""

    name = "sts"
    title = "STS 2012-2016"
    paper = "ParaNMT 2018 §5.1, Table 8; 2019 Table 1"
    notes = (
        "Pearson's r and Spearman's ρ × 100 between cosine similarity and the gold scores; "
        "pairs without a gold score are dropped.",
        "Year means are the mean over that year's datasets (2018 Table 8), not the "
        "competitions' weighted means; 'all' is the mean over every dataset evaluated.",
        "STS 2013 SMT is not in the data (LDC licence): the 2013 mean is over FNWN, OnWN "
        "and headlines, and 'all' is over 24 datasets, not 25.",
    )

    def load(self) -> dict[str, Any]:
        names = {sts_set_name(y, d): (y, d) for y, ds in STS_YEARS.items() for d in ds}
        return load_sets(list(names), lambda n: read_sts(self.settings.data, *names[n]))

    def summarise(self, sets: dict[str, dict]) -> dict:
        def means(done: list[dict]) -> dict:
            return {"pearson": mean_of([v["pearson"] for v in done]),
                    "spearman": mean_of([v["spearman"] for v in done]), "datasets": len(done)}

        ok = {k: v for k, v in sets.items() if v["status"] == "ok"}
        return {"years": {str(y): means([v for k, v in ok.items() if k.startswith(f"{y} ")])
                          for y in STS_YEARS}, "all": means(list(ok.values()))}


@register
class STSBenchmark(PairCorrelationTask):
    """STS Benchmark dev and test (2018 Table 9)."""

    name = "stsb"
    title = "STS Benchmark"
    paper = "ParaNMT 2018 Table 9"
    notes = ("Unsupervised: cosine similarity, no training on the STS Benchmark train split.",)

    def load(self) -> dict[str, Any]:
        return load_sets(["dev", "test"], partial(read_stsb, self.settings.data))


@register
class SICK(PairCorrelationTask):
    """SICK relatedness (Opusparcus Table 7 reports SICK-R Pearson's r)."""

    name = "sick"
    title = "SICK relatedness"
    paper = "Opusparcus 2018 §4.4, Table 7"
    notes = ("SICK's test split is not in the data; train and trial are evaluated as they are "
             "(the cosine needs no training).",)

    def load(self) -> dict[str, Any]:
        return load_sets(["train", "trial"], partial(read_sick, self.settings.data))
