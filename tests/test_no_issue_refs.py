"""No comment or docstring cites an issue or pull request by its number or title.

A reader of the code cannot look such a citation up (the tracker is not part of the project),
so a comment says the reason itself. Checked: every comment and docstring of the Python files
under ``paralib/``, ``jobs/``, ``benchmarks/`` and ``tests/``, every comment of the YAML files
under ``configs/`` and the notes (Markdown) under ``benchmarks/``. A reference into another
project's tracker (``owner/repo#123``) names where to look, so it is allowed.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTHON_DIRS = ("paralib", "jobs", "benchmarks", "tests")

CITATION = re.compile(
    r"\bissues?\s+(?:\#?\d+|[\"'“‘])"        # a number or a quoted title after "issue"
    r"|\(\s*issues?\b"                         # the word opening a parenthesis
    r"|\b(?:pr|pull\s+request)\s+\#?\d+"       # a pull request by number
    r"|\b(?:see|cf\.?|per|fixes|closes)\s+\#\d+\b"
    r"|(?<![\w/])\(\#\d+\)",                   # a hash and a number in parentheses
    re.IGNORECASE)


def citations(text: str) -> list[str]:
    """The issue citations in ``text`` (a comment or a docstring)."""
    return [m.group(0) for m in CITATION.finditer(text)]


def _docstrings(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield getattr(node, "lineno", 1), doc


def python_texts(path: Path) -> list[tuple[int, str]]:
    """``(line, text)`` of every comment and docstring of one Python file."""
    source = path.read_text(encoding="utf-8")
    out = [(tok.start[0], tok.string)
           for tok in tokenize.generate_tokens(io.StringIO(source).readline)
           if tok.type == tokenize.COMMENT]
    return out + list(_docstrings(ast.parse(source, str(path))))


def yaml_comments(path: Path) -> list[tuple[int, str]]:
    """``(line, text)`` of every ``#`` comment of one YAML file (a ``#`` inside a quoted
    value is not one; configs keep their comments on lines of their own or after a space)."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith("#"):
            out.append((n, stripped))
        elif " #" in line:
            out.append((n, line.split(" #", 1)[1]))
    return out


def found() -> list[str]:
    """``path:line: citation`` for every citation in the checked files."""
    hits = []
    files = [(p, python_texts) for d in PYTHON_DIRS for p in sorted((ROOT / d).rglob("*.py"))]
    files += [(p, yaml_comments) for p in sorted((ROOT / "configs").rglob("*.y*ml"))]
    files += [(p, lambda p: list(enumerate(p.read_text(encoding="utf-8").splitlines(), 1)))
              for p in sorted((ROOT / "benchmarks").rglob("*.md"))]
    for path, texts in files:
        for line, text in texts(path):
            for hit in citations(text):
                hits.append(f"{path.relative_to(ROOT)}:{line}: {hit!r}")
    return hits


def test_no_comment_or_docstring_cites_an_issue():
    hits = found()
    assert not hits, "say the reason instead of citing the issue:\n" + "\n".join(hits)


@pytest.mark.parametrize("text", [
    "the evaluation stage (issue 5): STS",
    'decontaminated (issue "Bitext at scale", item 2)',
    "Issue 30 item 10: a reject keeps its bytes",
    "kept for old records, see #17",
    "a workaround (#42)",
    "undone by PR 12",
    "as issue #3 asks",
])
def test_a_citation_is_found(text):
    assert citations(text)


@pytest.mark.parametrize("text", [
    "pytorch/pytorch#149194, open",
    "MSRPC (Quality, #1 ID, #2 ID, #1 String, #2 String)",
    "the issue here is that Arrow splits on Unicode spaces",
    "id + '#1' for the second hypothesis",
])
def test_a_plain_sentence_is_not_a_citation(text):
    assert not citations(text)


def test_comments_and_docstrings_are_what_is_read(tmp_path):
    path = tmp_path / "m.py"
    path.write_text('"""Module (issue 1)."""\n\nX = "(issue 2)"  # a comment (issue 3)\n\n\n'
                    'def f():\n    """F (issue 4)."""\n')
    texts = [t for _, t in python_texts(path)]
    assert sorted(hit for t in texts for hit in citations(t)) == ["(issue"] * 3
    assert not any("issue 2" in t for t in texts)
