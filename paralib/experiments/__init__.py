"""Reproductions of the papers' tables (issue 7): one YAML file per table under
``experiments/``, one command per table, and a results book (``docs/RESULTS.md``).

    from paralib.experiments import run_experiment
    run_experiment("mega-batching", size="small")

``paralib experiment NAME`` (:mod:`paralib.experiments.cli`) is the command line. The file
format is :mod:`paralib.experiments.spec`; the runner :mod:`paralib.experiments.runner`.
"""

from __future__ import annotations

from paralib.experiments.spec import (
    SIZES,
    Experiment,
    ExperimentError,
    NotRunnable,
    list_experiments,
    load_experiment,
)

__all__ = ["SIZES", "Experiment", "ExperimentError", "NotRunnable", "list_experiments",
           "load_experiment", "run_experiment"]


def run_experiment(*args, **kwargs):
    """See :func:`paralib.experiments.runner.run_experiment` (imported on first use)."""
    from paralib.experiments.runner import run_experiment as run

    return run(*args, **kwargs)
