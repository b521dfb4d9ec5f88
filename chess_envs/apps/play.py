"""A person against an agent in the terminal: ``chess-envs play --game los_alamos --agent SPEC``.

Moves are typed as UCI (``e2e4``) or SAN (``Nf3``, ``exd5``, ``a6=Q``) in chess and Los Alamos,
and as ``from-to`` (``h2-h4``, ``g7-g8=Q``) in four-player chess. Illegal or unreadable input is
refused with a hint and the board is drawn again; ``moves`` lists the legal moves, ``quit`` (or
the end of the input) stops. The game can be saved as PGN (``--pgn``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from chess_envs.agents.base import Agent
from chess_envs.arena.game import GameRecord
from chess_envs.arena.report import pgn
from chess_envs.core import GameState
from chess_envs.files import write_text_atomic
from chess_envs.registry import new_state
from chess_envs.render import render_ansi
from chess_envs.standard import ChessState


def san_moves(state: GameState) -> dict[str, int]:
    """Standard algebraic names of the legal moves (without check marks), action by name."""
    if isinstance(state, ChessState):
        board = state.board
        return {board.san(move).rstrip("+#"): state.move_to_action(move.uci()) for move in board.legal_moves}
    if state.num_players != 2:
        return {}
    # Los Alamos: build SAN from the engine's squares (pieces, captures, disambiguation).
    names: dict[str, int] = {}
    moves = {int(a): state.action_to_move(int(a)) for a in state.legal_actions()}
    cells = {}
    for r, row in enumerate(state.board_cells()):
        for f, cell in enumerate(row):
            if isinstance(cell, tuple):
                cells["abcdef"[f] + str(len(state.board_cells()) - r)] = cell[0].upper()
    for action, uci in moves.items():
        origin, target, promotion = uci[:2], uci[2:4], uci[4:].upper()
        piece = cells.get(origin, "P")
        capture = target in cells
        if piece == "P":
            name = (origin[0] + "x" if capture else "") + target + (f"={promotion}" if promotion else "")
        else:
            rivals = [u[:2] for a, u in moves.items() if a != action and u[2:4] == target and cells.get(u[:2]) == piece]
            clarify = ""
            if rivals:
                clarify = origin[0] if all(r[0] != origin[0] for r in rivals) else origin[1]
            name = piece + clarify + ("x" if capture else "") + target
        names[name] = action
    return names


def parse_move(state: GameState, text: str) -> int:
    """The legal action the person meant; ValueError with a hint otherwise."""
    text = text.strip()
    try:
        action = state.move_to_action(text)
    except ValueError:
        action = None
    if action is not None and state.legal_action_mask()[action]:
        return action
    san = san_moves(state)
    cleaned = text.rstrip("+#!?")
    for candidate in (cleaned, cleaned.replace("=", ""), cleaned.replace("0", "O")):
        for name, named_action in san.items():
            if candidate in (name, name.replace("=", "")):
                return named_action
    if action is not None:
        raise ValueError(f"{text} is not legal here")
    raise ValueError(f"cannot read {text!r} as a move")


def legal_texts(state: GameState) -> list[str]:
    return sorted(state.action_to_move(int(a)) for a in state.legal_actions())


def play_line(state: GameState, actions: Iterable[int]) -> tuple[list[str], GameState]:
    """The moves of ``actions`` played one after another from ``state`` (on a copy), and the
    position they reach."""
    board, moves = state.copy(), []
    for action in actions:
        moves.append(board.action_to_move(action))
        board.apply(action)
    return moves, board


def play_human(
    game: str,
    agent: Agent,
    seat: int = 0,
    fen: str | None = None,
    read: Callable[[str], str] | Iterator[str] = input,
    write: Callable[[str], None] = print,
    max_plies: int = 1000,
    **game_options,
) -> GameRecord:
    """Play one game, the person in ``seat`` and ``agent`` everywhere else; return its record."""
    state = new_state(game, fen, **game_options)
    if not 0 <= seat < state.num_players:
        raise ValueError(f"seat must be in [0, {state.num_players}), got {seat}")
    players = ["you" if player == seat else agent.name for player in range(state.num_players)]
    record = GameRecord(id="play", game=game, opening=state.to_text(), players=players)
    ask = read if callable(read) else lambda prompt: next(read)
    agent.reset()
    write(render_ansi(state))
    while not state.is_terminal() and len(record.moves) < max_plies:
        if state.current_player == seat:
            try:
                text = ask("your move (or 'moves', 'quit'): ")
            except (EOFError, StopIteration):
                text = "quit"
            if text.strip() == "quit":
                record.termination = "abandoned"
                record.scores = [0.0 if s == seat else 1.0 for s in range(state.num_players)]
                return record
            if text.strip() in ("moves", "help", ""):
                write("legal moves: " + " ".join(legal_texts(state)))
                continue
            try:
                action = parse_move(state, text)
            except ValueError as error:
                write(f"illegal: {error}; type 'moves' for the legal moves, e.g. {legal_texts(state)[0]}")
                write(render_ansi(state))
                continue
        else:
            action = agent.select_action(state.copy())
            write(f"{agent.name} plays {state.action_to_move(action)}")
        record.moves.append(state.action_to_move(action))
        state.apply(action)
        write(render_ansi(state))
    outcome = state.outcome()
    if outcome is None:
        record.termination = "max_plies"
        record.scores = [0.5] * state.num_players
    else:
        record.termination = outcome.termination.value
        record.scores = [(value + 1.0) / 2.0 for value in outcome.returns]
    write(f"game over: {record.termination}, scores {record.scores}")
    return record


def save_pgn(record: GameRecord, path: str | Path) -> None:
    """Write the game as PGN (temporary file, then rename)."""
    write_text_atomic(Path(path), pgn([record]))
