"""Installing the integrations extra leaves torch and Gymnasium where the project tests them:
``ray[rllib]`` pins an older Gymnasium (Ray 2.60: ``gymnasium==1.2.2``), so the extra lists RLlib's
dependencies instead; TorchRL and Tianshou take any torch >= 2.1 and Gymnasium >= 0.28."""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
TORCH = "2.13.0"  # README's test command installs torch==2.13.0 first
GYMNASIUM = "1.4.0"  # the oldest Gymnasium the vector env's autoreset comparisons and these pages were run on


def extras() -> dict[str, list[str]]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def test_the_extra_has_each_library_and_dev_installs_it() -> None:
    names = {Requirement(spec).name for spec in extras()["integrations"]}
    assert {"torchrl", "tianshou", "sb3-contrib", "ray", "dm-tree"} <= names
    assert not any(
        Requirement(spec).name == "ray" and "rllib" in Requirement(spec).extras for spec in extras()["integrations"]
    )
    assert "chess-envs[integrations]" in extras()["dev"]


def test_after_the_integrations_torch_and_gymnasium_are_the_tested_versions() -> None:
    installed = {}
    for name in ("torchrl", "tianshou", "sb3-contrib", "ray", "dm-tree"):
        try:
            installed[name] = version(name)
        except PackageNotFoundError:
            if not os.environ.get("CI"):
                pytest.skip(f"{name} is not installed (pip install -e '.[integrations]')")
            raise
    assert Version(version("torch")).base_version == TORCH, installed
    assert Version(version("gymnasium")) >= Version(GYMNASIUM), installed
