"""The generated reference pages: ``docs/CONFIG.md`` from the configuration schema and
``docs/BENCHMARKS.md`` from ``benchmarks/results/*.json``.

``python -m paralib.docsgen`` writes both; ``--check`` writes nothing and exits 1 naming the
stale ones (``tests/test_docsgen.py`` does the same comparison).
"""

from __future__ import annotations

import argparse
import ast
import inspect
import io
import json
import os
import re
import sys
import textwrap
import tokenize
import types
import typing
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined, to_jsonable_python

from paralib.paths import PROJECT_ROOT
from paralib.schema import Key

COMMAND = "python -m paralib.docsgen"
CONFIG_MD = PROJECT_ROOT / "docs" / "CONFIG.md"
BENCHMARKS_MD = PROJECT_ROOT / "docs" / "BENCHMARKS.md"
BENCHMARKS = PROJECT_ROOT / "benchmarks"
RESULTS = BENCHMARKS / "results"
NOTES = BENCHMARKS / "notes"

FINGERPRINT = {Key.IN: "yes", Key.OUT: "no", Key.IF_SET: "if set"}
# result files whose name does not start with the name of the benchmark that wrote them
RESULT_OF = {"export": "export_check"}
# files under results/ that are inputs of another result rather than results
NOT_RESULTS = {"quality-report.json"}


def generated_header(source: str) -> str:
    """The first lines of a generated page: what it is made from and how to remake it."""
    return (f"<!-- Generated from {source} by `{COMMAND}`; edit those, not this file. -->\n")


def md_text(text: str) -> str:
    """reStructuredText literals (````x````) as Markdown code spans."""
    return re.sub(r"``(.+?)``", r"`\1`", text, flags=re.S)


def cell(text: str) -> str:
    """``text`` as one Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def md_table(rows: list[list[str]], header: list[str]) -> str:
    """A Markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


# ---------------------------------------------------------------- configuration reference

@cache
def field_comments(cls: type) -> dict[str, str]:
    """The comments of the fields that ``cls`` itself declares: the comment lines right above
    each field and the comment at the end of its lines, joined."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    comments = {tok.start[0]: tok.string.lstrip("#").strip()
                for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                if tok.type == tokenize.COMMENT}
    lines = source.splitlines()
    out = {}
    for node in ast.parse(source).body[0].body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        above, line = [], node.lineno - 1
        while line >= 1 and lines[line - 1].lstrip().startswith("#"):
            above.insert(0, comments[line])
            line -= 1
        after = [comments[n] for n in range(node.lineno, node.end_lineno + 1) if n in comments]
        text = " ".join(above + after).strip()
        if text:
            out[node.target.id] = text
    return out


def description(model: type[BaseModel], name: str, field: FieldInfo) -> str:
    """What a field means: its ``description``, else the comments at its declaration (in the
    class of ``model``'s MRO that declares it)."""
    if field.description:
        return field.description
    for cls in model.__mro__:
        if name in cls.__dict__.get("__annotations__", {}):
            return field_comments(cls).get(name, "")
    return ""


def type_name(annotation: Any) -> str:
    """A short name of a field's type (``int | None``, ``list[InputConfig]``, ``path``)."""
    if typing.get_origin(annotation) is typing.Annotated:
        inner, *meta = typing.get_args(annotation)
        if any(getattr(getattr(m, "func", None), "__name__", "") == "expand" for m in meta):
            return "path"
        return type_name(inner)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(a) for a in args)
    if origin is typing.Literal:
        return " | ".join(json.dumps(a) for a in args)
    if origin is not None:
        base = getattr(origin, "__name__", str(origin))
        return f"{base}[{', '.join(type_name(a) for a in args)}]" if args else base
    if annotation is type(None):
        return "None"
    return getattr(annotation, "__name__", str(annotation))


def constraints(field: FieldInfo) -> str:
    """The field's bounds and pattern, as ``≥ 1, < 1``."""
    signs = {annotated_types.Ge: ("≥", "ge"), annotated_types.Gt: (">", "gt"),
             annotated_types.Le: ("≤", "le"), annotated_types.Lt: ("<", "lt")}
    out = []
    for m in field.metadata:
        if type(m) in signs:
            sign, attr = signs[type(m)]
            out.append(f"{sign} {getattr(m, attr)}")
        elif getattr(m, "pattern", None):
            out.append(f"matches `{m.pattern}`")
    return ", ".join(out)


def default_text(field: FieldInfo) -> str:
    """A field's default as YAML would write it; ``required`` when it has none."""
    if field.default is PydanticUndefined and field.default_factory is None:
        return "required"
    value = field.get_default(call_default_factory=True, validated_data={})
    if isinstance(value, BaseModel):
        return "(section)"
    return f"`{json.dumps(to_jsonable_python(value), ensure_ascii=False)}`"


def sections_in(annotation: Any) -> list[tuple[type[BaseModel], str]]:
    """The config sections inside ``annotation``, each with the suffix its entries get in a
    dotted name (``[]`` in a list, ``.<key>`` in a mapping)."""
    if typing.get_origin(annotation) is typing.Annotated:
        return sections_in(typing.get_args(annotation)[0])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [(annotation, "")]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list:
        return [(m, "[]" + s) for m, s in sections_in(args[0])]
    if origin is dict:
        return [(m, ".<key>" + s) for m, s in sections_in(args[1])]
    return [found for a in args for found in sections_in(a)]


def first_paragraph(model: type) -> str:
    """The first paragraph of a class's own docstring, on one line."""
    doc = model.__dict__.get("__doc__") or ""
    return " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())


def walk(model: type[BaseModel], prefix: str = "", inherited: Key | None = None
         ) -> Iterator[tuple[str, type[BaseModel], list[list[str]]]]:
    """Every section below ``model`` (itself first) as its dotted path, its class and one row
    per field: dotted name, type, default, fingerprint, meaning. A field of a section that no
    fingerprint covers is not covered either, whatever it declares."""
    rows, below = [], []
    for name, field in model.model_fields.items():
        keys = [m for m in field.metadata if isinstance(m, Key)]
        key = Key.OUT if inherited is Key.OUT else keys[0] if keys else inherited
        dotted = f"{prefix}{name}"
        kind = type_name(field.annotation)
        bounds = constraints(field)
        sections = sections_in(field.annotation)
        meaning = description(model, name, field) or "; ".join(
            first_paragraph(s) for s, _ in sections if first_paragraph(s))
        rows.append([f"`{dotted}`", f"`{kind}`" + (f" ({bounds})" if bounds else ""),
                     default_text(field), FINGERPRINT.get(key, "—"), md_text(meaning)])
        below += [(section, f"{dotted}{suffix}.", key) for section, suffix in sections]
    yield prefix.rstrip("."), model, rows
    for section, path, key in below:
        yield from walk(section, path, key)


def config_markdown() -> str:
    """``docs/CONFIG.md``: every field of :class:`paralib.config.Config`, section by section."""
    from paralib.config import Config

    out = [generated_header("the configuration schema (`paralib/config.py` and each stage's "
                            "`config.py`)"),
           "# Configuration reference\n",
           "Every key of paralib's one YAML configuration, with its type, default and meaning. "
           "Unknown keys and wrong types are errors naming the key and the file. Path values "
           "may use `{data}` (the data root) and `{models}` (`models/`). `paralib config "
           "--config FILE` prints a whole validated configuration; `--set key=value` "
           "overrides one key (`--set train.model.parts.0.dim=64` indexes a list).\n",
           "**Fingerprint** says whether a change to the key makes an experiment's run a new "
           "run (`paralib.schema.Key`): **yes**, a setting that changes results (and a few "
           "placement settings that were keyed when the kept runs were made); **no**, it "
           "cannot change a trained model (placement, retries, timeouts); **if set**, it "
           "changes results but came after the kept runs, so it counts only when it differs "
           "from its default.\n"]
    for path, model, rows in walk(Config):
        out.append(f"## `{path}`\n" if path else "## Sections\n")
        doc = model.__dict__.get("__doc__")
        if doc:
            out.append(md_text(inspect.cleandoc(doc)) + "\n")
        out.append(md_table(rows, ["key", "type", "default", "fingerprint", "meaning"]) + "\n")
    return "\n".join(out)


# ---------------------------------------------------------------- benchmark results

def benchmark_of(path: Path, names: list[str]) -> str:
    """The benchmark that wrote a result file: its ``benchmark`` key, else the longest
    benchmark name its file name starts with (``bt-news-0.1`` is ``bt_news``)."""
    stem = path.stem.replace("-", "_")
    if stem in RESULT_OF:
        return RESULT_OF[stem]
    if path.parent != RESULTS:
        stem = path.parent.name.replace("-", "_")
    found = [n for n in names if stem == n or stem.startswith(n + "_")]
    return max(found, key=len) if found else stem


def benchmark_names() -> dict[str, str]:
    """Every benchmark module with the first paragraph of its docstring."""
    out = {}
    for path in sorted(BENCHMARKS.glob("*.py")):
        if path.stem.startswith("_") or path.stem == "common":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        out[path.stem] = " ".join(doc.split("\n\n")[0].split())
    return out


def rounded(value: Any) -> Any:
    """``value`` with every float inside it to 4 significant digits (load averages,
    timings), for display."""
    if isinstance(value, float):
        return float(f"{value:.4g}")
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


def short(value: Any, limit: int = 120) -> str | None:
    """``value`` as one line of text; ``None`` when that is longer than ``limit``."""
    if isinstance(value, float):
        text = f"{value:g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.2e}"
    elif isinstance(value, str):
        text = value
    elif value is None:
        text = ""
    else:
        text = json.dumps(rounded(value), ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= limit else None


def machine_text(m: dict | None) -> str:
    """One line naming the machine of a result."""
    if not m:
        return "not recorded"
    parts = [m.get("cpu") or "CPU not recorded"]
    if m.get("cores"):
        parts.append(f"{m['cores']} cores")
    if m.get("memory_gb"):
        parts.append(f"{m['memory_gb']} GB")
    parts.append(f"GPU {m['gpu']}" if m.get("gpu") else "no GPU")
    parts += [f"{k} {m[k]}" for k in ("python", "torch", "ray", "ctranslate2") if m.get(k)]
    return ", ".join(parts)


def load_facts(result: dict) -> list[str]:
    """Every load average a result records outside its tables, as ``key: value``."""
    header = result.get("load_average")
    if isinstance(header, dict):
        return [f"{when} " + (", ".join(map(str, rounded(header[when]))) if header.get(when)
                              else "not recorded") for when in ("before", "after")]
    found = []
    for scope, tree in (("", result), ("setup.", result.get("setup") or {})):
        for key, value in tree.items():
            if "load" in key and not isinstance(value, dict | list) or key in (
                    "load_average", "load_average_1min", "load_average_before",
                    "load_average_after", "load_start", "load_end", "load_average_when"):
                found.append(f"{scope}{key}: {short(value, 400)}")
    return found


def tables_of(result: dict) -> list[tuple[str, list[dict]]]:
    """The lists of records in a result: its tables."""
    return [(k, v) for k, v in result.items()
            if isinstance(v, list) and v and all(isinstance(r, dict) for r in v)]


def result_table(rows: list[dict]) -> str:
    """A Markdown table of ``rows``; a value too long for a cell is left to the JSON."""
    columns: list[str] = []
    for r in rows:
        columns += [c for c in r if c not in columns]
    body = [[short(r.get(c)) if short(r.get(c)) is not None else "(in the JSON)"
             for c in columns] for r in rows]
    return md_table(body, [cell(c) for c in columns])


def figures(result: dict, skip: set[str]) -> list[str]:
    """The result's other values as bullets, one level of mappings flattened."""
    out = []
    for key, value in result.items():
        if key in skip:
            continue
        items = value.items() if isinstance(value, dict) else [(None, value)]
        for sub, v in items:
            name = f"{key}.{sub}" if sub is not None else key
            if "load" in name:
                continue
            text = short(v, 300)
            out.append(f"- {name}: " + (md_text(text) if text is not None else "(in the JSON)"))
    return out


def result_section(path: Path) -> str:
    """The section of one result file: how it was measured, its tables, its other values."""
    result = json.loads(path.read_text(encoding="utf-8"))
    rel = Path(os.path.relpath(path, BENCHMARKS_MD.parent)).as_posix()
    shown = path.relative_to(RESULTS).as_posix() if path.is_relative_to(RESULTS) else path.name
    machine = result.get("machine") if isinstance(result.get("machine"), dict) else None
    date = result.get("date") or (machine or {}).get("date") or "not recorded"
    command = result.get("command") or (result.get("setup") or {}).get("command")
    loads = load_facts(result)
    tables = tables_of(result)
    if not loads and any("load" in c for _, rows in tables for r in rows for c in r):
        loads = ["per row, in the table"]
    out = [f"### [{shown}]({rel})\n",
           f"- command: `{command}`" if command else "- command: not recorded",
           f"- machine: {machine_text(machine)}",
           f"- date: {date}",
           "- load average: " + ("; ".join(loads) if loads else "not recorded"), ""]
    for name, rows in tables:
        out += [f"`{name}`:\n", result_table(rows), ""]
    skip = {"machine", "date", "command", "benchmark", *(n for n, _ in tables)}
    other = figures(result, skip)
    if other:
        out += ["Other values:\n", *other, ""]
    return "\n".join(out)


def result_files() -> list[Path]:
    """The result files under ``benchmarks/results``, sub-folders included."""
    return sorted(p for p in RESULTS.rglob("*.json") if p.name not in NOT_RESULTS)


def benchmarks_markdown() -> str:
    """``docs/BENCHMARKS.md``: every result file under its benchmark, with the notes of
    ``benchmarks/notes/<name>.md`` (what the numbers mean) after the benchmark's results."""
    names = benchmark_names()
    grouped: dict[str, list[Path]] = {}
    for path in result_files():
        grouped.setdefault(benchmark_of(path, list(names)), []).append(path)
    out = [generated_header("`benchmarks/results/*.json` and `benchmarks/notes/*.md`"),
           "# Benchmarks\n",
           "Every benchmark runs as `python -m benchmarks NAME [options]` (`python -m "
           "benchmarks` lists them), prints its table and writes `benchmarks/results/*.json`: "
           "the command, the machine, the date and the load average before and after the run, "
           "then its rows. Results written before that format say \"not recorded\" where they "
           "lack one. The notes under each benchmark, from `benchmarks/notes/NAME.md`, say "
           "what the numbers mean.\n",
           "| benchmark | result files |", "| --- | --- |"]
    out += [f"| [{n}](#{n}) | {', '.join(p.relative_to(RESULTS).as_posix() for p in ps)} |"
            for n, ps in grouped.items()]
    out.append("")
    for name, paths in grouped.items():
        out.append(f"## {name}\n")
        if names.get(name):
            out.append(md_text(names[name]) + f" (`python -m benchmarks {name}`)\n")
        out += [result_section(p) for p in paths]
        notes = NOTES / f"{name}.md"
        if notes.is_file():
            out += ["#### Notes\n", notes.read_text(encoding="utf-8").strip() + "\n"]
    return "\n".join(out)


# ---------------------------------------------------------------- command

def pages() -> dict[Path, str]:
    """Every generated page by path, made now."""
    return {CONFIG_MD: config_markdown(), BENCHMARKS_MD: benchmarks_markdown()}


def stale() -> list[Path]:
    """The generated pages whose file differs from what would be generated now."""
    return [p for p, text in pages().items()
            if not p.is_file() or p.read_text(encoding="utf-8") != text]


def main(argv: list[str] | None = None) -> int:
    """Write the generated pages (``--check``: only say which are stale, exit 1 if any)."""
    ap = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when stale")
    args = ap.parse_args(argv)
    if args.check:
        old = stale()
        for p in old:
            print(f"{p.relative_to(PROJECT_ROOT)} is stale: run `{COMMAND}`", file=sys.stderr)
        return 1 if old else 0
    for path, text in pages().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(PROJECT_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
