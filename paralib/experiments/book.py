"""The results book (``docs/RESULTS.md``): one section per experiment, replaced in place.

The experiments live between two region markers; each section between its own markers,
in experiment-number order::

    <!-- experiments:begin -->
    <!-- experiment 7 mega-batching begin -->
    ...
    <!-- experiment 7 mega-batching end -->
    <!-- experiments:end -->

Writing a section replaces only the text between its markers (or inserts it in number order);
everything else in the file, such as sections other people write above the region, is left
byte for byte as it was. Experiments running side by side write one at a time (a lock file
``.RESULTS.md.lock`` beside the book) and each write replaces the file whole, so no section is
lost and a reader never sees half a file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from filelock import FileLock

from paralib.errors import ConfigurationError

REGION_BEGIN, REGION_END = "<!-- experiments:begin -->", "<!-- experiments:end -->"
REGION_HEAD = ("## Experiments\n\nReproductions of the papers' tables, each written by "
               "`paralib experiment NAME`; the paper's numbers are typed from the paper, ours "
               "are measured here. The record of every run behind a section (config "
               "fingerprints, training summary, scores, seconds, when and on what machine it "
               "was made) is kept in `results/runs/NAME/SIZE/`.\n")
BOOK_HEAD = "# Results\n"
SECTION = re.compile(r"<!-- experiment (\d+) ([a-z0-9-]+) begin -->.*?"
                     r"<!-- experiment \1 \2 end -->\n?", re.S)


class BookError(ConfigurationError, ValueError):
    """The results file's markers are broken (an unclosed region or section)."""


def markers(number: int, name: str) -> tuple[str, str]:
    """The begin and end markers of one experiment's section."""
    return (f"<!-- experiment {number} {name} begin -->",
            f"<!-- experiment {number} {name} end -->")


def _region(text: str) -> tuple[int, int]:
    """Start and end offsets of the region's inside; the region is appended when absent."""
    begin, end = text.find(REGION_BEGIN), text.find(REGION_END)
    if (begin < 0) != (end < 0) or end < begin:
        raise BookError(f"the results file has '{REGION_BEGIN}' and '{REGION_END}' out of "
                        "order or only one of them")
    return begin + len(REGION_BEGIN), end


def replace_section(text: str, number: int, name: str, body: str) -> str:
    """``text`` with experiment ``name``'s section set to ``body`` (idempotent)."""
    if REGION_BEGIN not in text and REGION_END not in text:
        sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n")
                                                            else "\n\n")
        text = f"{text}{sep}{REGION_BEGIN}\n{REGION_HEAD}\n{REGION_END}\n"
    start, end = _region(text)
    inside = text[start:end]
    begin, finish = markers(number, name)
    block = f"{begin}\n{body.strip()}\n{finish}\n"
    for m in SECTION.finditer(inside):
        if m.group(2) == name:
            inside = inside[:m.start()] + block + inside[m.end():]
            return text[:start] + inside + text[end:]
    if begin in inside or finish in inside:
        raise BookError(f"the section of experiment {name} has only one of its markers")
    later = [m for m in SECTION.finditer(inside) if int(m.group(1)) > number]
    at = later[0].start() if later else len(inside)
    prefix = inside[:at]
    if prefix and not prefix.endswith("\n\n"):
        block = ("\n" if prefix.endswith("\n") else "\n\n") + block
    if later:
        block += "\n"
    return text[:start] + prefix + block + inside[at:] + text[end:]


def section_names(text: str) -> list[str]:
    """Names of the experiment sections in ``text``, in file order."""
    return [m.group(2) for m in SECTION.finditer(text)]


def write_section(path: Path, number: int, name: str, body: str) -> Path:
    """Replace (or add) one experiment's section of the results file at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(path.with_name(f".{path.name}.lock")):
        text = path.read_text(encoding="utf-8") if path.is_file() else BOOK_HEAD
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(replace_section(text, number, name, body), encoding="utf-8")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    return path
