"""Size of the production code: non-blank, non-comment lines per package, after one formatter.

Each tree is copied and formatted with ``ruff format`` (this repository's settings) before it is
counted, so two trees are compared under the same formatter. Python packages count lines that are
neither blank nor a ``#`` comment; C++ (``src/native``) lines that are neither blank nor ``//``.

    python benchmarks/code_size.py                 # this checkout
    python benchmarks/code_size.py /path/to/other  # another checkout (an older commit's worktree)
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGES = ("chess_envs", "agents", "train", "evaluate")
CONFIG = Path(__file__).resolve().parent.parent / "pyproject.toml"


def counted(lines: list[str], comment: str) -> int:
    return sum(1 for line in lines if line.strip() and not line.strip().startswith(comment))


def measure(root: Path) -> dict[str, int]:
    """Lines per package of the checkout at ``root`` (Python formatted in a scratch copy)."""
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for package in PACKAGES:
            copy = Path(scratch) / package
            shutil.copytree(root / package, copy, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
            subprocess.run(
                [sys.executable, "-m", "ruff", "format", "--quiet", "--config", str(CONFIG), str(copy)], check=True
            )
            sizes[package] = sum(counted(path.read_text().splitlines(), "#") for path in copy.rglob("*.py"))
    native = root / "src" / "native"
    sizes["src/native (C++)"] = sum(
        counted(path.read_text().splitlines(), "//") for path in native.glob("*") if path.suffix in (".hpp", ".cpp")
    )
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=str(CONFIG.parent), help="a checkout of this repository")
    root = Path(parser.parse_args().root)
    sizes = measure(root)
    python = sum(size for name, size in sizes.items() if name in PACKAGES)
    for name, size in sizes.items():
        print(f"{name:20s} {size:7,d}")
    print(f"{'Python packages':20s} {python:7,d}")


if __name__ == "__main__":
    main()
