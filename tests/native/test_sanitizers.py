"""The fuzz, perft and differential tests again, against a build with -fsanitize=address,undefined."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_sanitizer_build_runs_the_native_tests_cleanly(tmp_path):
    if shutil.which("g++") is None or shutil.which("cmake") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have g++ and cmake for the sanitizer build")
        pytest.skip("needs g++ and cmake (apt-get install build-essential cmake)")
    result = subprocess.run(
        ["bash", str(ROOT / "tests/native/sanitizers.sh"), str(tmp_path / "build")],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert " passed" in result.stdout and "failed" not in result.stdout
