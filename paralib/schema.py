"""The base of every config section (kept apart from :mod:`paralib.config` so that stage
subpackages can declare their own section classes without import cycles), and the fingerprint
policy each field declares: whether a change to it makes an experiment's run a new run."""

from __future__ import annotations

import enum
import types
import typing
from pathlib import Path
from typing import Annotated, Any, TypeVar

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import to_jsonable_python

from paralib.paths import expand
from paralib.redact import MASK, SECRET_KEY, summary

ExpandedPath = Annotated[str, AfterValidator(expand)]
"""A path field: ``{data}``, ``{models}``, ``~`` and environment variables are expanded."""


class Strict(BaseModel):
    """Base for config sections: unknown keys are errors, values are type-checked."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, validate_default=True)


MAX_YAML_VALUES = 100_000
"""The most values (scalars, lists and mappings, each alias counted as all it stands for) one
YAML document may expand to: a configuration holds hundreds; a few lines of nested aliases
("billion laughs") can stand for billions, which no message or validation should walk."""


class YAMLTooLarge(yaml.YAMLError):
    """A YAML document whose aliases expand beyond :data:`MAX_YAML_VALUES`, or refer to
    themselves."""


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader that counts, while it composes, how many values each node expands
    to (an alias: as many as the node it names) and stops past :data:`MAX_YAML_VALUES`."""

    def __init__(self, stream: str | bytes) -> None:
        super().__init__(stream)
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        alias = self.check_event(yaml.AliasEvent)
        mark = self.peek_event().start_mark
        node = super().compose_node(parent, index)
        if alias:
            if id(node) not in self._sizes:
                raise YAMLTooLarge(f"line {mark.line + 1}: the alias refers to the value that "
                                   "holds it: expected no recursive aliases")
            size = self._sizes[id(node)]
        elif isinstance(node, yaml.SequenceNode):
            size = 1 + sum(self._sizes[id(child)] for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            size = 1 + sum(self._sizes[id(k)] + self._sizes[id(v)] for k, v in node.value)
        else:
            size = 1
        if size > MAX_YAML_VALUES:
            raise YAMLTooLarge(f"line {mark.line + 1}: the document's aliases expand to more "
                               f"than {MAX_YAML_VALUES:,} values: expected a configuration "
                               "without nested aliases that multiply (a 'billion laughs')")
        self._sizes[id(node)] = size
        return node


def load_yaml(text: str | bytes) -> Any:
    """``text`` parsed as YAML by the safe loader, refusing (:class:`YAMLTooLarge`) a document
    that expands to more than :data:`MAX_YAML_VALUES` values through its aliases."""
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def read_yaml(path: Path, error: type[Exception]) -> Any:
    """The parsed YAML of ``path`` (:func:`load_yaml`); a syntax error or an alias bomb raises
    ``error`` naming the file."""
    try:
        return load_yaml(path.read_text(encoding="utf-8"))
    except YAMLTooLarge as exc:
        raise error(f"{path}: {exc}") from None
    except yaml.YAMLError as exc:
        raise error(f"{path}: not valid YAML: {exc}") from exc


def format_errors(exc: ValidationError, source: str) -> str:
    """What is wrong in a configuration, one line per error naming its dotted key and a bounded
    summary of the value found (:func:`paralib.redact.summary`: secrets masked), under
    ``invalid configuration in SOURCE:``."""
    lines = [f"invalid configuration in {source}:"]
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        got = err.get("input")
        hide = err["type"] == "extra_forbidden" or isinstance(got, dict)
        secret = any(SECRET_KEY.search(str(p)) for p in err["loc"])
        shown = "" if hide else f" (got {MASK if secret else summary(got)})"
        lines.append(f"  {loc}: {msg}{shown}")
    return "\n".join(lines)


class Key(enum.Enum):
    """How a config field enters the fingerprint of an experiment's run
    (:func:`paralib.experiments.plan.config_for_key`): every field of a section that the
    fingerprint covers declares one, through :data:`Keyed`, :data:`Unkeyed` or
    :data:`KeyedIfSet` (``tests/test_schema.py`` fails on a field without one)."""

    IN = "in"          # covered, whatever its value
    OUT = "out"        # never covered: it cannot change a trained model (placement, retries)
    IF_SET = "if set"  # covered only while it differs from its default


T = TypeVar("T")
Keyed = Annotated[T, Key.IN]
"""A field in every run fingerprint. Settings that were in it when the kept runs of
``docs/results/runs/`` were made stay keyed even where they cannot change a model (Ray's
address, actor counts): taking one out would change every kept run's fingerprint."""
Unkeyed = Annotated[T, Key.OUT]
"""A field no run fingerprint covers: a new one that cannot change a trained model."""
KeyedIfSet = Annotated[T, Key.IF_SET]
"""A field that changes results but came after runs were kept: its default reproduces what
those runs did (or they were made without it), so it is covered only when set otherwise and
the kept runs are still found."""


def key_of(field: FieldInfo, name: str) -> Key:
    """The :class:`Key` that ``field`` declares; a field without one is a bug."""
    keys = [m for m in field.metadata if isinstance(m, Key)]
    if len(keys) != 1:
        raise TypeError(f"config field {name} declares {len(keys)} fingerprint keys; give it "
                        "one: Keyed[...], Unkeyed[...] or KeyedIfSet[...] (paralib.schema)")
    return keys[0]


def models_in(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """The config section inside ``annotation`` (through ``X | None`` and ``list[X]``) and
    whether it is a list of them."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            model, is_list = models_in(arg)
            if model is not None:
                return model, is_list
        return None, False
    if origin is list:
        return models_in(typing.get_args(annotation)[0])[0], True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    return None, False


def keyed(tree: dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    """``tree`` (the ``model_dump(mode="json")`` of a ``model``) less the fields that its
    declarations leave out of a fingerprint, in place: :data:`Unkeyed` ones, and
    :data:`KeyedIfSet` ones holding their default."""
    for name, field in model.model_fields.items():
        key = key_of(field, f"{model.__name__}.{name}")
        if key is Key.OUT or (key is Key.IF_SET and tree.get(name) == to_jsonable_python(
                field.get_default(call_default_factory=True, validated_data={}))):
            tree.pop(name, None)
            continue
        section, is_list = models_in(field.annotation)
        value = tree.get(name)
        if section is not None and value is not None:
            for item in value if is_list else [value]:
                keyed(item, section)
    return tree
