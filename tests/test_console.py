"""Quiet by default: the run's log folder, Ray's handlers moved there, native stderr, reset."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

from paralib import console


def test_configure_quiet_moves_ray_handlers_to_the_log_file(tmp_path):
    import ray  # noqa: F401

    ray_logger = logging.getLogger("ray")
    before = list(ray_logger.handlers)
    term = logging.StreamHandler(sys.stderr)
    ray_logger.addHandler(term)  # as Ray's own console handler
    try:
        c = console.configure(verbose=False, log_dir=tmp_path)
        assert term not in ray_logger.handlers
        assert c.handler in ray_logger.handlers and not c.log_to_driver
        logging.getLogger("ray.data").warning("a ray line")
        logging.getLogger("paralib.x").info("an info line")
        c.handler.flush()
        text = (tmp_path / console.LOG_FILE).read_text()
        assert "a ray line" in text and "an info line" in text
    finally:
        console.reset()
        for h in list(ray_logger.handlers):
            if h not in before:
                ray_logger.removeHandler(h)
    assert console.current().verbose and console.current().handler is None
    assert all(not isinstance(h, logging.FileHandler) or h.baseFilename != str(
        tmp_path / console.LOG_FILE) for h in logging.getLogger().handlers)


def test_verbose_keeps_ray_on_the_terminal(tmp_path):
    c = console.configure(verbose=True, log_dir=tmp_path)
    try:
        assert c.log_to_driver and console.data_progress_bars(True)
        assert not console.data_progress_bars(False)
    finally:
        console.reset()


def test_run_log_dir_is_new_each_time(tmp_path):
    a = console.run_log_dir(tmp_path, "train")
    b = console.run_log_dir(tmp_path, "train")
    assert a != b and a.is_dir() and b.is_dir() and a.name.startswith("train-")


def test_native_stderr_goes_to_the_file_and_python_stderr_to_the_terminal(tmp_path):
    """In a process of its own (fd 2 is real there): what native code writes to fd 2 lands
    in stderr.log; Python's sys.stderr still reaches the terminal; reset gives fd 2 back."""
    code = (
        "import os, sys, pathlib\n"
        "from paralib import console\n"
        f"d = pathlib.Path({str(tmp_path)!r})\n"
        "console.configure(verbose=False, log_dir=d)\n"
        "os.write(2, b'native line\\n')\n"
        "print('python line', file=sys.stderr)\n"
        "console.reset()\n"
        "os.write(2, b'after reset\\n')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120,
                          env={**os.environ})
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr.decode()
    assert "python line" in err and "after reset" in err and "native line" not in err
    assert "native line" in (tmp_path / console.NATIVE_LOG).read_text()
