"""paralib's benchmarks: ``python -m benchmarks NAME [options]`` runs ``benchmarks/NAME.py``,
prints its table and writes ``benchmarks/results/*.json`` in one format
(:mod:`benchmarks.common`); ``python -m paralib.docsgen`` turns those files into
``docs/BENCHMARKS.md``."""
