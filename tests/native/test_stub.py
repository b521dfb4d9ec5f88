"""chess_envs/_core.pyi, the types mypy sees at the native boundary, is what nanobind's stub
generator makes of the built module: regenerate it when a binding changes
(``python -m nanobind.stubgen -m chess_envs._core -o chess_envs/_core.pyi``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_stub_matches_the_built_module(tmp_path) -> None:
    fresh = tmp_path / "_core.pyi"
    command = [sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "chess_envs._core", "-o", str(fresh)]
    subprocess.run(command, check=True, capture_output=True, text=True)
    committed = (ROOT / "chess_envs" / "_core.pyi").read_text(encoding="utf-8")
    assert fresh.read_text(encoding="utf-8") == committed, "chess_envs/_core.pyi is stale: regenerate it (see above)"
