"""The Ctrl-C cases of ``ctrl_c_cases.py``, run by pytest in a process of their own.

They raise real SIGINTs in the process that runs them. In CI a test worker died at the first such
signal after other test files had run in it, whatever handler was installed (cause not found; the
worker deaths went on at the next in-worker signal, a SIGTERM in test_distill.py). In a fresh
process these cases pass, and a failure is an ordinary one, with pytest's report of it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_the_ctrl_c_cases_pass_in_a_process_of_their_own():
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", "ctrl_c_cases.py"]
    done = subprocess.run(command, cwd=HERE, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-6000:]}\n{done.stderr[-2000:]}"
    assert " passed" in done.stdout and "failed" not in done.stdout and "skipped" not in done.stdout
