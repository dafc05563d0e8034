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

from paralib.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    ".params": "SHORTCUTS apply_parameters", ".space": "Space SpaceError read_space",
    ".validate": "validate_space", ".runner": "ResourceError TuneOptions run_tune",
    ".report": "write_report",
})
