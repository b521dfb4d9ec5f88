"""Short-mate test sets from real games, made by the project: positions where the side to move
mates in exactly 2 or 3 moves, with every first move that forces it, verified by the engine.

    python benchmarks/make_mates.py --game chess --mate2 200 --mate3 100
    python benchmarks/make_mates.py --game los_alamos --mate2 200 --mate3 100

Games are played from the shipped book between weak settings of the game's engine and greedy
(Stockfish for chess, Fairy-Stockfish for Los Alamos: players who leave mates on the board), a
pair at a time in turn. Every position after the opening is screened at depth ``--screen-depth``;
one the engine scores "mate N" (N 2 or 3, the side to move mating) is then analysed with MultiPV
over every legal move at depth ``--depth``: it is kept when no move mates sooner than N, and its
solutions are the moves scored mate in at most N. At most two positions per category come from
one game. The positions come from these games, none from training. Written as JSON lines in the
puzzle format of ``tests/data/reference/puzzles`` (``benchmarks/puzzles.py --puzzles FILE`` rates
agents on them).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from itertools import cycle
from pathlib import Path

from agents.base import make_agent
from agents.engine import UciProcess, _find_binary, engine_variant
from chess_envs.core import GameState
from chess_envs.files import write_text_atomic
from chess_envs.registry import new_state
from evaluate.game import play_game, read_openings, shipped_book

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = {
    "chess": ["greedy", "stockfish?skill=0&depth=1", "stockfish?skill=3&depth=2", "stockfish?skill=6&depth=3"],
    "los_alamos": ["greedy", "fairy-stockfish?skill=-5&depth=1", "fairy-stockfish?skill=0&depth=1",
                   "fairy-stockfish?skill=3&depth=2"],
}  # fmt: skip
PER_GAME = 2
"""positions kept per category from one game"""


class Analyst:
    """The game's engine at a fixed depth: the mover's mate distance, and every move's."""

    def __init__(self, game: str) -> None:
        self.name = "stockfish" if game == "chess" else "fairy-stockfish"
        self.engine = UciProcess(_find_binary(self.name, self.name), self.name)
        if self.name != "stockfish":
            self.engine.send(f"setoption name UCI_Variant value {engine_variant(self.name, game)}")
        self.engine.send("setoption name Hash value 64")
        self.engine.ready()

    def scores(self, fen: str, depth: int, lines: int) -> dict[str, tuple[str, int]]:
        """The last score of each of ``lines`` root moves at ``depth``: move -> ("cp" or "mate", value)."""
        self.engine.send(f"setoption name MultiPV value {lines}")
        self.engine.send(f"position fen {fen}")
        self.engine.send(f"go depth {depth}")
        found: dict[str, tuple[str, int]] = {}
        for line in self.engine.lines_until("bestmove"):
            words = line.split()
            if "bound" in line or not {"score", "pv", "depth"} <= set(words):
                continue  # a bound, not a score; or no line
            if int(words[words.index("depth") + 1]) == depth:
                kind, value = words[words.index("score") + 1], int(words[words.index("score") + 2])
                found[words[words.index("pv") + 1]] = (kind, value)
        return found

    def close(self) -> None:
        self.engine.close()


def mate_in(score: tuple[str, int] | None) -> int | None:
    """The mover's forced-mate distance in moves, None without one."""
    return score[1] if score is not None and score[0] == "mate" and score[1] > 0 else None


def verify(analyst: Analyst, state: GameState, mate: int, depth: int) -> dict | None:
    """The puzzle of ``state`` when the mover mates in exactly ``mate`` (no sooner), else None."""
    legal = len(state.legal_actions())
    scores = analyst.scores(state.to_text(), depth, legal)
    distances = {move: mate_in(score) for move, score in scores.items()}
    mating = {move: d for move, d in distances.items() if d is not None}
    if len(scores) < legal or not mating or min(mating.values()) != mate:
        return None
    solutions = sorted(move for move, d in mating.items() if d <= mate)
    return {"mate_in": mate, "solutions": solutions, "legal_count": legal}


def make_mates(game: str, wanted: dict[int, int], screen_depth: int, depth: int, seed: int) -> list[dict]:
    """Play games until ``wanted[N]`` mate-in-N positions (N in 2, 3) are found."""
    rng = random.Random(seed)
    openings = read_openings(str(shipped_book(game)), game)
    rng.shuffle(openings)
    players = PLAYERS[game]
    pairs = cycle([(a, b) for a in players for b in players if a != b])
    agents = {spec: make_agent(spec, game) for spec in players}
    analyst = Analyst(game)
    found: dict[int, list[dict]] = {n: [] for n in wanted}
    seen: set[str] = set()
    try:
        for index, opening in enumerate(openings):
            if all(len(found[n]) >= wanted[n] for n in wanted):
                break
            white, black = next(pairs)
            record = play_game(game, [agents[white], agents[black]], opening, game_id=f"g{index}", seed=seed)
            state, kept = new_state(game, opening), dict.fromkeys(wanted, 0)
            for ply, move in enumerate(record.moves):
                state.apply(state.move_to_action(move))
                position = " ".join(state.to_text().split()[:4])
                if state.is_terminal() or position in seen:
                    continue
                seen.add(position)
                screened = analyst.scores(state.to_text(), screen_depth, 1)
                mate = mate_in(next(iter(screened.values()), None))
                if mate not in wanted or kept[mate] >= PER_GAME or len(found[mate]) >= wanted[mate]:
                    continue
                puzzle = verify(analyst, state, mate, depth)
                if puzzle is None:
                    continue
                kept[mate] += 1
                number = len(found[mate]) + 1
                found[mate].append(
                    {"id": f"{game}-m{mate}-{number:03d}", "game": game, "category": f"mate{mate}",
                     "fen": state.to_text(), **puzzle, "side": state.to_text().split()[1],
                     "source": {"seed": seed, "game_index": index, "ply": ply + 1, "players": [white, black],
                                "opening": opening}}
                )  # fmt: skip
            print(
                f"game {index + 1} ({white} - {black}, {len(record.moves)} plies): "
                + ", ".join(f"mate in {n}: {len(found[n])}/{wanted[n]}" for n in wanted),
                file=sys.stderr,
                flush=True,
            )
    finally:
        analyst.close()
        for agent in agents.values():
            agent.close()
    return [puzzle for n in sorted(found) for puzzle in found[n]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(PLAYERS), required=True)
    parser.add_argument("--mate2", type=int, default=200)
    parser.add_argument("--mate3", type=int, default=100)
    parser.add_argument("--screen-depth", type=int, default=10)
    parser.add_argument("--depth", type=int, default=14, help="the MultiPV verification's depth")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="default: tests/data/mates/<game>.jsonl")
    args = parser.parse_args()
    out = args.out or ROOT / "tests" / "data" / "mates" / f"{args.game}.jsonl"
    puzzles = make_mates(args.game, {2: args.mate2, 3: args.mate3}, args.screen_depth, args.depth, args.seed)
    write_text_atomic(out, "".join(json.dumps(p) + "\n" for p in puzzles))
    print(f"wrote {len(puzzles)} positions to {out}")


if __name__ == "__main__":
    main()
