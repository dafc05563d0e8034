"""Building a training set from scored candidate pairs (2017 §5.2, 2018 §5.4, Opusparcus
§3.2 and §4.2).

``select(df, spec) -> (selected, report)`` applies a :class:`SelectSpec`;
``write_selection`` writes the pairs and, next to them, the report (bounds, counts kept per
step, seed); ``run.run(spec, ctx)`` does both from ``spec.input`` to ``spec.output``.

Names are imported on first use, so that reading a config does not import pandas.
"""

from paralib.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    ".config": "Bound FoldSpec NoiseSpec SelectSpec",
    ".steps": "SelectError fold_numbers",
    ".files": "read_pairs write_selection",
    ".run": "exclude_heldout select",
})
