"""The documentation site: it builds with warnings as errors and every reference resolved, its tables
and command pages come from the code (a new setting appears without editing a page), every Python
example runs, and every command shown is parsed by the real command-line parser."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import html
import importlib
import importlib.util
import inspect
import re
import runpy
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from chess_envs.agents.alphazero.agent import AlphaZeroOptions
from chess_envs.agents.base import _FACTORIES as FACTORIES
from chess_envs.agents.cards import load_card, shipped_networks
from chess_envs.apps.command import command_parser
from chess_envs.apps.uci import OPTIONS
from chess_envs.by_name import COMMANDS
from chess_envs.search.settings import MCTSConfig
from chess_envs.train.alphazero.config import AlphaZeroConfig
from chess_envs.train.config import settings
from chess_envs.train.distill.config import DistillConfig
from chess_envs.train.dqn.config import DQNConfig

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
THIRD_PARTY = {
    ".", "cd", "export", "apt-get", "cutechess-cli", "git", "make", "mypy", "pytest", "ray", "ruff", "sphinx-build",
    "sudo", "tensorboard", "which",
}  # fmt: skip
"""shell built-ins and programs of other projects: their command lines are theirs to parse"""


def build(source: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html", str(source), str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    result = build(DOCS, out)
    assert result.returncode == 0, result.stderr[-6000:]
    return out


def text_of(site: Path, page: str) -> str:
    """A built page's text: tags dropped, entities read, runs of white space one space."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", (site / page).read_text(encoding="utf-8"))).split())


def test_the_site_builds_with_every_reference_resolved(site: Path) -> None:
    for page in ("index", "getting_started", "environments", "agents", "mcts", "training", "apps", "cli", "api"):
        assert (site / f"{page}.html").is_file(), page


def test_the_tables_list_every_declared_setting(site: Path) -> None:
    search, agents = text_of(site, "mcts.html"), text_of(site, "agents.html")
    for item in dataclasses.fields(MCTSConfig):
        assert item.name in search, item.name
        if item.metadata["spec"]:
            assert item.metadata["spec"] in agents, item.name
    for item in dataclasses.fields(AlphaZeroOptions):
        assert item.name in agents, item.name
    for kind in [kind for kind, (factory, _) in FACTORIES.items() if factory.__module__.startswith("chess_envs.")]:
        assert f"| `{kind}" in (DOCS / "agents.md").read_text(), kind  # the package's kinds (tests register toys)
    training = text_of(site, "training.html")
    for config in (AlphaZeroConfig, DistillConfig, DQNConfig):
        for name in settings(config):
            assert "--" + name.replace("_", "-") in training, name
    apps = text_of(site, "apps.html")
    for option in OPTIONS:
        assert option.name in apps, option.name
    networks = text_of(site, "networks.html")
    for game in shipped_networks():
        card = load_card(game)
        assert card is not None
        assert f"{card['architecture']['parameters']:,}" in networks, game


def test_the_cli_page_shows_every_flag_of_every_command(site: Path) -> None:
    cli = text_of(site, "cli.html")
    for name in COMMANDS:
        assert f"chess-envs {name}" in cli, name
        for action in command_parser(name)._actions:
            for flag in action.option_strings:
                assert flag in cli, (name, flag)


def test_a_new_setting_appears_without_editing_a_page(tmp_path: Path) -> None:
    """A toy site whose page names a dataclass of settings and a command's parser: a field added to
    the class and a flag added to the parser show up in the next build, the page untouched."""
    (tmp_path / "conf.py").write_text(
        f"import sys\nsys.path[:0] = [{str(DOCS / '_ext')!r}, {str(tmp_path)!r}]\n"
        "extensions = ['myst_parser', 'sphinxarg.ext', 'generated']\n"
    )
    (tmp_path / "index.md").write_text(
        "# Toy\n\n```{settings-table} toy_settings:Toy\n```\n\n"
        "```{argparse}\n:module: toy_settings\n:func: parser\n:prog: toy\n```\n"
    )
    fields, flags = ['size: int = arg(3, "how big", low=1)'], ['"--size", help="how big a board"']
    for round_ in range(2):
        (tmp_path / "toy_settings.py").write_text(
            "import argparse\nfrom dataclasses import dataclass\nfrom chess_envs.fields import arg\n\n"
            "@dataclass\nclass Toy:\n" + "".join(f"    {line}\n" for line in fields) + "\n"
            "def parser():\n    line = argparse.ArgumentParser()\n"
            + "".join(f"    line.add_argument({flag})\n" for flag in flags)
            + "    return line\n"
        )
        out = tmp_path / f"out{round_}"
        result = build(tmp_path, out)
        assert result.returncode == 0, result.stderr[-3000:]
        text = text_of(out, "index.html")
        assert "how big" in text and "--size" in text
        assert ("how fast" in text) == ("--speed" in text) == (round_ == 1)
        fields.append('speed: float = arg(1.0, "how fast", low=0)')
        flags.append('"--speed", help="how fast a move"')


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


@pytest.mark.parametrize("page", [p for p in PAGES if "integrations" not in p.parts], ids=lambda p: p.name)
def test_every_python_example_runs(page: Path) -> None:
    """Blocks written as sessions (``>>>``) run as doctests (pyproject's doctest globs); the others here."""
    for block in python_blocks(page.read_text(encoding="utf-8")):
        if block.lstrip().startswith(">>>"):
            continue
        exec(compile(block, str(page), "exec"), {"__name__": "docs_example"})  # noqa: S102 (our own pages)


def shell_lines(text: str) -> list[str]:
    """The command lines of a page's ``bash`` blocks: continuations and open quotes joined, comments
    dropped, each ``&&`` part its own line."""
    lines: list[str] = []
    for block in re.findall(r"^```(?:bash|sh|console)\n(.*?)^```", text, flags=re.S | re.M):
        pending = ""
        for line in block.replace("\\\n", " ").splitlines():
            pending = f"{pending}\n{line}" if pending else line
            try:
                shlex.split(pending, comments=True)
            except ValueError:  # a quote left open: the command goes on on the next line
                continue
            command = " ".join(shlex.split(pending, comments=True)) and pending
            lines += [part.strip() for part in command.split("&&") if part.strip() and shlex.split(part, comments=True)]
            pending = ""
        assert not pending, f"an unfinished command: {pending}"
    return lines


class Parsed(Exception):
    """Raised by the patched ``parse_args`` once a script's own parser has read its arguments."""


def parse_script(path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the script at ``path`` as ``__main__`` until its parser has read ``args`` (no further)."""
    original = argparse.ArgumentParser.parse_args

    def parse_then_stop(self: argparse.ArgumentParser, argv: list[str] | None = None, namespace: object = None) -> None:
        original(self, argv, namespace)
        raise Parsed

    handlers = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    with monkeypatch.context() as patch:
        patch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
        patch.setattr(sys, "argv", [str(path), *args])
        try:
            with pytest.raises(Parsed):
                runpy.run_path(str(path), run_name="__main__")
        finally:
            for number, handler in handlers.items():
                signal.signal(number, handler)


def check_command(line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Parse ``line`` with the real parser of the command it runs (nothing is run past the parse)."""
    words = shlex.split(line, comments=True)
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
        words = words[1:]  # VARIABLE=value before the command (or alone: a shell variable)
    if not words:
        return
    program, args = words[0], words[1:]
    if program == "chess-envs" and args[0] not in ("--help", "--version"):
        command_parser(args[0]).parse_args([*COMMANDS[args[0]][3], *args[1:]])
    elif program == "chess-envs-uci":
        command_parser("uci").parse_args(args)
    elif program in ("python", "python3") and (args[:2] == ["-m", "venv"] or args[0] == "-c"):
        return
    elif program in ("python", "python3") and args[0] == "-m" and args[1].startswith("chess_envs"):
        module = importlib.import_module(args[1])
        if not hasattr(module, "parser"):  # a package: its main's module
            module = importlib.import_module(module.main.__module__)
        module.parser().parse_args(args[2:])
    elif program in ("python", "python3"):
        script = args[1].replace(".", "/") + ".py" if args[0] == "-m" else args[0]
        assert (ROOT / script).is_file(), f"{line}: no {script}"
        parse_script(ROOT / script, args[2:] if args[0] == "-m" else args[1:], monkeypatch)
    elif program == "bash":
        assert (ROOT / args[0]).is_file(), f"{line}: no {args[0]}"
        assert subprocess.run(["bash", "-n", str(ROOT / args[0])]).returncode == 0, line
    elif program == "pip":
        pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
        section = pyproject.split("[project.optional-dependencies]")[1].split("\n[")[0]
        extras = set(re.findall(r"^([\w-]+) = \[", section, flags=re.M))
        for word in args:
            for named in re.findall(r"\[([\w,-]+)\]", word):
                assert set(named.split(",")) <= extras, f"{line}: no extra {named}"
    elif "/" in program:  # a script of the checkout, run as it is
        assert (ROOT / program).is_file(), f"{line}: no {program}"
    else:
        assert program in THIRD_PARTY, f"{line}: what runs {program}?"


@pytest.mark.parametrize("page", [*PAGES, ROOT / "README.md"], ids=lambda p: p.name)
def test_every_command_shown_parses(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for line in shell_lines(page.read_text(encoding="utf-8")):
        try:
            check_command(line, monkeypatch)
        except SystemExit as error:  # argparse's verdict: only --help may end a parse
            assert error.code == 0 and ("--help" in line or " -h" in line), f"{page.name}: {line}"


def public_names() -> list[tuple[str, str]]:
    """(module, name) for every name in the ``__all__`` of a module of the package."""
    found = []
    for path in sorted((ROOT / "chess_envs").rglob("*.py")):
        if "__all__" not in path.read_text(encoding="utf-8"):
            continue
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found += [(module, name) for name in importlib.import_module(module).__all__]
    return found


def attribute_documented(module: str, name: str) -> bool:
    """Whether the assignment of ``name`` in ``module``'s source (or where it was imported from) is
    followed by a string (an attribute docstring, as autodoc reads it)."""
    tree = ast.parse(Path(importlib.import_module(module).__file__ or "").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any((alias.asname or alias.name) == name for alias in node.names):
            source = (
                importlib.util.resolve_name("." * node.level + (node.module or ""), module)
                if node.level
                else node.module
            )
            original = next(alias.name for alias in node.names if (alias.asname or alias.name) == name)
            return attribute_documented(source or "", original)
    for before, after in zip(tree.body, tree.body[1:]):
        targets = (
            before.targets
            if isinstance(before, ast.Assign)
            else [before.target]
            if isinstance(before, ast.AnnAssign)
            else []
        )
        if any(isinstance(target, ast.Name) and target.id == name for target in targets):
            return (
                isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            )
    return False


@pytest.mark.parametrize(("module", "name"), public_names(), ids=lambda x: x)
def test_every_public_name_has_a_docstring(module: str, name: str) -> None:
    value = getattr(importlib.import_module(module), name)
    if inspect.ismodule(value) or inspect.isclass(value) or inspect.isroutine(value):
        doc = value.__doc__ or ""
        generated = inspect.isclass(value) and dataclasses.is_dataclass(value) and doc.startswith(f"{value.__name__}(")
        assert doc.strip() and not generated, f"{module}.{name} has no docstring"
    else:
        assert attribute_documented(module, name), f"{module}.{name}: no docstring after its assignment"


@pytest.mark.parametrize("game", shipped_networks())
def test_every_command_of_a_model_card_parses(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    card = load_card(game)
    assert card is not None
    commands = [*card["training"]["commands"], *(rating["command"] for rating in card["ratings"])]
    for line in shell_lines("".join(f"```bash\n{command}\n```\n" for command in commands)):
        check_command(line, monkeypatch)


@pytest.mark.parametrize(
    "page", [p for p in [*PAGES, ROOT / "README.md"] if not {"experiments", "rules"} & set(p.parts)], ids=str
)
def test_reference_pages_name_no_commit_and_no_date_of_a_run(page: Path) -> None:
    """The reference states current facts; the dated experiment log holds the history (link targets,
    which name a dated entry, do not count; the rules specifications cite an outside engine's version)."""
    text = re.sub(r"\]\([^)]*\)", "]()", page.read_text(encoding="utf-8"))
    assert not re.findall(r"\b20\d\d-\d\d-\d\d\b", text), page
    assert not [word for word in re.findall(r"\b[0-9a-f]{7,40}\b", text) if re.search(r"[a-f]", word)], page
