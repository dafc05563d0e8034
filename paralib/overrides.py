"""paralib's one override engine: dotted keys set in a config tree, with list indices.

The command line's ``--set train.model.parts.0.dim=64`` (:func:`paralib.config.load_config`),
an experiment's ``set:`` and size overrides (:mod:`paralib.experiments.plan`) and a tuning
trial's dotted parameters (:mod:`paralib.tune.params`) all go through :func:`set_path`: a
numeric key indexes a list, a missing or null section is created, and a key that cannot be
set fails with one :class:`OverrideError` naming the key, what was found there and what was
expected. :func:`check_key` checks a dotted key against a pydantic schema before any tree
exists (a search space's keys).
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Mapping
from typing import Any

import yaml
from pydantic import BaseModel

from paralib.errors import ConfigurationError
from paralib.redact import summary
from paralib.schema import load_yaml, models_in


class OverrideError(ConfigurationError, ValueError):
    """A dotted override that cannot be read or has no place in the tree."""


class UnknownKey(OverrideError):
    """A dotted key that names no field of the schema."""


def parse(item: str, label: str = "--set") -> tuple[str, Any]:
    """Parse ``a.b=value`` (the value read as YAML, :func:`paralib.schema.load_yaml`) into
    ``("a.b", value)``."""
    key, eq, raw = item.partition("=")
    if not eq or not key.strip():
        raise OverrideError(f"{label} expects key=value, got {summary(item)}")
    try:
        value = load_yaml(raw) if raw != "" else ""
    except yaml.YAMLError as exc:
        raise OverrideError(f"{label} {key.strip()}: cannot read the value {summary(raw)} as "
                            f"YAML: {exc}") from None
    return key.strip(), value


_ABSENT = object()


def _found(value: Any) -> str:
    """What a tree holds at a place, for a message: ``a value (5)``, ``null``, ``absent``."""
    if value is _ABSENT:
        return "absent"
    if value is None:
        return "null"
    return f"a value ({summary(value, 40)})"


def set_path(tree: dict, dotted: str, value: Any, label: str = "override") -> None:
    """Set ``dotted`` (``a.b.0.c``) in ``tree`` to a copy of ``value``: a numeric key indexes
    a list the tree already holds; a missing or null section on the way is created."""
    keys = dotted.split(".")
    if not all(keys):
        raise OverrideError(f"{label} {dotted}: the key has an empty part; expected "
                            "section.key, e.g. train.lr")
    node: Any = tree
    for depth, key in enumerate(keys):
        where = ".".join(keys[:depth]) or "the top level"
        if isinstance(node, list):
            if not key.isdigit() or int(key) >= len(node):
                raise OverrideError(f"{label} {dotted}: {where} is a list of {len(node)}; "
                                    f"expected an index 0-{len(node) - 1}, got '{key}'")
            at: Any = int(key)
        elif isinstance(node, dict):
            at = key
        else:
            raise OverrideError(f"{label} {dotted}: {where} is {_found(node)}; expected a "
                                f"section or list to hold '{key}'")
        if depth == len(keys) - 1:
            node[at] = copy.deepcopy(value)
            return
        if isinstance(node, dict) and node.get(key) is None:
            if keys[depth + 1].isdigit():
                here = ".".join(keys[:depth + 1])
                raise OverrideError(
                    f"{label} {dotted}: {here} is {_found(node.get(key, _ABSENT))}; expected a "
                    f"list to index: set the whole list first, e.g. {here}=[...]")
            node[key] = {}
        node = node[at]


def apply(tree: Mapping[str, Any], overrides: Mapping[str, Any],
          label: str = "override") -> dict:
    """A copy of ``tree`` with every ``dotted: value`` of ``overrides`` set, in order."""
    out = copy.deepcopy(dict(tree))
    for key, value in overrides.items():
        set_path(out, key, value, label)
    return out


def check_key(schema: type[BaseModel], dotted: str, label: str = "key") -> None:
    """Raise :class:`UnknownKey` unless ``dotted`` (``section.field[.index].field``) names a
    field of ``schema``."""
    model: type[BaseModel] | None = schema
    parts = dotted.split(".")
    i = 0
    while i < len(parts):
        part, where = parts[i], ".".join(parts[:i]) or "the top level"
        if model is None or part not in model.model_fields:
            close = difflib.get_close_matches(part, list(model.model_fields) if model else [])
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            raise UnknownKey(f"{label} {dotted}: {where} has no key '{part}'{hint}")
        sub, is_list = models_in(model.model_fields[part].annotation)
        i += 1
        if is_list and i < len(parts):
            if not parts[i].isdigit():
                raise UnknownKey(f"{label} {dotted}: {'.'.join(parts[:i])} is a list; "
                                 f"expected an index, got '{parts[i]}'")
            i += 1
        if sub is None and i < len(parts):
            raise UnknownKey(f"{label} {dotted}: {'.'.join(parts[:i])} is a value; expected "
                             f"a section to hold '{parts[i]}'")
        model = sub
