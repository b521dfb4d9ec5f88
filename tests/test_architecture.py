"""The one-way arrows of docs/architecture.md: import-linter's contracts (pyproject.toml) hold, no
import of the package hides in a function to dodge them, and every module imported by name from a
string (chess_envs.by_name, the game registry) may be imported by the module that names it."""

from __future__ import annotations

import ast
import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import tomllib

from chess_envs import by_name
from chess_envs.registry import registered_games

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]

OPTIONAL = {
    "chess_envs.train.alphazero.ray_backend": "ray",
    "chess_envs.apps.web.server": "starlette",
}
"""modules imported inside a function because they need an optional extra (the import is their
first use of it): the one reason an import of the package may sit in a function"""


def layer_of(module: str) -> int:
    """The index of ``module``'s layer in the layers contract (0: the top)."""
    (contract,) = [c for c in CONFIG["contracts"] if c["type"] == "layers"]
    for index, layer in enumerate(contract["layers"]):
        for name in layer.replace(":", "|").split("|"):
            name = name.strip()
            if module == name or module.startswith(name + "."):
                return index
    raise AssertionError(f"{module} is in no layer of the contract")


def test_import_linter_contracts_hold_with_no_ignored_imports() -> None:
    assert all("ignore_imports" not in contract for contract in CONFIG["contracts"])
    assert {contract["type"] for contract in CONFIG["contracts"]} == {"layers", "acyclic_siblings"}
    command = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    result = subprocess.run([command, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_import_of_the_package_hides_in_a_function() -> None:
    hidden = []
    for path in sorted((ROOT / "chess_envs").rglob("*.py")):
        for function in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                names = (
                    [node.module or ""]
                    if isinstance(node, ast.ImportFrom)
                    else [alias.name for alias in node.names]
                    if isinstance(node, ast.Import)
                    else []
                )
                for name in names:
                    if name.startswith("chess_envs") and name not in OPTIONAL:
                        hidden.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")
    assert not hidden, hidden
    for module, extra in OPTIONAL.items():  # each one's reason holds: it imports its extra at the top
        source = ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text())
        tops = [n for n in source.body if isinstance(n, ast.Import | ast.ImportFrom)]
        imported = {a.name for n in tops if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module or "" for n in tops if isinstance(n, ast.ImportFrom)}
        assert any(name.split(".")[0] == extra for name in imported), (module, extra)


def string_imports() -> list[tuple[str, str]]:
    """(importer, module imported by name) for every string import the package makes."""
    pairs = []
    importers = {"COMMANDS": "chess_envs.apps.command", "AGENT_KINDS": "chess_envs.agents.base"}
    for table, importer in importers.items():
        for value in getattr(by_name, table).values():
            target = value[0] if isinstance(value, tuple) else value
            pairs.append((importer, target.split(":")[0]))
    for record in registered_games():  # the package's own (a test may have registered its toy game)
        if record.state.startswith("chess_envs."):
            pairs.append(("chess_envs.registry", record.state.split(":")[0]))
    return pairs


def test_modules_named_by_strings_resolve_and_respect_the_layers() -> None:
    pairs = string_imports()
    assert len(pairs) == len(by_name.COMMANDS) + len(by_name.AGENT_KINDS) + 3  # three games
    for importer, target in pairs:
        importlib.import_module(target)  # resolves
        if target.startswith(importer + ".") or importer.startswith(target.rsplit(".", 1)[0] + "."):
            continue  # its own part of the package
        assert layer_of(target) >= layer_of(importer), f"{importer} names {target}, a layer above it"
    for record in registered_games():  # named for users (PettingZoo's module per game), imported by none
        if record.pettingzoo:
            importlib.import_module(record.pettingzoo)
    for name, (target, _, _, _) in by_name.COMMANDS.items():
        module, function = target.split(":")
        assert callable(getattr(importlib.import_module(module), function)), name
