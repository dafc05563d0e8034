"""Reading one number of a run: a path into its evaluation results or training summary.

``SUITE/key/key…`` walks the run's result of evaluation suite ``SUITE`` (the per-model entry
of ``paralib evaluate``'s report); a walk that ends on a correlation entry takes its Pearson's
r. ``train/KEY`` reads the training summary (``train/dev_pearson``, ``train/pairs``);
``report/…`` the JSON file of a report run (a numeric key indexes a list, ``-1`` its last);
``properties/NAME`` a property measured on the run's data (``properties/sp_overlap``, the
SP overlap of its bitext with English, 2019 note 10).

    sts/all                       mean Pearson's r over the STS 2012-2016 datasets
    sts/years/2012                the 2012 mean (2018 Table 8)
    stsb/sets/test                STS Benchmark test (2018 Table 9)
    sts17/sets/en-en              STS 2017 en-en (2018 Tables 4-6 "STS2017")
    speed/sets/multi30k-en/sentences_per_s   encoding speed (2019 Table 4)
    sts/datasets/2012-2015        mean over the datasets of those years (2017's test sets)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paralib.contracts import RunRecord
from paralib.errors import ConfigurationError


class MetricError(ConfigurationError, KeyError):
    """A metric path that the run's results do not have."""


def read_metric(record: RunRecord | Mapping[str, Any], metric: str) -> float | None:
    """The value of ``metric`` in a run record, ``None`` when the run has no result for it
    (not run, missing input, a set whose data is missing)."""
    suite, _, rest = metric.partition("/")
    record = RunRecord.load(record)
    if record.status != "ok":
        return None
    if suite == "train":
        node: Any = record.train.dump() if record.train else {}
    elif suite == "properties":
        node = record.properties or {}
    else:
        node = (record.results or {}).get(suite)
        if node is None:
            raise MetricError(f"metric '{metric}': run '{record.name}' was not "
                              f"evaluated on suite '{suite}'")
    if suite == "sts" and rest.startswith("datasets/"):
        return _dataset_mean(node, rest.removeprefix("datasets/"), metric)
    for key in [k for k in rest.split("/") if k]:
        if isinstance(node, dict) and node.get("status") not in (None, "ok"):
            return None
        if isinstance(node, list) and key.lstrip("-").isdigit() and \
                -len(node) <= int(key) < len(node):
            node = node[int(key)]
            continue
        if not isinstance(node, dict) or key not in node:
            raise MetricError(f"metric '{metric}': no '{key}' in the results of run "
                              f"'{record.name}'")
        node = node[key]
    if isinstance(node, dict):
        if node.get("status") not in (None, "ok"):
            return None
        node = node.get("pearson")
    return None if node is None else float(node)


def _dataset_mean(result: dict[str, Any], years: str, metric: str) -> float | None:
    """Mean Pearson's r over the STS datasets of the years ``FIRST-LAST`` (sets are named
    ``"2012 MSRpar"``); ``None`` when none of them was evaluated."""
    first, _, last = years.partition("-")
    if not (first.isdigit() and (last or first).isdigit()):
        raise MetricError(f"metric '{metric}': years must be YEAR or FIRST-LAST")
    lo, hi = int(first), int(last or first)
    values = [v["pearson"] for k, v in (result.get("sets") or {}).items()
              if v.get("status") == "ok" and k[:4].isdigit() and lo <= int(k[:4]) <= hi]
    return sum(values) / len(values) if values else None
