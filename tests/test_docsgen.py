"""``paralib.docsgen``: the committed reference pages are what the schema and the benchmark
results make now, every config field is on ``docs/CONFIG.md`` with its declared fingerprint,
and a result file says how it was measured or that it was not recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from paralib import docsgen
from paralib.config import Config
from paralib.schema import (
    RESUMABLE,
    ChangesResults,
    NotResults,
    Resumable,
    Role,
    Strict,
    models_in,
    role_of,
)


@pytest.mark.parametrize("page", ["docs/CONFIG.md", "docs/BENCHMARKS.md", "README.md",
                                  "docs/RESULTS.md"])
def test_committed_page_is_current(page):
    path = docsgen.PROJECT_ROOT / page
    made = docsgen.pages()[path]
    assert path.is_file() and path.read_text(encoding="utf-8") == made, (
        f"{page} is stale: run `python -m paralib.docsgen` and commit it")


def test_readme_table_has_every_model_of_the_quality_run_with_its_numbers():
    result = json.loads((docsgen.RESULTS / "quality.json").read_text(encoding="utf-8"))
    block = docsgen.readme_markdown().split(docsgen.QUALITY_START)[1].split(docsgen.QUALITY_END)[0]
    lines = [ln for ln in block.splitlines() if ln.startswith("| ") and "---" not in ln][1:]
    assert len(lines) == len(result["rows"])
    for line, row in zip(lines, result["rows"], strict=True):
        assert row["model"] in line and f"{row['STSB test']:.1f}" in line


def _fields(model: type[BaseModel], prefix: str = "", covered: bool = True):
    """Every dotted field name below ``model`` with whether a fingerprint covers it, found
    through the schema's own helpers (not docsgen's)."""
    for name, field in model.model_fields.items():
        role = role_of(field, name) if any(isinstance(m, Role) for m in field.metadata) \
            else None
        on = covered and role is not Role.NOT_RESULTS
        yield f"{prefix}{name}", (role, RESUMABLE in field.metadata), on
        section, is_list = models_in(field.annotation)
        if section is not None:
            yield from _fields(section, f"{prefix}{name}{'[]' if is_list else ''}.", on)


def test_config_page_has_every_field_with_its_fingerprint():
    rows = {}
    for line in docsgen.config_markdown().splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            rows[cells[0].strip("`")] = cells
    fields = list(_fields(Config))
    assert len(fields) > 300
    names = {Role.RESULTS: "results", Role.RESULTS_IF_SET: "results if set",
             Role.REKEYED: "results if set, rekeyed",
             Role.KEPT_FOR_OLD_RECORDS: "old records"}
    for dotted, (role, resumable), covered in fields:
        assert dotted in rows, f"{dotted} missing from docs/CONFIG.md"
        expected = "no" if not covered else names[role] + (", resumable" if resumable else "")
        assert rows[dotted][3] == expected, dotted
    assert rows["ray.address"][3] == "old records"
    assert rows["train.epochs"][3] == "results, resumable"
    assert rows["train.group_negatives"][3] == "results if set, rekeyed"
    assert rows["decontaminate.ngram"][3] == "results"
    # a field's comment in the schema is its meaning there; a path field is named so
    assert "no progress" in rows["ray.stall_timeout_s"][4]
    assert rows["ray.node_types"][1] == "`path \\| None`"
    assert rows["ray.num_cpus"][1:3] == ["`int \\| None` (≥ 1)", "`null`"]


def test_config_page_gives_every_field_a_meaning():
    rows = {}
    for line in docsgen.config_markdown().splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            rows[cells[0].strip("`")] = cells
    fields = [dotted for dotted, _, _ in _fields(Config)]
    assert len(fields) > 300 and all(dotted in rows for dotted in fields)
    bare = [dotted for dotted in fields if not rows[dotted][4].strip()]
    assert not bare, (f"{len(bare)} config fields have no meaning on docs/CONFIG.md: "
                      f"{', '.join(bare)}; give each a description or a comment above it")


class _Demo(Strict):
    """A section for the test."""

    # above, first line
    # above, second line
    plain: ChangesResults[int] = 3  # and after it
    described: NotResults[str] = Field(default="x", description="from the description")
    bare: Resumable[ChangesResults[float]] = Field(default=0.5, gt=0, le=1)


def test_meaning_comes_from_description_or_the_comments_at_the_field():
    path, model, rows = next(docsgen.walk(_Demo, "demo."))
    by_name = {r[0]: r for r in rows}
    assert path == "demo" and model is _Demo
    assert by_name["`demo.plain`"][4] == "above, first line above, second line and after it"
    assert by_name["`demo.described`"][3:] == ["no", "from the description"]
    assert by_name["`demo.bare`"][1:] == ["`float` (> 0, ≤ 1)", "`0.5`", "results, resumable",
                                          ""]


def test_result_without_header_says_not_recorded(tmp_path):
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"rows": [{"system": "a", "seconds": 1.23456789}],
                               "ratio": 0.5}))
    text = docsgen.result_section(old)
    for fact in ("command", "machine", "date", "load average"):
        assert f"- {fact}: not recorded" in text
    assert "| system | seconds |" in text and "| a | 1.23457 |" in text
    assert "- ratio: 0.5" in text


def test_result_with_the_harness_header_names_how_it_was_measured(tmp_path):
    new = tmp_path / "new.json"
    new.write_text(json.dumps({
        "benchmark": "fp16", "command": "python -m benchmarks fp16 --limit 5",
        "machine": {"cpu": "Some CPU", "cores": 2, "memory_gb": 7.5, "gpu": None},
        "date": "2026-12-01 10:00",
        "load_average": {"before": [0.5, 0.25, 0.125], "after": [1.5, 1.0, 0.75]},
        "rows": [{"model": "m", "nested": {"k": [1, 2]}, "long": "y" * 500}]}))
    text = docsgen.result_section(new)
    assert "- command: `python -m benchmarks fp16 --limit 5`" in text
    assert "- machine: Some CPU, 2 cores, 7.5 GB, no GPU" in text
    assert "- date: 2026-12-01 10:00" in text
    assert "- load average: before 0.5, 0.25, 0.125; after 1.5, 1.0, 0.75" in text
    assert '| m | {"k": [1, 2]} | (in the JSON) |' in text


def test_check_names_the_stale_page_and_the_command(tmp_path, monkeypatch, capsys):
    page = tmp_path / "CONFIG.md"
    page.write_text("old\n")
    monkeypatch.setattr(docsgen, "pages", lambda: {page: "new\n"})
    monkeypatch.setattr(docsgen, "PROJECT_ROOT", tmp_path)
    assert docsgen.main(["--check"]) == 1
    assert "CONFIG.md is stale: run `python -m paralib.docsgen`" in capsys.readouterr().err
    assert docsgen.main([]) == 0 and page.read_text() == "new\n"
    assert docsgen.main(["--check"]) == 0


def test_result_files_map_to_the_benchmark_that_wrote_them():
    names = list(docsgen.benchmark_names())
    results = docsgen.RESULTS
    assert docsgen.benchmark_of(results / "bt-news-0.1.json", names) == "bt_news"
    assert docsgen.benchmark_of(results / "encode_speed-500000.json", names) == "encode_speed"
    assert docsgen.benchmark_of(results / "encode.json", names) == "encode"
    assert docsgen.benchmark_of(results / "export.json", names) == "export_check"
    assert docsgen.benchmark_of(results / "quality-multi" / "quality.json", names) == "quality"
    assert "common" not in names and "fp16" in names


def test_generated_pages_hold_no_machine_paths():
    text = docsgen.config_markdown()
    assert str(Path.home()) not in text and str(docsgen.PROJECT_ROOT) not in text
