"""``jobs/run.py STAGE`` starts every stage as ``ray job submit -- python jobs/run.py STAGE``
starts it.

``python jobs/x.py`` puts ``jobs/`` first on ``sys.path``, so a job script named like a stdlib
module replaces that module for the whole job (a ``jobs/select.py`` was what ``import
subprocess`` got, and every job died at start with a circular import of ``paralib.cli``).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from paralib.cli import COMMANDS
from paralib.paths import PROJECT_ROOT

STAGES = sorted(COMMANDS)


def run_job(*args: str) -> subprocess.CompletedProcess:
    """``python jobs/run.py ARGS`` from the repository root, as a Ray job runs it."""
    return subprocess.run([sys.executable, "jobs/run.py", *args], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=120)


def test_jobs_folder_is_one_entry_point_that_shadows_no_stdlib_module():
    scripts = sorted(p.name for p in (PROJECT_ROOT / "jobs").glob("*.py"))
    assert scripts == ["run.py"]
    assert "run" not in sys.stdlib_module_names


@pytest.mark.parametrize("stage", STAGES)
def test_every_stage_starts_as_a_job(stage):
    proc = run_job(*stage.split(), "--help")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"usage: paralib {stage}" in proc.stdout
    assert COMMANDS[stage].example in proc.stdout  # the stage's own help, not another's


def test_unknown_stage_exits_2_naming_the_choices():
    proc = run_job("nope", "--config", "x.yaml")
    assert proc.returncode == 2
    assert "invalid choice: 'nope'" in proc.stderr and "train" in proc.stderr
