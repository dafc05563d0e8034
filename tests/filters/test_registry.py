"""The scorer registry: every built-in scorer is registered and declared once."""

from __future__ import annotations

import pytest

from paralib.filters import SCORERS, Direction, Scorer, ScorerError, get_scorer, register

BUILT_IN = {"length", "cost", "overlap", "bleu", "duplicates", "lm", "paraphrase"}


def test_built_in_scorers_are_registered():
    assert set(SCORERS) >= BUILT_IN
    for name in BUILT_IN:
        cls = SCORERS[name]
        assert cls.name == name and cls.columns and isinstance(cls.direction, Direction)
        assert cls.__doc__ and "§" in __import__(cls.__module__, fromlist=["_"]).__doc__
    columns = [c for name in BUILT_IN for c in SCORERS[name].columns]
    assert len(columns) == len(set(columns)), "two scorers write the same column"


def test_model_scorers_run_in_actors():
    assert SCORERS["lm"].needs_actor and SCORERS["paraphrase"].needs_actor
    assert not SCORERS["bleu"].needs_actor and not SCORERS["length"].needs_actor


def test_unknown_scorer_and_bad_params():
    with pytest.raises(ScorerError, match="unknown scorer 'nope'.*bleu"):
        get_scorer("nope")
    with pytest.raises(ScorerError, match="takes no parameters"):
        get_scorer("overlap", n=4)
    with pytest.raises(TypeError):
        get_scorer("lm")  # needs its model


def test_name_registered_twice_is_an_error():
    class Again(Scorer):
        name = "bleu"
        columns = ("x",)

    with pytest.raises(TypeError, match="registered twice"):
        register(Again)
