"""The repository stands alone: no file cites a design file or reads a folder outside the checkout
(``.ci/run`` also runs the whole suite from a copy of the checkout with nothing beside it)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(
    r"DESIGN\.md|RULES\.md|SEEDS\.md|STYLE\.md|\.\./shared|shared/reference|parents\[[3-9]\] / \"shared\""
)


def repository_files() -> list[str]:
    """The files of the repository: git's list in a checkout, else (a copy) every file outside
    the folders that builds and runs make."""
    if (ROOT / ".git").exists():
        listed = ["git", "ls-files", "--cached", "--others", "--exclude-standard"]
        return subprocess.run(listed, cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    made = {".venv", "build", "runs", "dist", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
    return [
        str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and not made & set(p.relative_to(ROOT).parts)
    ]


def test_no_file_cites_or_reads_a_path_outside_the_repository() -> None:
    files = repository_files()
    assert "chess_envs/registry.py" in files and len(files) > 100
    cited = []
    for name in files:
        path = ROOT / name
        if name in ("CHANGELOG.md", "tests/test_self_contained.py") or path.suffix not in {
            ".py",
            ".md",
            ".sh",
            ".hpp",
            ".cpp",
            ".toml",
        }:
            continue
        cited += [f"{name}: {m.group()}" for m in OUTSIDE.finditer(path.read_text(encoding="utf-8", errors="replace"))]
    assert not cited, cited
