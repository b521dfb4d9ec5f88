"""The native core stays formatted: clang-format (the repository's .clang-format) changes nothing in src/native."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def clang_format() -> str | None:
    """The clang-format of this environment (the `dev` extra's wheel), else the one on PATH."""
    beside = Path(sys.executable).parent / "clang-format"
    if beside.is_file():
        return str(beside)
    return shutil.which("clang-format")


def test_src_native_is_formatted():
    binary = clang_format()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("CI installs the dev extras, clang-format included")
        pytest.skip("needs clang-format (pip install -e '.[dev]')")
    sources = sorted(path for path in (ROOT / "src/native").iterdir() if path.suffix in (".hpp", ".cpp"))
    assert sources, "no C++ sources under src/native"
    unformatted, complaints = [], []
    for path in sources:
        result = subprocess.run(
            [binary, "--dry-run", "--Werror", f"--style=file:{ROOT / '.clang-format'}", str(path)],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            unformatted.append(path.relative_to(ROOT).as_posix())
            complaints.append(result.stderr.strip().partition("\n")[0])
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    assert not unformatted, (
        f"{', '.join(unformatted)} not formatted as {version} formats them (first complaint: {complaints[0]!r}); "
        "run `clang-format -i src/native/*.hpp src/native/*.cpp`"
    )
