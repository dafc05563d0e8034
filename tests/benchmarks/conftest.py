"""Shared inputs of the benchmark scripts' tests."""

from __future__ import annotations

import gzip
import importlib.util
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
    script = PROJECT_ROOT / "benchmarks" / f"{name}.py"
    sys.path.insert(0, str(script.parent))
    spec = importlib.util.spec_from_file_location(name, script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def load_script():
    """``load_script(name)``: the benchmark script ``benchmarks/<name>.py`` imported as a
    module (its folder on the path, as when it runs, for ``common``)."""
    return _load_script
