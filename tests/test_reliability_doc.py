"""docs/RELIABILITY.md: every hostile case names tests that exist (a file, and each
``::test`` in it), so the table cannot point at a test that was renamed or removed."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "RELIABILITY.md"


def referenced() -> list[tuple[str, str | None]]:
    """``(file, test or None)`` of every test the table names; ``::name`` after a file
    without one (`` `::x` ``) belongs to the file named before it in the same cell."""
    refs: list[tuple[str, str | None]] = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or line.startswith("| case") or "---" in line:
            continue
        cell = line.rstrip(" |").rsplit(" | ", 1)[-1]
        current = None
        for code in re.findall(r"`([^`]+)`", cell):
            path, _, name = code.partition("::")
            if path and not path.endswith(".py"):
                continue  # a command quoted in the cell, not a test
            if path:
                current = path
            refs.append((current, name.split("[")[0] or None))
    return refs


def test_every_case_names_tests_that_exist():
    refs = referenced()
    assert len(refs) > 50
    missing = []
    for path, name in refs:
        file = ROOT / path
        if not file.is_file():
            missing.append(path)
            continue
        if name:
            tree = ast.parse(file.read_text(encoding="utf-8"))
            names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
            if name not in names:
                missing.append(f"{path}::{name}")
    assert not missing, f"docs/RELIABILITY.md names tests that do not exist: {missing}"
