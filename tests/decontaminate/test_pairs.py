"""In-memory decontamination, duplicates and groups (the training path)."""

from __future__ import annotations

import re

import pandas as pd

from paralib.decontaminate.pairs import clean_pairs, group_components
from paralib.evaluate.loaders import read_stsb


def test_contaminated_and_duplicate_pairs_are_rejects_with_reasons(data_dir, eval_index):
    planted = read_stsb(data_dir, "test").a[0]
    df = pd.DataFrame({
        "s1": ["The quartermaster counted seventeen brass lanterns.", planted.upper(),
               "The quartermaster counted seventeen brass lanterns.",
               "Our allotment committee postponed the marrow contest."],
        "s2": ["Der Quartiermeister zählte siebzehn Messinglaternen.", "Irgendwas.",
               "Der Quartiermeister zählte siebzehn Messinglaternen.",
               "Unser Kleingartenausschuss verschob den Kürbiswettbewerb."],
        "lang2": ["de"] * 4})
    kept, rejected, per_set = clean_pairs(df, eval_index, english=["s1", "s2"])
    # an STS Benchmark sentence comes from an STS year: the first set holding it is named
    assert re.fullmatch(r"contaminated: (stsb|sts201\d) \(exact\)", rejected["reason"].iloc[0])
    assert rejected["reason"].iloc[1] == "duplicate pair"
    assert sum(per_set.values()) == 1
    assert len(kept) == 2 and "group" in kept.columns


def test_without_an_index_nothing_is_decontaminated(data_dir):
    planted = read_stsb(data_dir, "test").a[0]
    df = pd.DataFrame({"s1": [planted], "s2": ["x y"], "lang2": ["de"]})
    kept, rejected, _ = clean_pairs(df, None)
    assert len(kept) == 1 and rejected.empty


def test_groups_join_chains_of_shared_sides_and_explicit_groups():
    df = pd.DataFrame({
        "s1": ["A man sleeps.", "a man sleeps", "The sky is blue.", "Verse one, KJV",
               "Unrelated sentence."],
        "s2": ["B", "C", "a man sleeps!", "Verse one, WEB", "Nothing."],
        "group": [None, None, None, "bible:Gen 1:1", None]})
    g = group_components(df, ["s1", "s2"])
    assert g[0] == g[1] == g[2]  # equal normal forms, and a chain through s2
    assert len({g[0], g[3], g[4]}) == 3
    df2 = pd.DataFrame({"s1": ["Verse one, ASV"], "s2": ["Verse one, YLT"],
                        "group": ["bible:Gen 1:1"]})
    both = pd.concat([df, df2], ignore_index=True)
    g2 = group_components(both, ["s1", "s2"])
    assert g2[3] == g2[5] != g2[4]
