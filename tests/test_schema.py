"""The fingerprint roles in the schema: every config field a fingerprint can reach declares
its :class:`Role`, and :func:`paralib.fingerprint.covered` follows the declarations."""

from __future__ import annotations

import pytest
from pydantic import Field

from paralib.config import Config
from paralib.fingerprint import Scope, covered
from paralib.schema import (
    ChangesResults,
    ChangesResultsIfSet,
    ChangesResultsRekeyed,
    KeptForOldRecords,
    NotResults,
    Resumable,
    Role,
    Strict,
    models_in,
    role_of,
)


def undeclared(model: type[Strict], where: str = "", seen: set | None = None) -> list[str]:
    """The fields under ``model`` that declare no :class:`Role` (sections left out of every
    fingerprint are not entered: nothing in them is covered)."""
    seen = set() if seen is None else seen
    if model in seen:
        return []
    seen.add(model)
    out = []
    for name, field in model.model_fields.items():
        roles = [m for m in field.metadata if isinstance(m, Role)]
        if len(roles) != 1:
            out.append(f"{where}{name}")
        elif roles[0] is not Role.NOT_RESULTS and (section := models_in(field.annotation)[0]):
            out += undeclared(section, f"{where}{name}.", seen)
    return out


def test_every_config_field_declares_its_fingerprint_key():
    assert undeclared(Config) == []
    assert role_of(Config.model_fields["mine"], "mine") is Role.NOT_RESULTS
    assert len(Config.model_fields) == 16   # a new section declares its key too


class Part(Strict):
    dim: ChangesResults[int] = 300
    threads: NotResults[int] = 1
    dropout_on: ChangesResultsIfSet[str] = "sentence"
    actors: KeptForOldRecords[int] = 2
    epochs: Resumable[ChangesResults[int]] = 10
    grouped: ChangesResultsRekeyed[bool] = True


class Section(Strict):
    parts: ChangesResults[list[Part]] = Field(default_factory=lambda: [Part()])
    extra: ChangesResults[Part | None] = None
    new: ChangesResultsIfSet[Part] = Field(default_factory=Part)


def test_covered_follows_the_declarations():
    plain = {"dim": 300, "actors": 2, "epochs": 10}
    assert covered(Section().model_dump(mode="json"), Section) == \
        {"parts": [plain], "extra": None}
    cfg = Section(parts=[Part(threads=8, dropout_on="tokens", grouped=False)],
                  extra=Part(dim=2), new=Part(dim=3))
    assert covered(cfg.model_dump(mode="json"), Section) == {
        "parts": [{**plain, "dropout_on": "tokens", "grouped": False}],
        "extra": {**plain, "dim": 2}, "new": {**plain, "dim": 3}}
    assert covered(cfg.model_dump(mode="json"), Section, legacy=True)["parts"] == \
        [{**plain, "dropout_on": "tokens"}]
    work = {"dim": 300, "dropout_on": "sentence", "grouped": True}
    assert covered(Section().model_dump(mode="json"), Section, Scope.WORK) == {
        "parts": [work], "extra": None, "new": work}


def test_a_field_without_a_declaration_fails():
    class Grown(Section):
        batch: int = 4

    assert undeclared(Grown) == ["batch"]
    with pytest.raises(TypeError, match="config field Grown.batch declares 0 fingerprint roles"):
        covered(Grown().model_dump(mode="json"), Grown)
