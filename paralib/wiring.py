"""Stage references: a path in a config may name the stage that writes it.

``select.input: "@score"`` stands for ``score.output``, ``"@select/pairs.parquet"`` for a file
under ``select.output``, so each stage's output path is written once, in its own section, and
an override of it (``--set score.output=...``) reaches every stage that reads it. References
are resolved when :class:`paralib.config.Config` is validated, before any field is: a
validated config holds only paths, so what a stage reads and every fingerprint are the same
as with the paths written out.

A field may declare what it reads with :class:`Reads` (in its annotation): the stages a
reference in it may name and the file of their output a bare reference stands for
(``select.exclude: ["@lm", "@classifier"]`` reads the ``heldout.parquet`` each writes).

A reference to no stage, an output that names a stage, and stages that read each other in a
cycle are each one configuration error naming the field and the stages there are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

REFERENCE = re.compile(r"^@(?P<stage>[A-Za-z_]\w*)(?:/(?P<rest>.*))?$")
"""``@stage`` or ``@stage/a/path/under/its/output``."""


@dataclass(frozen=True)
class Reads:
    """What a reference in the field it annotates may name: one of ``stages``, and, for a bare
    ``@stage``, ``file`` under that stage's output (empty: the output folder itself)."""

    stages: tuple[str, ...]
    file: str = ""


def _error(text: str) -> PydanticCustomError:
    # the text goes in the context: a path with braces ({data}) is no template field
    return PydanticCustomError("stage_reference", "{text}", {"text": text})


def _section_class(field: FieldInfo) -> type[BaseModel] | None:
    kind = field.annotation
    return kind if isinstance(kind, type) and issubclass(kind, BaseModel) else None


def stage_outputs(tree: Mapping[str, Any], config: type[BaseModel]) -> dict[str, Any]:
    """The output of every stage (a section of ``config`` with an ``output`` field), as
    ``tree`` sets it or by default, by section name."""
    outputs: dict[str, Any] = {}
    for name, field in config.model_fields.items():
        section = _section_class(field)
        if section is None or "output" not in section.model_fields:
            continue
        given = tree.get(name)
        if isinstance(given, BaseModel):
            outputs[name] = getattr(given, "output", None)
        elif isinstance(given, Mapping) and "output" in given:
            outputs[name] = given["output"]
        else:
            outputs[name] = section.model_fields["output"].get_default(call_default_factory=True)
    return outputs


def reads_of(section: type[BaseModel] | None, key: str) -> Reads | None:
    """The :class:`Reads` declaration of field ``key`` of ``section``, if it has one."""
    field = section.model_fields.get(key) if section is not None else None
    return next((m for m in field.metadata if isinstance(m, Reads)), None) if field else None


@dataclass
class _Resolver:
    """Resolves the references of one config tree, recording which stage reads which."""

    outputs: dict[str, Any]
    edges: dict[tuple[str, str], str]

    def value(self, item: Any, where: str, reads: Reads | None) -> Any:
        """``item`` (the value at dotted key ``where``) with its references resolved."""
        if isinstance(item, str):
            return self.reference(item, where, reads)
        if isinstance(item, Mapping):
            return {k: self.value(v, f"{where}.{k}", reads) for k, v in item.items()}
        if isinstance(item, list):
            return [self.value(v, f"{where}.{i}", reads) for i, v in enumerate(item)]
        return item

    def reference(self, text: str, where: str, reads: Reads | None) -> str:
        """The path ``text`` stands for when it is a reference, else ``text``."""
        match = REFERENCE.match(text)
        if match is None:
            return text
        stage, rest = match["stage"], match["rest"]
        section, _, field = where.partition(".")
        names = list(reads.stages) if reads else sorted(self.outputs)
        if field == "output":
            raise _error(f"{where}: '{text}': an output is where its own stage writes; it "
                         f"names no other stage (stages: {', '.join(sorted(self.outputs))})")
        if stage not in names:
            raise _error(f"{where}: '{text}' names none of the stages it can read: "
                         f"{', '.join(names)}")
        output = self.outputs[stage]
        if not isinstance(output, str) or REFERENCE.match(output):
            raise _error(f"{where}: '{text}': {stage}.output is not a path ({output!r})")
        self.edges.setdefault((section, stage), where)
        tail = rest if rest is not None else reads.file if reads else ""
        return f"{output.rstrip('/')}/{tail}" if tail else output

    def check_cycles(self) -> None:
        """Fail naming the fields when the stages read each other in a cycle."""
        graph: dict[str, set[str]] = {}
        for reader, stage in self.edges:
            graph.setdefault(reader, set()).add(stage)
        try:
            TopologicalSorter(graph).prepare()
        except CycleError as exc:
            cycle = list(reversed(exc.args[1]))
            fields = [self.edges[(a, b)] for a, b in zip(cycle, cycle[1:], strict=False)]
            raise _error(f"{', '.join(fields)}: stages read each other in a cycle "
                         f"({' → '.join(cycle)}: a stage reads only what ran before it); "
                         f"stages: {', '.join(sorted(self.outputs))}") from None


def resolve_references(data: Any, config: type[BaseModel]) -> Any:
    """``data`` (a config tree about to be validated as ``config``) with every stage
    reference replaced by the path it stands for; raises a validation error naming the field
    for a reference to no stage, an output that names a stage, or a cycle."""
    if not isinstance(data, Mapping):
        return data
    resolver = _Resolver(stage_outputs(data, config), {})
    resolved = dict(data)
    for name, section in data.items():
        field = config.model_fields.get(name)
        if field is None or not isinstance(section, Mapping):
            continue
        kind = _section_class(field)
        resolved[name] = {key: resolver.value(item, f"{name}.{key}", reads_of(kind, key))
                          for key, item in section.items()}
    resolver.check_cycles()
    return resolved

