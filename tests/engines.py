"""The real engines some tests need: present on PATH or in /usr/games (Debian's place)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest


def require_engine(name: str) -> str:
    """The engine's path; a laptop without it skips the test, CI (which installs it) fails it."""
    path = shutil.which(name) or shutil.which(name, path="/usr/games")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install {name} (.ci/run does)")
        pytest.skip(f"{name} is not installed (apt-get install {name})")
    return path


class FairyStockfish:
    """A running Fairy-Stockfish set to one variant, spoken to over UCI: ``go perft 1`` lists a
    position's legal moves in 0.1 ms, where pyffish sets its variant up again on every call (2.8 ms)."""

    def __init__(self, binary: str, variant: str) -> None:
        self.process = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.send(f"uci\nsetoption name UCI_Variant value {variant}\nisready")
        self.read_until("readyok")

    def send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def read_until(self, prefix: str) -> list[str]:
        """The lines before the first that starts with ``prefix``, that line last."""
        assert self.process.stdout is not None
        lines = []
        while not (line := self.process.stdout.readline()).startswith(prefix):
            assert line, f"fairy-stockfish exited before {prefix!r}"
            lines.append(line)
        return [*lines, line]

    def legal_moves(self, fen: str) -> list[str]:
        """The legal moves of ``fen``, sorted UCI strings (perft's ``move: 1`` lines)."""
        self.send(f"position fen {fen}\ngo perft 1")
        return sorted(line.split(":")[0] for line in self.read_until("Nodes searched")[:-1] if ": " in line)

    def close(self) -> None:
        self.send("quit")
        self.process.wait(timeout=10)
