"""The results book: a section is replaced in place, idempotently, and nothing else moves."""

from __future__ import annotations

import pytest

from paralib.experiments.book import (
    REGION_BEGIN,
    REGION_END,
    BookError,
    markers,
    replace_section,
    section_names,
    write_section,
)

LEAD = "# Results\n\n## Evaluation\n\nThe lead's table | a | b |\n\n"


def test_first_section_creates_the_region_below_existing_text():
    text = replace_section(LEAD, 7, "mega-batching", "### 7. Mega-batching\n\nbody")
    assert text.startswith(LEAD)
    assert text.index(REGION_BEGIN) < text.index("### 7.") < text.index(REGION_END)
    assert section_names(text) == ["mega-batching"]


def test_replacing_is_idempotent_and_touches_only_its_section():
    text = replace_section(LEAD, 8, "encoders", "encoders v1")
    text = replace_section(text, 7, "mega-batching", "mega v1")
    text = replace_section(text, 14, "speed", "speed v1")
    again = replace_section(text, 7, "mega-batching", "mega v1")
    assert again == text
    new = replace_section(text, 7, "mega-batching", "mega v2\n\nwith | a table |")
    assert "mega v1" not in new and "mega v2" in new
    before, after = text.split(markers(7, "mega-batching")[0])
    new_before, new_after = new.split(markers(7, "mega-batching")[0])
    assert new_before == before  # the lead's text and nothing else above it changed
    assert new_after[new_after.index(markers(7, "mega-batching")[1]):] == \
        after[after.index(markers(7, "mega-batching")[1]):]
    assert replace_section(new, 7, "mega-batching", "mega v1") == text


def test_sections_are_kept_in_experiment_number_order():
    text = LEAD
    for number, name in ((14, "speed"), (7, "mega-batching"), (9, "bitext"), (1, "sources")):
        text = replace_section(text, number, name, f"{name} body")
    assert section_names(text) == ["sources", "mega-batching", "bitext", "speed"]
    assert "\n\n\n" not in text.split(REGION_BEGIN)[1]


def test_text_after_the_region_is_kept(tmp_path):
    path = tmp_path / "RESULTS.md"
    path.write_text(f"{LEAD}{REGION_BEGIN}\n{REGION_END}\n\n## Appendix\n\nkept\n")
    write_section(path, 7, "mega-batching", "mega")
    write_section(path, 7, "mega-batching", "mega")
    text = path.read_text()
    assert text.endswith("## Appendix\n\nkept\n") and text.count("mega") == 3  # body + markers


def test_missing_file_is_created(tmp_path):
    path = write_section(tmp_path / "docs" / "RESULTS.md", 9, "bitext", "body")
    assert path.read_text().startswith("# Results\n") and section_names(path.read_text()) == \
        ["bitext"]


@pytest.mark.parametrize("broken", [
    f"{LEAD}{REGION_BEGIN}\nno end\n",
    f"{LEAD}{REGION_END}\n{REGION_BEGIN}\n",
])
def test_broken_region_markers_are_an_error(broken):
    with pytest.raises(BookError, match="out of order or only one"):
        replace_section(broken, 7, "mega-batching", "body")


def test_a_half_section_is_an_error():
    begin, _ = markers(7, "mega-batching")
    text = f"{LEAD}{REGION_BEGIN}\n{begin}\nhalf\n{REGION_END}\n"
    with pytest.raises(BookError, match="only one of its markers"):
        replace_section(text, 7, "mega-batching", "body")


WRITER = """
import sys
from pathlib import Path
from paralib.experiments.book import write_section
path, first = Path(sys.argv[1]), int(sys.argv[2])
for number in range(first, first + 25):
    write_section(path, number, f"exp-{number}", f"### {number}\\n\\nbody {number}")
"""


def test_experiments_writing_side_by_side_lose_no_section(tmp_path):
    """Each write reads the book, replaces its section and writes it back: without the book's
    lock, processes writing at once would overwrite each other's sections."""
    import subprocess
    import sys

    path = tmp_path / "RESULTS.md"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(1 + 25 * i)])
             for i in range(4)]
    assert [p.wait(120) for p in procs] == [0, 0, 0, 0]
    names = section_names(path.read_text())
    assert names == [f"exp-{n}" for n in range(1, 101)]
    assert sorted(q.name for q in tmp_path.iterdir()) == [".RESULTS.md.lock", "RESULTS.md"]
