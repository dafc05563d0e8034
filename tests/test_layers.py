"""paralib's layers: a module never imports a module of a higher layer, and no import cycle.

The layers are defined here, once (docs/ARCHITECTURE.md describes them): every module of
``paralib`` falls in the first layer one of whose patterns (:func:`fnmatch.fnmatchcase` on the
dotted name) it matches. A module may import its own layer and the layers below it; imports
inside functions count too (a lazy import is still a dependency), those under
``if TYPE_CHECKING:`` do not. Importing ``paralib.a.b`` runs ``paralib/a/__init__.py`` as well,
so it counts as importing what that ``__init__.py`` imports. A name a package exports on first
use (:func:`paralib.lazy.lazy_exports`) counts as an import of the module that holds it.
"""

from __future__ import annotations

import ast
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "paralib"

# Lowest first. A module belongs to the first layer with a matching pattern.
LAYERS: dict[str, tuple[str, ...]] = {
    # errors, paths, logging, the pydantic base, and the pure helpers everything shares
    "core": ("paralib.errors", "paralib.paths", "paralib.redact", "paralib.text", "paralib.lazy",
             "paralib.schema", "paralib.fingerprint", "paralib.overrides", "paralib.console",
             "paralib.io.fs", "paralib.corpora.langs", "paralib.decontaminate.normalise",
             "paralib.filters.tokenize"),
    # the configuration schema: each stage's config module and the Config that holds them, the
    # registries it checks names against (scorers, corpora), and the typed records that pass
    # between stages
    "schema": ("paralib.*.config", "paralib.config", "paralib.wiring", "paralib.filters.base",
               "paralib.corpora.registry", "paralib.contracts", "paralib.contracts.*"),
    # storage and compute: files, stage outputs, Ray, and what a stage's command gets
    "platform": ("paralib.io", "paralib.io.*", "paralib.runtime", "paralib.cluster",
                 "paralib.cluster.*", "paralib.commands"),
    # Ray-free building blocks: encoders, tokenizers, losses, baselines
    "components": ("paralib.models", "paralib.models.*", "paralib.losses", "paralib.losses.*",
                   "paralib.baselines", "paralib.baselines.*"),
    # one package per stage (translate, filters, select, train, evaluate...)
    "stages": ("paralib.translate*", "paralib.filters*", "paralib.decontaminate*",
               "paralib.select*", "paralib.analysis*", "paralib.lm*", "paralib.classifier*",
               "paralib.train*", "paralib.encode*", "paralib.mine*", "paralib.evaluate*",
               "paralib.export*", "paralib.mt*", "paralib.corpora*"),
    # what runs several stages: the run service, the quickstart, tuning, experiments
    "orchestration": ("paralib.runs", "paralib.runs.*", "paralib.quickstart", "paralib.tune*",
                      "paralib.experiments*"),
    # the command line (each stage's cli module included) and the package's public face
    "entry": ("paralib", "paralib.__main__", "paralib.cli", "paralib.*.cli",
              "paralib.docsgen"),
}


def layer_of(module: str) -> int:
    """The rank of ``module``'s layer: the layer of its most specific matching pattern (the
    one with the most dots; ``paralib.*.cli`` before ``paralib.encode*``), the lower on a tie."""
    best: tuple[int, int] | None = None
    for rank, patterns in enumerate(LAYERS.values()):
        for pattern in patterns:
            if fnmatchcase(module, pattern):
                key = (-pattern.count("."), rank)
                best = key if best is None or key < best else best
    if best is None:
        raise AssertionError(f"{module} is in no layer: add a pattern to LAYERS in {__file__}")
    return best[1]


def modules() -> dict[str, Path]:
    """Every module of paralib by dotted name (a package by its own name)."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _import_nodes(tree: ast.AST, type_checking: bool = False):
    """Every import statement of ``tree``, except those under ``if TYPE_CHECKING:`` (unless
    ``type_checking``)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if _type_checking(node) and not type_checking:
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        todo.extend(ast.iter_child_nodes(node))


def lazy_table(package: str, tree: ast.AST) -> dict[str, str]:
    """``{name: module}`` of a package ``__init__`` that calls
    ``lazy_exports(__name__, {module: "names"})`` (:mod:`paralib.lazy`)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports":
            table = ast.literal_eval(node.args[1])
            return {name: package + module if module.startswith(".") else module
                    for module, names in table.items() for name in names.split()}
    return {}


def imports(type_checking: bool = False) -> dict[str, set[str]]:
    """The paralib modules each paralib module imports (and what the ``__init__.py`` of the
    packages above them import); with ``type_checking``, those imported only for annotations
    too."""
    mods = modules()
    trees = {module: ast.parse(path.read_text(), str(path)) for module, path in mods.items()}
    lazy = {module: lazy_table(module, trees[module]) for module, path in mods.items()
            if path.name == "__init__.py"}

    def resolve(name: str) -> str | None:
        package, _, attr = name.rpartition(".")
        if attr in lazy.get(package, {}):
            return lazy[package][attr]
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    implicit: dict[str, set[str]] = {}  # the packages above each import
    for module, path in mods.items():
        found: set[str] = set()
        for node in _import_nodes(trees[module], type_checking):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                package = module if path.name == "__init__.py" else module.rpartition(".")[0]
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                    + ([base] if base else []))
                names = [f"{base}.{a.name}" for a in node.names]
            for name in names:
                target = resolve(name) if name.startswith("paralib") else None
                if target:
                    found.add(target)
                    implicit.setdefault(module, set()).update(_packages(target))
        graph[module] = found
    for module, packages in implicit.items():
        # importing paralib.a.b runs paralib/a/__init__.py too (unless the module is inside
        # paralib.a, whose __init__.py has run before it): what that imports is imported
        graph[module] |= {t for p in packages if not module.startswith(p + ".")
                          for t in graph.get(p, ())}
    return {m: {t for t in ts if t != m and not m.startswith(t + ".")} for m, ts in graph.items()}


def _packages(module: str) -> list[str]:
    """The packages above ``module`` (``paralib.a.b.c``: ``paralib.a.b``, ``paralib.a``)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(2, len(parts))]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_every_module_has_a_layer():
    for module in modules():
        layer_of(module)


def test_no_module_imports_a_higher_layer():
    names = list(LAYERS)
    upward = [f"{m} ({names[layer_of(m)]}) imports {t} ({names[layer_of(t)]})"
              for m, targets in sorted(imports().items()) for t in sorted(targets)
              if layer_of(t) > layer_of(m)]
    assert not upward, "\n".join(upward)


# Cycles known and not yet cut, each with the reason; a new cycle fails, and so does a listed
# one that is gone (take it off the list).
KNOWN_CYCLES: dict[tuple[str, ...], str] = {}


def test_no_import_cycles():
    found = {tuple(c) for c in cycles(imports())}
    assert not found - set(KNOWN_CYCLES), "\n".join(" <-> ".join(c) for c in found
                                                    - set(KNOWN_CYCLES))
    assert set(KNOWN_CYCLES) <= found, f"no longer a cycle: {set(KNOWN_CYCLES) - found}"


@pytest.mark.parametrize(("graph", "expected"), [
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
])
def test_the_cycle_check_finds_cycles(graph, expected):
    assert cycles(graph) == expected


def tiny_package(tmp_path: Path, monkeypatch, files: dict[str, str]) -> None:
    """A package ``paralib`` under ``tmp_path`` of ``files`` (relative path: source), each
    folder made on the way, that the checks of this module read instead of the real one."""
    pkg = tmp_path / "paralib"
    for name, source in files.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(source)
    monkeypatch.setattr(__import__(__name__), "ROOT", pkg)


def test_the_layer_check_sees_lazy_and_relative_imports(tmp_path, monkeypatch):
    tiny_package(tmp_path, monkeypatch, {
        "__init__.py": "", "errors.py": "", "filters/__init__.py": "", "cli.py": "",
        "filters/stage.py":
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import paralib.cli\n"
            "def f():\n    from paralib import cli\n    from ..errors import X\n"})
    assert imports()["paralib.filters.stage"] == {"paralib.cli", "paralib.errors"}


def test_the_layer_check_follows_lazy_exports(tmp_path, monkeypatch):
    tiny_package(tmp_path, monkeypatch, {
        "__init__.py": "", "lazy.py": "", "lm/config.py": "", "lm/train.py": "",
        "lm/__init__.py": "from paralib.lazy import lazy_exports\n"
                          "__all__, __getattr__ = lazy_exports(__name__, {'.train': 'train_lm'})\n",
        "config.py": "from paralib.lm.config import X\n",
        "cli.py": "from paralib.lm import train_lm\n"})
    graph = imports()
    # the name resolves to the module that holds it; importing a submodule runs the package's
    # __init__.py, which imports paralib.lazy, not the package's lazy modules
    assert graph["paralib.cli"] == {"paralib.lm.train", "paralib.lazy"}
    assert graph["paralib.config"] == {"paralib.lm.config", "paralib.lazy"}
    assert graph["paralib.lm"] == {"paralib.lazy"}


def test_no_import_cycles_counting_annotations():
    """No cycle either when imports under ``if TYPE_CHECKING:`` count: a module that names
    another's type in its annotations depends on it as much as one that calls it, and a
    cycle hidden that way (two modules of one package each naming the other's types) is
    the same tangle. The shared piece belongs in a lower module (or a ``Protocol`` where the
    lower module defines what it needs)."""
    found = cycles(imports(type_checking=True))
    assert not found, "\n".join(" <-> ".join(c) for c in found)


def test_the_cycle_check_sees_cycles_hidden_under_type_checking(tmp_path, monkeypatch):
    tiny_package(tmp_path, monkeypatch, {
        "__init__.py": "", "experiments/__init__.py": "",
        "experiments/spec.py": "from paralib.experiments.plotspec import P\n",
        "experiments/plotspec.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                   "    from paralib.experiments.spec import Experiment\n"})
    assert cycles(imports()) == []
    assert cycles(imports(type_checking=True)) == [
        ["paralib.experiments.plotspec", "paralib.experiments.spec"]]


def config_importers() -> list[str]:
    """The stage modules that import the root ``Config`` (``from paralib.config import
    Config``, or ``import paralib.config``), under ``if TYPE_CHECKING:`` too."""
    stages = list(LAYERS).index("stages")
    found = []
    for module, path in modules().items():
        if layer_of(module) != stages:
            continue
        tree = ast.parse(path.read_text(), str(path))
        if any(any(a.name == "paralib.config" for a in n.names) if isinstance(n, ast.Import)
               else n.module == "paralib.config" and any(a.name == "Config" for a in n.names)
               for n in _import_nodes(tree, type_checking=True)):
            found.append(module)
    return sorted(found)


def test_no_stage_module_imports_the_root_config():
    """A stage gets its section and a StageContext (paralib.io.context), never the whole
    Config, not even as a type: the command line and the run service build the context."""
    assert config_importers() == []


def test_the_config_check_sees_a_stage_that_imports_config(tmp_path, monkeypatch):
    tiny_package(tmp_path, monkeypatch, {
        "__init__.py": "", "config.py": "", "score/__init__.py": "",
        "score/stage.py": "def f():\n    from paralib.config import Config\n",
        "score/typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                          "    from paralib.config import Config\n"})
    monkeypatch.setitem(LAYERS, "stages", ("paralib.score*",))
    assert config_importers() == ["paralib.score.stage", "paralib.score.typed"]
