"""paralib's one fingerprint: which config fields say what a result is made of, and one hash of
them.

Which fields enter a fingerprint follows from the schema alone (:class:`paralib.schema.Role`,
declared on every field), in one of two scopes:

- :data:`Scope.RUN`: an experiment's run keys (:mod:`paralib.experiments.plan`), which find a
  kept record. Every field that changes results, and the placement settings kept in the keys
  only so that the records made with them are still found (:data:`KeptForOldRecords`).
- :data:`Scope.WORK`: work kept on disk that a rerun continues: a stage's shard markers
  (:mod:`paralib.io.stage`) and a training run's identity (:mod:`paralib.train.identity`).
  Only the fields that change results, less those a resumed run may change
  (:data:`paralib.schema.Resumable`: more epochs, another device).

:func:`digest` is the one hash: SHA-256 (SHA-1 where the kept markers were made with it) of the
canonical JSON of a value, cut to 16 hex digits unless asked otherwise.
"""

from __future__ import annotations

import enum
import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from paralib.schema import RESUMABLE, Role, models_in, role_of

Algorithm = Literal["sha1", "sha256"]
STAGE_HASH: Algorithm = "sha1"
"""The hash of stage markers, training identities and prepared MT data: the kept ones were
made with SHA-1, and a marker is found only under the hash it was made with."""


class Scope(enum.Enum):
    """What a fingerprint identifies (see the module's docstring)."""

    RUN = "run"
    WORK = "work"


def digest(value: Any, *, algorithm: Algorithm = "sha256", length: int | None = 16) -> str:
    """The hex hash of ``value``'s canonical JSON (sorted keys; what JSON cannot hold, as its
    ``str``), its first ``length`` digits (``None``: all)."""
    text = json.dumps(value, sort_keys=True, default=str)
    hexdigest = hashlib.new(algorithm, text.encode()).hexdigest()
    return hexdigest if length is None else hexdigest[:length]


class Print(str):
    """A fingerprint (the hash, as a ``str``) that also carries what it was made of,
    flattened to ``{dotted key: value}`` (:attr:`identity`), so that a marker can keep it and
    a rerun with other options can say which keys differ."""

    identity: dict[str, object]


def flatten(value: object, prefix: str = "", out: dict[str, object] | None = None, *,
            every_list: bool = False) -> dict[str, object]:
    """``value`` as ``{dotted key: leaf}``: mappings are entered, and lists too when
    ``every_list`` or when they hold mappings or lists (a list of plain values is one leaf
    otherwise); an empty mapping or list is a leaf. Leaves are as JSON reads them back."""
    out = {} if out is None else out
    nested = isinstance(value, (list, tuple)) and value and (
        every_list or any(isinstance(v, (dict, list, tuple)) for v in value))
    if (isinstance(value, dict) and value) or nested:
        items = value.items() if isinstance(value, dict) else enumerate(value)  # type: ignore
        for k, v in items:
            flatten(v, f"{prefix}.{k}" if prefix else str(k), out, every_list=every_list)
    else:
        out[prefix] = json.loads(json.dumps(value, default=str))
    return out


def stage_print(*parts: object) -> Print:
    """A stage's fingerprint of what makes a shard's output (its input and stage options),
    with the flattened parts as its :attr:`Print.identity`."""
    made = Print(digest(parts, algorithm=STAGE_HASH))
    made.identity = flatten({str(i): p for i, p in enumerate(parts)})
    return made


def _enters(role: Role, resumable: bool, scope: Scope, legacy: bool) -> bool:
    """Whether a field of ``role`` can enter a fingerprint of ``scope`` at all (``legacy``:
    as the run keys were before the :data:`Role.REKEYED` fields entered them)."""
    if scope is Scope.WORK:
        return role in (Role.RESULTS, Role.RESULTS_IF_SET, Role.REKEYED) and not resumable
    if legacy and role is Role.REKEYED:
        return False
    return role is not Role.NOT_RESULTS


def covered(tree: dict[str, Any], model: type[BaseModel], scope: Scope = Scope.RUN, *,
            legacy: bool = False) -> dict[str, Any]:
    """``tree`` (a ``model_dump`` of a ``model``) less the fields that the
    schema leaves out of a fingerprint of ``scope``, in place, sections entered by their own
    fields' roles. In run keys a field that changes results only since kept records were made
    (:data:`Role.RESULTS_IF_SET`, :data:`Role.REKEYED`) counts only while it differs from its
    default; ``legacy`` leaves the :data:`Role.REKEYED` ones out, as the keys of the records
    made before them were."""
    for name, field in model.model_fields.items():
        role = role_of(field, f"{model.__name__}.{name}")
        if not _enters(role, RESUMABLE in field.metadata, scope, legacy):
            tree.pop(name, None)
            continue
        section, is_list = models_in(field.annotation)
        value = tree.get(name)
        if section is not None and value is not None:
            for item in value if is_list else [value]:
                covered(item, section, scope, legacy=legacy)
        if scope is Scope.RUN and role in (Role.RESULTS_IF_SET, Role.REKEYED) and \
                name in tree and value == _covered_default(field, section, is_list, legacy):
            tree.pop(name)
    return tree


def _covered_default(field: Any, section: type[BaseModel] | None, is_list: bool,
                     legacy: bool) -> Any:
    """A field's default as :func:`covered` leaves it in a run key."""
    default = to_jsonable_python(field.get_default(call_default_factory=True, validated_data={}))
    if section is None or default is None:
        return default
    for item in default if is_list else [default]:
        covered(item, section, Scope.RUN, legacy=legacy)
    return default


def section_print(section: BaseModel, scope: Scope = Scope.WORK,
                  mode: Literal["json", "python"] = "json") -> dict[str, Any]:
    """The fields of a config section that a fingerprint of ``scope`` covers, dumped in
    ``mode`` (Pydantic's ``model_dump``)."""
    return covered(section.model_dump(mode=mode), type(section), scope)
