"""Ray Tune searches over selection and training (2017 §5.2-5.7, Opusparcus §4.2, 2018-2019
training hyperparameters).

A search space file (:mod:`paralib.tune.space`) names parameters (:mod:`paralib.tune.params`:
dotted configuration keys or shortcuts such as ``length_range``); each trial
(:mod:`paralib.tune.trial`) selects its own training set from scored pairs and trains with
Ray Train inside Tune, reporting the dev metric every epoch; :func:`run_tune`
(:mod:`paralib.tune.runner`) runs the search with ASHA, evaluates the best configuration on
the test suites and writes the report (:mod:`paralib.tune.report`). ``paralib tune``
(:mod:`paralib.tune.cli`) is the command line.

    from paralib.tune import read_space, run_tune
    summary = run_tune(read_space("tune/spaces/length-quick.yaml"), config)
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "SHORTCUTS": "params", "apply_parameters": "params",
    "Space": "space", "SpaceError": "space", "read_space": "space",
    "validate_space": "validate",
    "ResourceError": "runner", "TuneOptions": "runner", "run_tune": "runner",
    "write_report": "report",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"paralib.tune.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'paralib.tune' has no attribute {name!r}")
