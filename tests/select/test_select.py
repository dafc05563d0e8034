"""Selection of a training set from scored pairs (2017 §5.2, 2018 §5.4, Opusparcus §3.2/§4.2)."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from paralib.io.context import StageContext
from paralib.select import (
    Bound,
    FoldSpec,
    NoiseSpec,
    SelectError,
    SelectSpec,
    read_pairs,
    select,
)
from paralib.select import run as selection


@pytest.fixture(scope="module")
def scored(m30k) -> pd.DataFrame:
    """2,000 Multi30k references with 3 'hypotheses' each and synthetic score columns."""
    with gzip.open(m30k["val_en"], "rt") as f:
        en = f.read().splitlines()[:1000]
    rng = np.random.default_rng(0)
    rows = []
    for i, ref in enumerate(en):
        words = ref.split()
        for k in range(3):
            trans = " ".join(words[: max(1, len(words) - k)])
            rows.append({"id": i, "corpus": "m30k", "ref": ref, "trans": trans, "rank": k,
                         "cost": float(rng.random()), "len_trans": len(trans.split())})
    df = pd.DataFrame(rows)
    df["para"] = rng.random(len(df))
    df.loc[::97, "para"] = np.nan
    return df


def test_bounds_combine_and_are_counted(scored):
    spec = SelectSpec(hypotheses="all", bounds=[Bound(column="len_trans", lower=8, upper=14),
                                                Bound(column="cost", upper=0.5)])
    out, rep = select(scored, spec)
    assert out["len_trans"].between(8, 14).all() and (out["cost"] <= 0.5).all()
    expect = scored[scored["len_trans"].between(8, 14) & (scored["cost"] <= 0.5)]
    assert len(out) == len(expect)
    steps = [s for s in rep["steps"] if s["step"] == "bound"]
    assert steps[0]["kept"] == scored["len_trans"].between(8, 14).sum()
    assert steps[1]["kept"] == len(expect)
    assert steps[1]["kept_alone"] == (scored["cost"] <= 0.5).sum()
    assert rep["rows_out"] == len(expect) and rep["seed"] == 0


def test_one_hypothesis_per_reference(scored):
    out, _ = select(scored, SelectSpec(hypotheses="best"))
    assert len(out) == 1000 and (out["rank"] == 0).all()
    out, _ = select(scored, SelectSpec(hypotheses="best", bounds=[Bound(column="rank", lower=1)]))
    assert (out["rank"] == 1).all() and out["id"].is_unique
    out, _ = select(scored, SelectSpec(hypotheses="random", seed=1))
    assert out["id"].is_unique and len(out) == 1000 and out["rank"].nunique() == 3


def test_folds_by_tenths(scored):
    out, rep = select(scored, SelectSpec(hypotheses="all",
                                         folds=FoldSpec(column="para", keep=[9, 10])))
    valid = scored["para"].dropna()
    assert len(out) == pytest.approx(0.2 * len(valid), abs=1)
    assert out["para"].min() >= valid.quantile(0.79)
    low, _ = select(scored, SelectSpec(hypotheses="all", folds=FoldSpec(column="para", keep=[1])))
    assert low["para"].max() <= valid.quantile(0.11)
    assert set(rep["steps"][-1]["value_ranges"]) == {"9", "10"}


@pytest.mark.parametrize("fraction", [0.8, 0.7, 0.6])
def test_noise_levels(scored, fraction):
    spec = SelectSpec(hypotheses="all", size=1000, seed=5,
                      noise=NoiseSpec(column="para", clean_fraction=fraction))
    out, rep = select(scored, spec)
    median = scored["para"].median()
    assert len(out) == 1000
    assert (out["para"] >= median).mean() == pytest.approx(fraction, abs=0.002)
    step = rep["steps"][-1]
    assert step["clean"] == round(fraction * 1000) and step["noisy"] == 1000 - step["clean"]


def test_fixed_size_sample_is_seeded(scored):
    a, _ = select(scored, SelectSpec(hypotheses="all", size=240, seed=3))
    b, _ = select(scored, SelectSpec(hypotheses="all", size=240, seed=3))
    c, _ = select(scored, SelectSpec(hypotheses="all", size=240, seed=4))
    assert len(a) == 240 and a.equals(b) and not a.equals(c)
    with pytest.raises(SelectError, match="size 24000 asked but only 3000"):
        select(scored, SelectSpec(hypotheses="all", size=24_000))


def test_labelled_negatives_never_equal_positives(scored):
    out, rep = select(scored, SelectSpec(hypotheses="all", labelled=True, seed=2))
    assert list(out.columns) == ["s1", "s2", "label"]
    pos, neg = out[out["label"] == 1], out[out["label"] == 0]
    assert len(pos) == len(neg) == 3000
    positives = set(zip(pos["s1"], pos["s2"], strict=True))
    assert not any(p in positives for p in zip(neg["s1"], neg["s2"], strict=True))
    assert (neg["s1"] != neg["s2"]).all()
    same_ref = scored.groupby("ref")["trans"].apply(set)
    assert not any(s2 in same_ref[s1] for s1, s2 in zip(neg["s1"], neg["s2"], strict=True))
    assert rep["steps"][-1] == {"step": "labelled", "positives": 3000, "negatives": 3000,
                                "kept": 6000}


def test_missing_column_is_named(scored):
    with pytest.raises(SelectError, match="bleu"):
        select(scored, SelectSpec(bounds=[Bound(column="bleu", lower=0.1)]))
    with pytest.raises(SelectError, match="p_ref"):
        select(scored, SelectSpec(folds=FoldSpec(column="p_ref", keep=[10])))
    with pytest.raises(ValidationError):
        Bound(column="cost")
    with pytest.raises(ValidationError):
        FoldSpec(column="cost", keep=[11])


def test_the_stage_writes_pairs_and_report(scored, tmp_path):
    src = tmp_path / "score" / "data" / "m30k-00000"
    src.mkdir(parents=True)
    scored.iloc[:1500].to_parquet(src / "part-0.parquet")
    scored.iloc[1500:].to_parquet(src / "part-1.parquet")
    (tmp_path / "score" / "_markers").mkdir()
    (tmp_path / "score" / "_markers" / "m30k-00000.json").write_text("{}")
    (tmp_path / "score" / "_summary.json").write_text("{}")  # a finished stage output
    pd.DataFrame({"corpus": ["m30k"] * 10, "id": range(10)}).to_parquet(tmp_path / "held.parquet")
    spec = SelectSpec(input=str(tmp_path / "score"), output=str(tmp_path / "sel"), seed=7,
                      exclude=[str(tmp_path / "held.parquet")],
                      bounds=[Bound(column="cost", upper=0.9)])
    rep = selection.run(spec, StageContext())
    out = read_pairs(str(tmp_path / "sel" / "pairs.parquet"))
    assert len(out) == rep["rows_out"] and not out["id"].isin(range(10)).any()
    saved = json.loads((tmp_path / "sel" / "selection.json").read_text())
    assert saved["seed"] == 7 and saved["spec"]["bounds"][0]["upper"] == 0.9
    assert [s["step"] for s in saved["steps"]] == ["input", "exclude", "bound", "hypotheses"]
    assert saved["steps"][1]["kept"] == 3000 - 30
