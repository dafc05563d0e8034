"""The fingerprint policy in the schema: every config field a run fingerprint can reach
declares whether it is covered, and :func:`keyed` follows the declarations."""

from __future__ import annotations

import pytest
from pydantic import Field

from paralib.config import Config
from paralib.schema import Key, Keyed, KeyedIfSet, Strict, Unkeyed, key_of, keyed, models_in


def undeclared(model: type[Strict], where: str = "", seen: set | None = None) -> list[str]:
    """The fields under ``model`` that declare no :class:`Key` (sections left out of the
    fingerprint are not entered: nothing in them is covered)."""
    seen = set() if seen is None else seen
    if model in seen:
        return []
    seen.add(model)
    out = []
    for name, field in model.model_fields.items():
        keys = [m for m in field.metadata if isinstance(m, Key)]
        if len(keys) != 1:
            out.append(f"{where}{name}")
        elif keys[0] is not Key.OUT and (section := models_in(field.annotation)[0]):
            out += undeclared(section, f"{where}{name}.", seen)
    return out


def test_every_config_field_declares_its_fingerprint_key():
    assert undeclared(Config) == []
    assert key_of(Config.model_fields["mine"], "mine") is Key.OUT
    assert len(Config.model_fields) == 16   # a new section declares its key too


class Part(Strict):
    dim: Keyed[int] = 300
    threads: Unkeyed[int] = 1
    dropout_on: KeyedIfSet[str] = "sentence"


class Section(Strict):
    parts: Keyed[list[Part]] = Field(default_factory=lambda: [Part()])
    extra: Keyed[Part | None] = None
    new: KeyedIfSet[Part] = Field(default_factory=Part)


def test_keyed_follows_the_declarations():
    assert keyed(Section().model_dump(mode="json"), Section) == \
        {"parts": [{"dim": 300}], "extra": None}
    cfg = Section(parts=[Part(threads=8, dropout_on="tokens")], extra=Part(dim=2),
                  new=Part(dim=3))
    assert keyed(cfg.model_dump(mode="json"), Section) == {
        "parts": [{"dim": 300, "dropout_on": "tokens"}], "extra": {"dim": 2},
        "new": {"dim": 3}}


def test_a_field_without_a_declaration_fails():
    class Grown(Section):
        batch: int = 4

    assert undeclared(Grown) == ["batch"]
    with pytest.raises(TypeError, match="config field Grown.batch declares 0 fingerprint keys"):
        keyed(Grown().model_dump(mode="json"), Grown)
