"""The runner's record of a run's training time, resumed runs included."""

from __future__ import annotations

import pytest

from paralib.runs import train_seconds

HISTORY = [{"epoch": 1, "seconds": 100.0}, {"epoch": 2, "seconds": 120.0},
           {"epoch": 3, "seconds": 130.0}]


def test_a_run_made_in_one_call_counts_its_wall_time():
    assert train_seconds(400.0, {"history": HISTORY, "resumed_from_epoch": 0}) == 400.0
    assert train_seconds(400.0, {"history": HISTORY}) == 400.0  # the local trainer's summary


def test_a_resumed_run_adds_the_epochs_made_before_the_resume():
    # Ray Train resumed after epoch 2: this call trained epoch 3 only
    assert train_seconds(150.0, {"history": HISTORY, "resumed_from_epoch": 2}) == \
        pytest.approx(150.0 + 100.0 + 120.0)
