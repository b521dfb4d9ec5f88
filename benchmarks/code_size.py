"""Size of the production code: lines that are neither blank, comments nor docstrings, after one formatter.

Each tree is copied and formatted with ``ruff format`` (this repository's settings) before it is
counted, so two trees are compared under the same formatter. Python counts lines that are neither
blank, a ``#`` comment, nor part of a docstring (any string standing alone as a statement: a
module's, class's or function's docstring, or an attribute's); C++ (``src/native``) lines that are
neither blank nor ``//``. The same set of files is counted in either layout: the package(s), and the
tools that write shipped or test data (``tools/``; before 0.4 ``benchmarks/make_mates.py`` and
``benchmarks/uci_elo_calibration.py``, and ``evaluate/make_book.py`` inside its package).

    python benchmarks/code_size.py                 # this checkout
    python benchmarks/code_size.py /path/to/other  # another checkout (an older commit's worktree)
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGES = ("chess_envs", "agents", "train", "evaluate", "tools")
"""the production trees of either layout (0.4: chess_envs and tools; 0.3: the first four)"""
OLD_TOOLS = ("benchmarks/make_mates.py", "benchmarks/uci_elo_calibration.py")
CONFIG = Path(__file__).resolve().parent.parent / "pyproject.toml"


def counted(lines: list[str], comment: str, skip: set[int] = frozenset()) -> int:  # type: ignore[assignment]
    return sum(
        1 for number, line in enumerate(lines, 1)
        if number not in skip and line.strip() and not line.strip().startswith(comment)
    )  # fmt: skip


def docstring_lines(source: str) -> set[int]:
    """The line numbers of every string that stands alone as a statement (docstrings)."""
    return {
        number
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for number in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }


def python_lines(path: Path) -> int:
    source = path.read_text()
    return counted(source.splitlines(), "#", docstring_lines(source))


def measure(root: Path) -> dict[str, int]:
    """Lines per package of the checkout at ``root`` (Python formatted in a scratch copy)."""
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for package in [name for name in PACKAGES if (root / name).is_dir()]:
            copy = Path(scratch) / package
            shutil.copytree(root / package, copy, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
            subprocess.run(
                [sys.executable, "-m", "ruff", "format", "--quiet", "--config", str(CONFIG), str(copy)], check=True
            )
            sizes[package] = sum(python_lines(path) for path in copy.rglob("*.py"))
        for tool in [name for name in OLD_TOOLS if (root / name).is_file()]:
            copy = Path(scratch) / Path(tool).name
            shutil.copy(root / tool, copy)
            subprocess.run(
                [sys.executable, "-m", "ruff", "format", "--quiet", "--config", str(CONFIG), str(copy)], check=True
            )
            sizes[tool] = python_lines(copy)
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
    python = sum(size for name, size in sizes.items() if not name.startswith("src/"))
    for name, size in sizes.items():
        print(f"{name:20s} {size:7,d}")
    print(f"{'Python in all':20s} {python:7,d}")


if __name__ == "__main__":
    main()
