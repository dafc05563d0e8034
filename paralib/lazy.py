"""A package's names imported on first use, so that importing the package (for its config
section) imports none of its heavy modules (torch, Ray, pandas, scipy).

A package ``__init__.py`` declares which module holds each name::

    __all__, __getattr__ = lazy_exports(__name__, {
        ".train": "KenLMNotFoundError find_kenlm_binary train_lm",
    })

A module name starting with ``.`` is relative to the package. ``tests/test_layers.py`` reads
the same table, so ``from paralib.lm import train_lm`` counts as importing ``paralib.lm.train``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any


def lazy_exports(package: str, table: dict[str, str],
                 prepare: Callable[[ModuleType], Any] | None = None,
                 ) -> tuple[list[str], Callable[[str], Any]]:
    """``(__all__, __getattr__)`` of ``package``: ``table`` maps a module to the names it
    exports (separated by white space); ``prepare`` runs on a module before a name is read
    from it (``paralib.filters`` registers its built-in scorers)."""
    where = {name: module if not module.startswith(".") else package + module
             for module, names in table.items() for name in names.split()}

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(where[name])
        if prepare is not None:
            prepare(module)
        return getattr(module, name)

    return sorted(where), __getattr__
