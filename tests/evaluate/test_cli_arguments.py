"""Bad command-line arguments of ``chess-envs`` are refused at once with exit code 2."""

from __future__ import annotations

import numpy as np
import pytest

import chess_envs.arena.game
from chess_envs.apps.arena_cli import main
from chess_envs.arena.game import random_openings
from chess_envs.los_alamos import LosAlamosState


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--openings-plies", "1000", "between 0 and 200"),
        ("--openings-plies", "-3", "between 0 and 200"),
        ("--bootstrap", "-1", "between 0 and 100000"),
        ("--bootstrap", "many", "must be an integer"),
    ],
)
def test_bad_numbers_exit_2(flag: str, value: str, message: str, tmp_path, capsys) -> None:
    argv = ["tournament", "--game", "los_alamos", "--agents", "random", "greedy", "--out", str(tmp_path), flag, value]
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "games.jsonl").exists()


def test_random_openings_give_up_after_bounded_attempts(monkeypatch) -> None:
    rng = np.random.default_rng(0)
    finished = None
    while finished is None:  # a checkmate: every attempt starts there, so none lasts its plies
        state = LosAlamosState()
        while not state.is_terminal():
            state.apply(int(rng.choice(state.legal_actions())))
        if state.outcome().termination.value == "checkmate":
            finished = state.to_text()
    monkeypatch.setattr(chess_envs.arena.game, "new_state", lambda game, text=None: LosAlamosState(finished))
    with pytest.raises(ValueError, match="use fewer --openings-plies"):
        random_openings("los_alamos", 3, 4, seed=0)
