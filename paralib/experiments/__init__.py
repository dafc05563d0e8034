"""Reproductions of the papers' tables: one YAML file per table under
``experiments/``, one command per table, and a results book (``docs/RESULTS.md``).

    from paralib.experiments import run_experiment
    run_experiment("mega-batching", size="small")

``paralib experiment NAME`` (:mod:`paralib.experiments.cli`) is the command line. The file
format is :mod:`paralib.experiments.spec`; the runner :mod:`paralib.experiments.runner`.
"""

from paralib.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    ".spec": "SIZES Experiment ExperimentError NotRunnable list_experiments load_experiment",
    ".runner": "run_experiment",
})
