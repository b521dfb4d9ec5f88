"""The real engines some tests need: present on PATH or in /usr/games (Debian's place)."""

from __future__ import annotations

import os
import shutil

import pytest


def require_engine(name: str) -> str:
    """The engine's path; a laptop without it skips the test, CI (which installs it) fails it."""
    path = shutil.which(name) or shutil.which(name, path="/usr/games")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install {name} (.ci/run does)")
        pytest.skip(f"{name} is not installed (apt-get install {name})")
    return path
