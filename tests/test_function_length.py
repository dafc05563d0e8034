"""No function of ``paralib/`` or ``benchmarks/`` is longer than 80 lines.

A longer function does several things; it is split into named steps, each with its own
docstring, so that a reader sees the steps before their details. Lines are counted from the
``def`` to the function's last line, docstring and nested functions included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 80

# Functions known to be longer and not split yet, each with the reason; a new one fails. One
# that has been split may stay listed until the next edit of this file.
KNOWN: dict[str, str] = {
}


def long_functions(path: Path, limit: int = MAX_LINES) -> list[tuple[str, int]]:
    """``(name, lines)`` of every function of ``path`` longer than ``limit`` lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno is not None and node.end_lineno - node.lineno + 1 > limit]


def test_no_function_is_longer_than_80_lines():
    found = [f"{path.relative_to(ROOT)}:{name} ({lines} lines)"
             for folder in ("paralib", "benchmarks")
             for path in sorted((ROOT / folder).rglob("*.py"))
             for name, lines in long_functions(path)
             if f"{path.relative_to(ROOT)}:{name}" not in KNOWN]
    assert not found, "split into named steps:\n" + "\n".join(found)


@pytest.mark.parametrize(("body_lines", "expected"), [(78, []), (79, [("f", 81)])])
def test_the_length_counts_from_def_to_the_last_line(tmp_path, body_lines, expected):
    path = tmp_path / "m.py"
    path.write_text('def f():\n    """Doc."""\n' + "    x = 1\n" * body_lines)
    assert long_functions(path) == expected
