"""Mutated FEN strings fed to the native parsers: only clean ValueErrors, never a crash or a hang.

200,000 mutations per game of positions from random games (characters replaced, inserted,
deleted, swapped, fields and numbers altered). Every position the native core accepts is then
exercised (FEN out, legal moves, game end, planes, perft 2), and a sample is compared with the
oracle: python-chess (through ChessState) for chess, the Python reference engine for Los Alamos.
Under the sanitizer build (tests/native/sanitizers.sh) this also proves memory safety.
"""

from __future__ import annotations

import os
import random

import chess
import numpy as np

from chess_envs.los_alamos import LosAlamosState
from chess_envs.los_alamos.encoding import move_uci
from chess_envs.los_alamos.state import _native_table as los_alamos_table
from chess_envs.native import core
from chess_envs.standard import ChessState
from chess_envs.standard.encoding import get_encoding
from chess_envs.standard.state import _native_table as chess_table
from tests.los_alamos.board import Board as ReferenceBoard

MUTATIONS = int(os.environ.get("CHESS_ENVS_FUZZ_MUTATIONS", "200000"))
ORACLE_EVERY = 10
NUMBERS = ["0", "1", "-1", "99", "100", "150", "999999", "1000000", "1000001", "99999999999999999999", ""]


def seed_fens(state_class: type, count: int, seed: int) -> list[str]:
    """Positions of seeded random games (with a few hand-picked edge cases added by the callers)."""
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        state = state_class()
        while not state.is_terminal() and len(fens) < count:
            fens.append(state.to_text())
            state.apply(int(rng.choice(state.legal_actions())))
    return fens


def mutate(rng: random.Random, text: str, alphabet: str) -> str:
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(8)
        i = rng.randrange(len(text) + 1)
        if kind == 0 and text:
            text = text[: i - 1] + rng.choice(alphabet) + text[i:]
        elif kind == 1:
            text = text[:i] + rng.choice(alphabet) + text[i:]
        elif kind == 2:
            text = text[: i - 1] + text[i:]
        elif kind == 3 and len(text) > 2:
            j = rng.randrange(len(text))
            chars = list(text)
            chars[i - 1], chars[j] = chars[j], chars[i - 1]
            text = "".join(chars)
        elif kind == 4:
            fields = text.split(" ")
            fields[rng.randrange(len(fields))] = rng.choice(NUMBERS + ["-", "w", "b", "KQkq", "e3", "a6"])
            text = " ".join(fields)
        elif kind == 5:
            text = text[:i] + text[i : i + rng.randint(1, 30)] * rng.randint(1, 40) + text[i:]
        elif kind == 6:
            text = text[:i]
        else:
            text = (
                text[:i] + chr(rng.randrange(0, 0x110000) if rng.random() < 0.1 else rng.randrange(32, 127)) + text[i:]
            )
    return text


def exercise(game, squares: int) -> None:
    game.fen()
    game.legal_actions()
    game.termination()
    mask = np.empty(game_actions(game), dtype=np.uint8)
    game.legal_mask(mask)
    obs = np.empty((game.num_planes, squares), dtype=np.float32)
    game.observation(game.side, obs)
    game.perft(2)


def game_actions(game) -> int:
    return 4672 if isinstance(game, core.ChessGame) else 1944


def test_chess_fen_fuzz():
    rng = random.Random(1)
    fens = seed_fens(ChessState, 2000, seed=2) + [
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
    ]
    table = chess_table(get_encoding("alphazero"))
    accepted = 0
    for n in range(MUTATIONS):
        text = mutate(rng, rng.choice(fens), "pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh0123456789")
        try:
            game = core.ChessGame(text, 8, True, table)
        except ValueError:
            game = None
        if game is not None:
            accepted += 1
            exercise(game, 64)
        if n % ORACLE_EVERY == 0:
            try:
                state = ChessState(text)
            except ValueError:
                continue
            board = chess.Board(text)  # python-chess also reads partial FENs, which ChessState completes
            assert state.to_text() == board.fen(), text
            assert {m.uci() for m in state.legal_moves_by_action().values()} == {m.uci() for m in board.legal_moves}, (
                text
            )
    assert accepted > MUTATIONS // 50


def test_los_alamos_fen_fuzz():
    rng = random.Random(3)
    fens = seed_fens(LosAlamosState, 2000, seed=4)
    table = los_alamos_table()
    accepted = 0
    for n in range(MUTATIONS):
        text = mutate(rng, rng.choice(fens), "pnrqkPNRQKbB123456/ wb-0123456789")
        try:
            game = core.LosAlamosGame(text, 4, False, table)
        except ValueError:
            game = None
        if game is not None:
            accepted += 1
            exercise(game, 36)
        if n % ORACLE_EVERY == 0:
            try:
                reference = ReferenceBoard(text)
            except ValueError:
                assert game is None, text
                continue
            assert game is not None, text
            assert game.fen() == reference.fen(), text
            assert sorted(LosAlamosState(text).legal_moves_by_action().values()) == sorted(
                map(move_uci, reference.legal_moves())
            ), text
    assert accepted > MUTATIONS // 50


def test_four_player_fen4_fuzz():
    """The native FEN4 reader against the Python one: the same texts accepted (the same position
    and moves) or refused with a ValueError; whatever is accepted is safe natively (perft 2,
    planes, mask)."""
    from chess_envs.four_player import FourPlayerState, perft
    from chess_envs.four_player.state import game_text
    from tests.four_player.board import Board as ReferenceFourBoard

    rng = random.Random(5)
    fens = seed_fens(FourPlayerState, 500, seed=6)
    accepted = 0
    alphabet = "rbygdPNBRQKx0123456789,/-{}':enPassant"
    for _ in range(MUTATIONS):
        text = mutate(rng, rng.choice(fens), alphabet)
        mode = "teams" if rng.random() < 0.3 else "ffa"
        try:
            state = FourPlayerState(text, mode=mode)
        except ValueError:
            state = None
        if _ % ORACLE_EVERY == 0 and text.isascii():
            try:
                reference = ReferenceFourBoard(text, mode)
                reference.settle()
            except ValueError:
                assert state is None, text
            else:
                assert state is not None, text
                assert game_text(state._game) == reference.fen4(), text
                assert sorted(state.legal_moves_by_action().values()) == sorted(reference.legal_moves()), text
        if state is None:
            continue
        accepted += 1
        state.legal_actions()
        state.observation(rng.randrange(4))
        state.legal_action_mask()
        state.outcome()
        if accepted % 20 == 0:
            perft(state.to_text(), 2, mode)
    assert accepted > MUTATIONS // 100
