"""The shipped chess network under a real clock against Stockfish at UCI_Elo 1350 (100 ms a move).

1. GAMES games through the tournament (``chess-envs tournament``), one at a time, at
   BASE+INC, from the shipped balanced book with colours swapped: every agent is timed and an
   overrun loses on time.
2. UCI_GAMES more through the UCI engine (``python -m chess_envs.apps.uci``) driven by python-chess the way
   lichess-bot drives an engine: ``Threads``, ``Hash`` and ``Move Overhead`` configured, each move
   a ``play`` with both clocks and pondering on, the clock kept here from the wall time of each
   answer. Stockfish plays its pinned 100 ms and is timed the same way.

Prints the score, time losses, the least time left on any clock and the ponder hits. Run it alone
on the machine: a clock test shares the cores with nothing.

    python recipes/clock_match.py [--games 100] [--uci-games 20] [--time-control 10+0.1]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import chess
import chess.engine

ROOT = Path(__file__).resolve().parents[1]
from chess_envs.arena.game import TimeControl, read_openings  # noqa: E402
from chess_envs.arena.tournament import TournamentConfig, run_tournament  # noqa: E402

OURS = "alphazero:@chess"
STOCKFISH = "stockfish?elo=1350&movetime=100"


def tournament_part(games: int, clock: str, out: Path) -> None:
    openings = read_openings("@chess", "chess")[: games // 2]
    config = TournamentConfig("chess", [OURS, STOCKFISH], games, openings, max_plies=400, time_control=clock)
    started = time.monotonic()
    records = run_tournament(config, out, workers=1, progress=True)
    score = sum(r.scores[r.players.index(OURS)] for r in records)
    on_time = [r for r in records if r.termination == "time"]
    least = {p: min((c for r in records for c, seat in _clock_seats(r) if r.players[seat] == p), default=0.0)
             for p in (OURS, STOCKFISH)}  # fmt: skip
    print(f"tournament: {len(records)} games at {clock} in {time.monotonic() - started:.0f} s; "
          f"{OURS} scored {score:g}/{len(records)}; time losses {len(on_time)}"
          + "".join(f"; least left {p}: {s:.2f} s" for p, s in least.items()), flush=True)  # fmt: skip
    for record in on_time:
        print(f"  lost on time: {record.id}: {record.forfeit}")


def _clock_seats(record) -> list[tuple[float, int]]:
    """(clock after the move, seat that moved) of each ply with a clock."""
    first = 0 if " w " in f" {record.opening} " else 1
    return [(c, (first + ply) % 2) for ply, c in enumerate(record.clocks)]


def uci_part(games: int, clock: TimeControl, book: list[str]) -> None:
    """Games through python -m chess_envs.apps.uci with the clock kept here, ours pondering."""
    ours = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "chess_envs.apps.uci"], cwd=ROOT)
    ours.configure({"Threads": 1, "Hash": 256, "Move Overhead": 100})
    stockfish_path = "stockfish" if os.path.exists("/usr/bin/stockfish") else "/usr/games/stockfish"
    stockfish = chess.engine.SimpleEngine.popen_uci(stockfish_path)
    stockfish.configure({"UCI_LimitStrength": True, "UCI_Elo": 1350})
    score, time_losses, least, ponders, moves = 0.0, 0, clock.base, 0, 0
    started = time.monotonic()
    try:
        for number in range(games):
            board = chess.Board(book[number // 2])
            ours_white = (number % 2 == 0) == (board.turn == chess.WHITE)
            clocks = {chess.WHITE: clock.base, chess.BLACK: clock.base}
            result = None
            while result is None:
                ours_to_move = (board.turn == chess.WHITE) == ours_white
                limit = chess.engine.Limit(
                    white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                    white_inc=clock.increment, black_inc=clock.increment,
                ) if ours_to_move else chess.engine.Limit(time=0.1)  # fmt: skip
                engine = ours if ours_to_move else stockfish
                begin = time.monotonic()
                played = engine.play(board, limit, ponder=ours_to_move, info=chess.engine.INFO_BASIC)
                clocks[board.turn] -= time.monotonic() - begin
                if ours_to_move:
                    moves += 1
                    least = min(least, clocks[board.turn])
                    ponders += played.ponder is not None
                if clocks[board.turn] < 0:
                    time_losses += ours_to_move
                    result = 0.0 if ours_to_move else 1.0
                    break
                clocks[board.turn] += clock.increment
                board.push(played.move)
                if board.is_game_over(claim_draw=True) or board.ply() >= 400:
                    outcome = board.outcome(claim_draw=True)
                    winner = None if outcome is None else outcome.winner
                    result = 0.5 if winner is None else float(winner == (chess.WHITE if ours_white else chess.BLACK))
            score += result
            print(f"  uci game {number + 1}: {result:g} ({board.ply()} plies)", flush=True)
    finally:
        ours.quit()
        stockfish.quit()
    print(f"uci: {games} games at {clock} in {time.monotonic() - started:.0f} s; ours scored {score:g}/{games}; "
          f"our time losses {time_losses}; least left on our clock {least:.2f} s; "
          f"bestmove with a ponder move {ponders}/{moves}", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--uci-games", type=int, default=20)
    parser.add_argument("--time-control", default="10+0.1")
    parser.add_argument("--out", type=Path, default=Path("runs/clock_match"))
    args = parser.parse_args()
    os.environ["PATH"] = os.environ.get("PATH", "") + os.pathsep + "/usr/games"
    if args.games:
        tournament_part(args.games, args.time_control, args.out)
    if args.uci_games:
        book = read_openings("@chess", "chess")[-(args.uci_games + 1) // 2 :]  # openings the tournament did not use
        uci_part(args.uci_games, TimeControl.parse(args.time_control), book)
    (args.out / "settings.json").write_text(json.dumps(vars(args), default=str))


if __name__ == "__main__":
    main()
