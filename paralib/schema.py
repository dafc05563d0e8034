"""The base of every config section (kept apart from :mod:`paralib.config` so that stage
subpackages can declare their own section classes without import cycles), and the role each
field declares in paralib's one fingerprint (:mod:`paralib.fingerprint`): whether it changes
results."""

from __future__ import annotations

import enum
import types
import typing
from pathlib import Path
from typing import Annotated, Any, TypeVar

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError
from pydantic.fields import FieldInfo

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
        msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        got = err.get("input")
        hide = err["type"] == "extra_forbidden" or isinstance(got, dict)
        secret = any(SECRET_KEY.search(str(p)) for p in err["loc"])
        shown = "" if hide else f" (got {MASK if secret else summary(got)})"
        lines.append(f"  {loc}: {msg}{shown}")
    return "\n".join(lines)


class Role(enum.Enum):
    """What a config field is to paralib's one fingerprint (:mod:`paralib.fingerprint`): every
    field of a section that a fingerprint can reach declares one, through
    :data:`ChangesResults`, :data:`ChangesResultsIfSet`, :data:`ChangesResultsRekeyed`,
    :data:`KeptForOldRecords` or :data:`NotResults` (``tests/test_schema.py`` fails on a field
    without one)."""

    RESULTS = "changes results"
    RESULTS_IF_SET = "changes results if set"
    REKEYED = "changes results, rekeyed"
    KEPT_FOR_OLD_RECORDS = "kept for old records"
    NOT_RESULTS = "not results"


class _Resumable:
    """The marker of :data:`Resumable` (one instance, :data:`RESUMABLE`)."""

    def __repr__(self) -> str:
        return "RESUMABLE"


RESUMABLE = _Resumable()

T = TypeVar("T")
ChangesResults = Annotated[T, Role.RESULTS]
"""A field that changes what a stage or a training run makes: in every fingerprint (run keys,
stage markers, training identities)."""
ChangesResultsIfSet = Annotated[T, Role.RESULTS_IF_SET]
"""A field that changes results but came after runs were kept: its default reproduces what
those runs did (or they were made without it), so a run key counts it only when it is set
otherwise and the kept runs are still found. Stage markers and training identities, which
record every option they were made with, count it always."""
ChangesResultsRekeyed = Annotated[T, Role.REKEYED]
"""A field that changes results but that run keys left out when records were kept: a run key
counts it, as :data:`ChangesResultsIfSet`, only when it differs from its default, and a kept
record whose key was made without it is re-keyed when its run finds it under that former key
(:meth:`paralib.experiments.plan.RunPlan.rekey`), not orphaned."""
KeptForOldRecords = Annotated[T, Role.KEPT_FOR_OLD_RECORDS]
"""A field that cannot change results (where output goes, Ray's address, actor counts, S3
access) but is in run keys because the kept records of ``docs/results/runs/`` were made with
it there: taking it out would change every kept run's key. No stage marker or training
identity counts it."""
NotResults = Annotated[T, Role.NOT_RESULTS]
"""A field that cannot change results (placement, retries, timeouts): in no fingerprint."""
Resumable = Annotated[T, RESUMABLE]
"""Worn with a role (``Resumable[ChangesResults[int]]``): a field a stage or a training run may
change when it resumes, keeping the work already done (more epochs, another device or compute
type). Run keys count it by its role; stage markers and training identities do not."""


def role_of(field: FieldInfo, name: str) -> Role:
    """The :class:`Role` that ``field`` declares; a field without one is a bug."""
    roles = [m for m in field.metadata if isinstance(m, Role)]
    if len(roles) != 1:
        raise TypeError(f"config field {name} declares {len(roles)} fingerprint roles; give it "
                        "one: ChangesResults[...], ChangesResultsIfSet[...], "
                        "ChangesResultsRekeyed[...], KeptForOldRecords[...] or NotResults[...] "
                        "(paralib.schema)")
    return roles[0]


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
