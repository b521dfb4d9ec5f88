"""docs/migration.md: every 0.4 module its table names imports, no 0.3 top-level package is left, and
the README and the reference docs use the 0.4 paths and commands only."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "migration.md").read_text()
OLD = re.compile(
    r"\b(?:from|import) (?:agents|train|evaluate)\b|python -m (?:agents|train|evaluate)\b|\bchess_envs\.command\b"
)


def table_rows() -> list[tuple[str, list[str]]]:
    """(0.3 module, the 0.4 modules named for it) of the import-path table."""
    rows = []
    for old, new in re.findall(r"^\| `([\w.]+)` \| (.+) \|$", PAGE.split("## Import paths")[1], flags=re.M):
        rows.append((old, re.findall(r"`(chess_envs[\w.]*)`", new)))
    return rows


def test_the_table_covers_every_0_3_package_and_each_new_module_imports() -> None:
    rows = table_rows()
    assert {old.split(".")[0] for old, _ in rows} >= {"agents", "train", "evaluate"} and len(rows) > 50
    for old, new in rows:
        for name in new:
            importlib.import_module(name)
        assert new or old == "evaluate.make_book", old


@pytest.mark.parametrize("old", ["agents", "train", "evaluate"])
def test_no_0_3_package_is_left_in_the_checkout(old: str) -> None:
    assert not (ROOT / old).exists()


def test_readme_and_reference_docs_use_the_new_paths() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    stale = [
        f"{page.relative_to(ROOT)}: {match.group(0)}"
        for page in pages
        if page.name != "migration.md"
        for match in OLD.finditer(page.read_text())
    ]
    assert not stale, stale
