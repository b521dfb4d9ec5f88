"""mypy over the package (``[tool.mypy]`` in pyproject.toml), as a test: in the two-worker
run it type-checks beside the other tests (45 s from a cold cache on a 2-core CPU) instead of
before all of them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_mypy_finds_no_type_errors_in_the_package() -> None:
    if not os.environ.get("CI"):  # CI installs the dev extras, mypy included: never skip there
        pytest.importorskip("mypy")
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "Success: no issues found" in result.stdout
