"""The one override engine: dotted keys with list indices, one message per failure naming the
key, what was found and what was expected, used alike by --set, experiments and tuning."""

from __future__ import annotations

import pytest

from paralib.config import Config, ConfigError, load_config
from paralib.errors import ConfigurationError
from paralib.overrides import OverrideError, UnknownKey, apply, check_key, parse, set_path

TREE = {"train": {"epochs": 5, "model": {"parts": [{"name": "word", "dim": 300}]},
                  "megabatch": None}}


def test_set_path_indexes_lists_creates_sections_and_copies_values():
    value = {"size": 20}
    out = apply(TREE, {"train.model.parts.0.dim": 16, "select.size": 9,
                       "train.megabatch.size": 4, "train.extra": value})
    assert out["train"]["model"]["parts"][0]["dim"] == 16
    assert out["select"] == {"size": 9} and out["train"]["megabatch"] == {"size": 4}
    assert TREE["train"]["model"]["parts"][0]["dim"] == 300  # the tree given is not touched
    value["size"] = 0
    assert out["train"]["extra"] == {"size": 20}             # nor shared with the value


@pytest.mark.parametrize(("key", "message"), [
    ("train.model.parts.1.dim", "override train.model.parts.1.dim: train.model.parts is a "
                                "list of 1; expected an index 0-0, got '1'"),
    ("train.model.parts.x", "train.model.parts is a list of 1; expected an index 0-0, got 'x'"),
    ("train.epochs.x", "override train.epochs.x: train.epochs is a value (5); expected a "
                       "section or list to hold 'x'"),
    ("select.bounds.0.lower", "override select.bounds.0.lower: select.bounds is absent; "
                              "expected a list to index: set the whole list first, e.g. "
                              "select.bounds=[...]"),
    ("train.megabatch.0", "train.megabatch is null; expected a list to index"),
    ("train..lr", "override train..lr: the key has an empty part; expected section.key"),
])
def test_one_message_names_key_found_and_expected(key, message):
    with pytest.raises(OverrideError) as err:
        apply(TREE, {key: 1})
    assert message in str(err.value)
    assert isinstance(err.value, ConfigurationError) and isinstance(err.value, ValueError)


def test_parse_reads_yaml_values_and_refuses_bad_items():
    assert parse("a.b=[1, 2]") == ("a.b", [1, 2])
    assert parse("a= ") == ("a", None) and parse("a=") == ("a", "")
    for bad in ("novalue", "=1"):
        with pytest.raises(OverrideError, match=f"--set expects key=value, got '{bad}'"):
            parse(bad)
    with pytest.raises(OverrideError, match="--set a: cannot read the value '\\[1' as YAML"):
        parse("a=[1")


def test_check_key_follows_the_schema_through_lists():
    check_key(Config, "train.model.parts.0.dim")
    check_key(Config, "select.noise.column")
    for key, message in (("train.learning_rate", "train has no key 'learning_rate'"),
                         ("train.epoch", "did you mean epochs?"),
                         ("train.model.parts.x", "train.model.parts is a list; expected an "
                                                 "index, got 'x'"),
                         ("train.lr.x", "train.lr is a value; expected a section to hold 'x'")):
        with pytest.raises(UnknownKey, match=message):
            check_key(Config, key)


def test_set_and_tuning_share_the_engine_and_its_messages():
    from paralib.tune.params import apply_parameters

    with pytest.raises(ConfigError, match="--set train.epochs.x: train.epochs is a value"):
        load_config(None, ["train.epochs=3", "train.epochs.x=1"])
    base = load_config(None, ["train.model.parts=[{name: word, dim: 8}]"])
    assert apply_parameters(base, {"train.model.parts.0.dim": 4}).train.model.parts[0].dim == 4
    with pytest.raises(OverrideError, match="parameter train.model.parts.2.dim: "
                                            "train.model.parts is a list of 1"):
        apply_parameters(base, {"train.model.parts.2.dim": 4})
    tree: dict = {}
    set_path(tree, "a.b", 1, "--set")
    assert tree == {"a": {"b": 1}}
