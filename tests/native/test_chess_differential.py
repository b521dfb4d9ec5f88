"""The native chess core against python-chess and the Python reference state, at every ply.

Seeded random games (preferring castling, en passant, promotions and pawn moves, so that every
rule is visited often): at each ply the legal move set, check, the game end and its reason must
be python-chess's, and the planes and mask bit-identical to :class:`ReferenceChessState`'s.
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor

import chess
import numpy as np
import pytest

from chess_envs import Termination
from chess_envs.standard import ChessState, perft
from tests.standard.reference import ReferenceChessState

MAX_PLIES = 150


def python_chess_end(board: chess.Board) -> Termination | None:
    """The end python-chess gives: ``Board.outcome()`` for the automatic ends, then the draws we
    end on when they are met (not one move ahead, as ``can_claim_*`` also allows) in
    ``outcome(claim_draw=True)``'s order: fifty moves, then threefold repetition."""
    outcome = board.outcome()
    if outcome is not None:
        return Termination(outcome.termination.name.lower())
    if board.is_fifty_moves():
        return Termination.FIFTY_MOVES
    if board.is_repetition(3):
        return Termination.THREEFOLD_REPETITION
    return None


def where(seed: int, ply: int, board: chess.Board) -> tuple:
    """An assertion's message (written only when one fails): the game, the ply and its FEN."""
    return (seed, ply, board.fen())


def play_games(seeds: range, history: int = 8, encoding: str = "alphazero") -> int:
    """Plies of the seeded games, checked at every ply. python-chess's side is the reference's own
    ``board`` (a ``chess.Board`` fed the same moves): its legal moves, check and ends are
    python-chess's, generated once a ply for both oracles. The FEN is compared every fourth ply and
    at the end (python-chess takes 0.3 ms to write one): the planes, compared every ply, already
    hold the pieces, castling rights, clocks and side to move, and the legal moves the en passant
    square."""
    plies = 0
    for seed in seeds:
        rng = random.Random(seed)
        native = ChessState(history=history, action_encoding=encoding)
        reference = ReferenceChessState(history=history, action_encoding=encoding)
        board = reference.board
        for ply in range(MAX_PLIES + 1):
            by_action = reference.legal_moves_by_action()  # python-chess's legal moves, keyed by action
            assert native.legal_moves_by_action() == by_action, where(seed, ply, board)
            assert native._game.in_check() == board.is_check(), where(seed, ply, board)
            end = python_chess_end(board)
            outcome = native.outcome()
            assert (outcome and outcome.termination) == end, where(seed, ply, board)
            assert outcome == reference.outcome(), where(seed, ply, board)
            mask = native.legal_action_mask()
            assert np.array_equal(mask, reference.legal_action_mask()), where(seed, ply, board)
            player = rng.randrange(2)
            planes = native.observation(player).tobytes()
            assert planes == reference.observation(player).tobytes(), where(seed, ply, board)
            assert np.array_equal(native.material(), reference.material()), where(seed, ply, board)
            if ply % 4 == 0 or end is not None or ply == MAX_PLIES:
                assert native.to_text() == board.fen(), where(seed, ply, board)
            if end is not None or ply == MAX_PLIES:
                break
            moves = list(by_action.values())
            special = [m for m in moves if m.promotion or board.is_en_passant(m) or board.is_castling(m)]
            pawn_moves = [m for m in moves if board.pawns & chess.BB_SQUARES[m.from_square]]
            if special and rng.random() < 0.7:
                moves = special
            elif pawn_moves and rng.random() < 0.3:
                moves = pawn_moves
            move = rng.choice(moves)
            action = native.move_to_action(move.uci())
            native.apply(action)
            reference.apply(action)
            assert board.move_stack[-1] == move, where(seed, ply, board)
            plies += 1
            if rng.random() < 0.05:  # undo and redo: the native history must come back exactly
                native.undo()
                reference.undo()
                assert native.to_text() == board.fen(), where(seed, ply, board)
                assert native.repetitions() == reference.repetitions(), where(seed, ply, board)
                native.apply(action)
                reference.apply(action)
    return plies


def run_split(first: int, games: int) -> int:
    """Plies of ``games`` seeded games from seed ``first``, over two processes."""
    with ProcessPoolExecutor(max_workers=2) as pool:
        return sum(pool.map(play_games, [range(first, first + games, 2), range(first + 1, first + games, 2)]))


def test_fifteen_hundred_random_games_agree_ply_by_ply():
    assert run_split(0, 1500) > 75_000


def test_other_history_and_encoding_agree():
    assert play_games(range(5000, 5100), history=3, encoding="from_to") > 5_000


@pytest.mark.slow
def test_five_hundred_more_games_agree():
    assert run_split(10_000, 500) > 25_000


# The six positions of the usual perft suite (chessprogramming.org "Perft Results").
PERFT_SUITE = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5, 4_865_609),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, 4_085_603),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 6, 11_030_083),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 5, 15_833_292),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4, 2_103_487),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 4, 3_894_594),
]


@pytest.mark.parametrize("fen,depth,nodes", PERFT_SUITE, ids=["start", "kiwipete", "pos3", "pos4", "pos5", "pos6"])
def test_perft_suite(fen, depth, nodes):
    assert perft(fen, depth) == nodes
