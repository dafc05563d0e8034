"""Dotted overrides of a config tree, as the experiment YAMLs write them.

``{"train.megabatch.size": 20}`` sets ``tree["train"]["megabatch"]["size"]``; a numeric key
indexes a list (``train.model.parts.0.dim``). Values are copied, so one run's overrides never
leak into another's tree.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from paralib.errors import ConfigurationError


class OverrideError(ConfigurationError, ValueError):
    """An override names a path that cannot exist in the tree."""


def set_path(tree: dict, dotted: str, value: Any) -> None:
    """Set ``dotted`` (``a.b.0.c``) in ``tree``, creating mappings on the way."""
    keys = dotted.split(".")
    if not all(keys):
        raise OverrideError(f"override key '{dotted}' has an empty part")
    node: Any = tree
    for i, key in enumerate(keys[:-1]):
        node = _child(node, key, keys[i + 1], dotted)
    last = keys[-1]
    if isinstance(node, list):
        node[_index(node, last, dotted)] = copy.deepcopy(value)
    else:
        node[last] = copy.deepcopy(value)


def _index(node: list, key: str, dotted: str) -> int:
    if not key.isdigit() or int(key) >= len(node):
        raise OverrideError(f"override '{dotted}': '{key}' is not an index of a list of "
                            f"{len(node)}")
    return int(key)


def _child(node: Any, key: str, next_key: str, dotted: str) -> Any:
    if isinstance(node, list):
        return node[_index(node, key, dotted)]
    if not isinstance(node, dict):
        raise OverrideError(f"override '{dotted}': '{key}' is inside a value, not a section")
    if key not in node or node[key] is None:
        node[key] = [] if next_key.isdigit() else {}
    child = node[key]
    if not isinstance(child, (dict, list)):
        raise OverrideError(f"override '{dotted}': '{key}' is a value, not a section")
    return child


def apply(tree: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict:
    """A copy of ``tree`` with every ``dotted: value`` of ``overrides`` set, in order."""
    out = copy.deepcopy(dict(tree))
    for key, value in overrides.items():
        set_path(out, key, value)
    return out


def substitute(tree: Any, values: Mapping[str, str]) -> Any:
    """``tree`` with ``{name}`` placeholders in every string replaced by ``values[name]``."""
    if isinstance(tree, str):
        for name, value in values.items():
            tree = tree.replace("{" + name + "}", value)
        return tree
    if isinstance(tree, list):
        return [substitute(v, values) for v in tree]
    if isinstance(tree, dict):
        return {k: substitute(v, values) for k, v in tree.items()}
    return tree
