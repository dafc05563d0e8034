"""Shared inputs of the benchmark scripts' tests."""

from __future__ import annotations

import gzip
import importlib
import sys
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

from paralib.paths import PROJECT_ROOT, data_root


@pytest.fixture
def val_pairs(tmp_path: Path) -> Path:
    """The Multi30k task-1 validation captions as German-English pairs, in the columns of a
    ``paralib decontaminate`` output (``ref``, ``src``, ``src_lang``, ``group``)."""
    root = data_root() / "bitext" / "multi30k" / "task1" / "raw"
    with gzip.open(root / "val.en.gz", "rt") as en, gzip.open(root / "val.de.gz", "rt") as de:
        ref, src = en.read().splitlines(), de.read().splitlines()
    path = tmp_path / "pairs.parquet"
    pd.DataFrame({"ref": ref, "src": src, "src_lang": "de",
                  "group": range(len(ref))}).to_parquet(path)
    return path


def _load_script(name: str) -> ModuleType:
    if str(PROJECT_ROOT) not in sys.path:  # ``pytest`` alone does not put the root there
        sys.path.insert(0, str(PROJECT_ROOT))
    return importlib.import_module(f"benchmarks.{name}")


@pytest.fixture
def load_script():
    """``load_script(name)``: the benchmark ``benchmarks/<name>.py``, imported as the module
    ``benchmarks.<name>`` that ``python -m benchmarks <name>`` runs."""
    return _load_script
