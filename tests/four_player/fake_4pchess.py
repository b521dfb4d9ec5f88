"""A stand-in for obryanlouis/4pchess's ``cli``, which CI cannot build: the same UCI dialect and quirks.

It answers ``uci``, ``isready``, ``setoption name Hash``, ``position fen <FEN4>``, ``go depth N`` and
``go movetime MS`` (with ``info depth .. time .. nodes .. pv .. score <cp>``, Red-Yellow's view, then
``bestmove <move>``), ``stop`` and ``quit``, playing the first legal move
under the project's Teams rules. Its quirks are 4pchess's: an unreadable FEN is an ``info`` line and
the old board stays; a ``movetime`` under ``SLOW_MS`` prints nothing (its first iteration missed it);
input closed without ``quit`` leaves it running. ``FAKE_4PCHESS_LOG`` names a file it appends every
command to (its process id first); ``FAKE_4PCHESS_MODE`` makes it misbehave: ``illegal`` (answers a
move that is not legal), ``badfen`` (reads no FEN), ``die`` (exits at the first ``go``).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stand-in runs as a program: no test framework loaded at each start
    import pytest

from chess_envs.four_player.state import FourPlayerState

SLOW_MS = 50
"""a movetime below this finishes no iteration: nothing is printed"""
SCORE = 123
"""the mover's team's score it reports, in centipawns"""


def install(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An executable ``folder / 'cli'`` that runs the stand-in, its commands logged to ``folder / 'log'``."""
    program = folder / "cli"
    program.write_text(f'#!/bin/sh\nexec {sys.executable} {Path(__file__)} "$@"\n')
    program.chmod(0o755)
    monkeypatch.setenv("FAKE_4PCHESS_LOG", str(folder / "log"))
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parents[2]))
    return program


def log(line: str) -> None:
    path = os.environ.get("FAKE_4PCHESS_LOG")
    if path:
        with open(path, "a") as handle:
            handle.write(f"{os.getpid()} {line}\n")


def say(line: str) -> None:
    print(line, flush=True)


def search(state: FourPlayerState, mode: str) -> None:
    """``info`` and ``bestmove`` for ``state``: its first legal move (or, ``illegal``, one that is not)."""
    moves = [state.action_to_move(action) for action in state.legal_actions()]
    move = "a1-a2" if mode == "illegal" else moves[0]
    score = SCORE if state.current_player % 2 == 0 else -SCORE  # Red-Yellow's view
    say(f"info depth 1 time 0 nodes {len(moves)} pv {move} score {score} nps 1000")
    say(f"bestmove {move}")


def main() -> None:
    mode = os.environ.get("FAKE_4PCHESS_MODE", "")
    state = FourPlayerState(mode="teams")
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        log(raw.strip())
        command = words[0]
        if command == "uci":
            say("id name 4pChess stand-in")
            say("id author chess_envs tests")
            say("option name Hash type spin default 100")
            say("uciok")
        elif command == "isready":
            say("readyok")
        elif command == "setoption" and len(words) == 5 and words[2].lower() == "hash" and words[4].isdigit():
            pass
        elif command == "position" and words[1:2] == ["fen"] and len(words) >= 3:
            try:
                if mode == "badfen":
                    raise ValueError("unreadable")
                state = FourPlayerState(words[2], mode="teams")
            except ValueError:
                say(f"info string Invalid FEN: {words[2]}")
        elif command == "go":
            if mode == "die":
                return
            if words[1:2] == ["movetime"] and int(words[2]) < SLOW_MS:
                continue  # the first iteration missed the deadline: 4pchess prints nothing
            search(state, mode)
        elif command in ("stop", "ucinewgame"):
            pass
        elif command == "quit":
            return
        else:
            say(f"info string Invalid command: {raw.strip()}")
    while True:  # 4pchess keeps running when its input closes without quit
        time.sleep(1)


if __name__ == "__main__":
    main()
