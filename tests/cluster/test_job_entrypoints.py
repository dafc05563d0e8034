"""Every ``jobs/<stage>.py`` starts as ``ray job submit -- python jobs/<stage>.py`` starts it.

``python jobs/x.py`` puts ``jobs/`` first on ``sys.path``, so a job script named like a stdlib
module replaces that module for the whole job (a ``jobs/select.py`` was what ``import
subprocess`` got, and every job died at start with a circular import of ``paralib.cli``; it is
``jobs/select_pairs.py`` now).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from paralib.paths import PROJECT_ROOT

JOBS = sorted(p.name for p in (PROJECT_ROOT / "jobs").glob("*.py"))

def test_no_job_script_shadows_a_stdlib_module():
    stdlib = {f"{name}.py" for name in sys.stdlib_module_names}
    assert [name for name in JOBS if name in stdlib] == []


@pytest.mark.parametrize("job", JOBS)
def test_job_script_starts(job):
    proc = subprocess.run([sys.executable, f"jobs/{job}", "--help"], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # every stage takes --config, except evaluate, which takes model folders and suites
    assert ("--model" if job == "evaluate.py" else "--config") in proc.stdout
