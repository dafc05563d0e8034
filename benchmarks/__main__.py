"""``python -m benchmarks NAME [options]``: run one benchmark (``benchmarks/NAME.py``'s
``main``); ``python -m benchmarks`` or ``--help`` lists them, ``NAME --help`` its options."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

from benchmarks.common import begin

HERE = Path(__file__).resolve().parent
HELPERS = {"__init__", "__main__", "common"}


def benchmarks() -> dict[str, str]:
    """Every benchmark by name with the first line of its docstring: the modules of this
    package that define ``main`` (read, not imported: importing one loads torch)."""
    found = {}
    for path in sorted(HERE.glob("*.py")):
        if path.stem in HELPERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in tree.body):
            found[path.stem] = (ast.get_docstring(tree) or "").split("\n")[0]
    return found


def usage(names: dict[str, str]) -> str:
    """The harness's help: its usage line and the benchmarks."""
    width = max(map(len, names))
    lines = [f"  {n.ljust(width)}  {doc}" for n, doc in names.items()]
    return ("usage: python -m benchmarks NAME [options]   (NAME --help: its options)\n\n"
            "Runs one benchmark; it prints a table and writes benchmarks/results/*.json.\n\n"
            "benchmarks:\n" + "\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark ``argv[0]`` with the rest of ``argv``; 2 for an unknown name."""
    argv = sys.argv[1:] if argv is None else argv
    names = benchmarks()
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(names))
        return 0
    name, rest = argv[0], argv[1:]
    if name not in names:
        print(f"python -m benchmarks: unknown benchmark {name!r}; expected one of "
              f"{', '.join(names)}", file=sys.stderr)
        return 2
    begin(name, rest)
    sys.argv = [f"python -m benchmarks {name}", *rest]  # argparse's prog, and the scripts'
    importlib.import_module(f"benchmarks.{name}").main(rest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
