"""The sentences of an STS test year as a lines file, for round-trip paraphrases (DCU 2016 §3.2).

DCU-SEManiacs translated "every test sentence" into a pivot language and back and added each
(original, round trip) pair to the training data: paraphrases targeted at the test domain.
:func:`write_sts_sentences` writes each distinct sentence of a year's STS input files once,
one per line, in file order (``scored_only``: only the sentences of the pairs that have a
gold score, the ones the evaluation reads). Then ``paralib pivot`` with ``format: lines``
(``configs/sts2016-roundtrip.yaml``) makes the round trips; its output has the ``ref``
(original) and ``trans`` (round trip) columns that the ``pairs`` training source reads.

The files are those of :func:`paralib.evaluate.loaders.read_sts`.
"""

from __future__ import annotations

from pathlib import Path

from paralib.evaluate.loaders import STS_YEARS, read_sts, read_sts_input
from paralib.io import fs as pfs
from paralib.io.fs import S3Options
from paralib.paths import data_root


def sts_sentences(year: int, scored_only: bool = False,
                  root: Path | None = None) -> tuple[list[str], dict]:
    """The distinct sentences of STS ``year`` (file order) and per-set counts."""
    if year not in STS_YEARS:
        raise ValueError(f"STS year {year} is not one of {', '.join(map(str, STS_YEARS))}")
    root = root or data_root()
    seen: dict[str, None] = {}
    sets = {}
    for name in STS_YEARS[year]:
        scored = read_sts(root, year, name)
        pairs = (list(zip(scored.a, scored.b, strict=True)) if scored_only
                 else read_sts_input(root, year, name))
        before = len(seen)
        seen.update(dict.fromkeys(s.strip() for pair in pairs for s in pair if s.strip()))
        sets[scored.name] = {"pairs": len(pairs), "new_sentences": len(seen) - before}
    return list(seen), sets


def write_sts_sentences(output: str, year: int = 2016, scored_only: bool = False,
                        s3: S3Options | None = None, root: Path | None = None) -> dict:
    """Write the sentences of STS ``year`` to ``output`` (local or ``s3://``); the counts."""
    sentences, sets = sts_sentences(year, scored_only, root)
    pfs.write_bytes(output, ("\n".join(sentences) + "\n").encode("utf-8"), s3)
    return {"output": output, "year": year, "scored_only": scored_only,
            "sentences": len(sentences), "sets": sets}
