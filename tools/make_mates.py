"""Short-mate test sets from real games, made by the project: positions where the side to move
mates in exactly 2 or 3 moves, with every first move that forces it, solved exactly.

    python tools/make_mates.py --game chess --mate2 200 --mate3 100
    python tools/make_mates.py --game los_alamos --mate2 200 --mate3 100

Games are played from the shipped book between weak settings of the game's engine and greedy
(Stockfish for chess, Fairy-Stockfish for Los Alamos: players who leave mates on the board), a
pair at a time in turn. Every position after the opening is screened by the engine at depth
``--screen-depth``; one it scores "mate N" (N 2 or 3, the side to move mating) is solved exactly by
an exhaustive search over an outside rules oracle (python-chess for chess, pyffish for Los
Alamos): kept when the shortest forced mate is N moves, with every first move that forces mate
within N as its solutions (the engine reports a mate, not always the shortest, and its MultiPV
misses mating moves). At most two positions per category come from one game; positions with a
halfmove clock over 90 are skipped. The positions come from these games, none from training.
Written as JSON lines in the puzzle format of ``tests/data/reference/puzzles``
(``recipes/puzzles.py --puzzles FILE`` rates agents on them); ``--recheck`` solves an existing
file again.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from itertools import cycle
from pathlib import Path

import chess

from chess_envs.agents.base import make_agent
from chess_envs.agents.engine import UciProcess, _find_binary, engine_variant
from chess_envs.arena.game import play_game, read_openings, shipped_book
from chess_envs.files import write_text_atomic
from chess_envs.registry import new_state

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


class ChessRules:
    """Standard chess by python-chess (the outside rules oracle): moves, and the end of the game."""

    def __init__(self, fen: str) -> None:
        self.board = chess.Board(fen)

    def moves(self) -> list[str]:
        return [move.uci() for move in self.board.legal_moves]

    def checks(self, move: str) -> bool:
        return self.board.gives_check(chess.Move.from_uci(move))

    def push(self, move: str) -> None:
        self.board.push_uci(move)

    def pop(self) -> None:
        self.board.pop()

    def ended(self) -> float | None:
        """-1 when the mover is mated, 0 for another end, None while the game goes on."""
        if self.board.is_checkmate():
            return -1.0
        return 0.0 if self.board.is_game_over(claim_draw=False) else None


class LosAlamosRules:
    """Los Alamos chess by pyffish (Fairy-Stockfish's rules, the outside oracle)."""

    def __init__(self, fen: str) -> None:
        import pyffish

        self.sf, self.fen = pyffish, fen
        self.stack: list[str] = []
        self.known: dict[tuple[str, ...], list[str]] = {}

    def moves(self) -> list[str]:
        key = tuple(self.stack)
        if key not in self.known:
            self.known[key] = self.sf.legal_moves("losalamos", self.fen, self.stack)
        return self.known[key]

    def checks(self, move: str) -> bool:
        return self.sf.gives_check("losalamos", self.fen, [*self.stack, move])

    def push(self, move: str) -> None:
        self.stack.append(move)

    def pop(self) -> None:
        self.stack.pop()

    def ended(self) -> float | None:
        if self.moves():
            return None
        return -1.0 if self.sf.game_result("losalamos", self.fen, self.stack) < 0 else 0.0


Rules = ChessRules | LosAlamosRules
RULES: dict[str, type[Rules]] = {"chess": ChessRules, "los_alamos": LosAlamosRules}
MAX_CLOCK = 90
"""positions with a halfmove clock above this are skipped: within five plies the 50-move rule could
end the game, which the oracles (no claimed draws) and the game (automatic) judge differently"""


def mates_with(rules: Rules, move: str, moves: int) -> bool:
    """Whether ``move`` forces mate within ``moves`` moves (exhaustive, the attacker to move)."""
    if moves == 1 and not rules.checks(move):
        return False  # only a check can mate
    rules.push(move)
    try:
        ended = rules.ended()
        if ended is not None:
            return ended < 0
        return moves > 1 and all(_refuted(rules, reply, moves - 1) for reply in rules.moves())
    finally:
        rules.pop()


def _refuted(rules: Rules, reply: str, moves: int) -> bool:
    """Whether the attacker still mates within ``moves`` after the defender's ``reply``."""
    rules.push(reply)
    try:
        return rules.ended() is None and any(mates_with(rules, move, moves) for move in rules.moves())
    finally:
        rules.pop()


def exact_mate(game: str, fen: str, longest: int) -> tuple[int, list[str]] | None:
    """(the shortest forced mate in moves, every first move that forces it within that many), by
    exhaustive search over the outside oracle's rules; None without a mate within ``longest``."""
    rules = RULES[game](fen)
    for moves in range(1, longest + 1):
        solutions = sorted(move for move in rules.moves() if mates_with(rules, move, moves))
        if solutions:
            return moves, solutions
    return None


def make_mates(game: str, wanted: dict[int, int], screen_depth: int, seed: int) -> list[dict]:
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
                if int(state.to_text().split()[4]) > MAX_CLOCK:
                    continue
                exact = exact_mate(game, state.to_text(), max(wanted))
                if exact is None or exact[0] != mate:
                    continue  # the engine saw a longer mate than the shortest, or none
                puzzle = {"mate_in": mate, "solutions": exact[1], "legal_count": len(state.legal_actions())}
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


def recheck(path: Path) -> None:
    """Solve the puzzles of ``path`` again exactly (:func:`exact_mate`), in place: solutions
    completed, positions whose shortest mate is not their ``mate_in`` dropped (both reported)."""
    puzzles, kept = [json.loads(line) for line in path.read_text().splitlines() if line.strip()], []
    for puzzle in puzzles:
        exact = exact_mate(puzzle["game"], puzzle["fen"], puzzle["mate_in"])
        if exact is None or exact[0] != puzzle["mate_in"]:
            print(f"{puzzle['id']}: dropped (shortest mate {exact and exact[0]})", file=sys.stderr)
            continue
        if exact[1] != puzzle["solutions"]:
            print(f"{puzzle['id']}: {puzzle['solutions']} -> {exact[1]}", file=sys.stderr)
        kept.append({**puzzle, "solutions": exact[1]})
    write_text_atomic(path, "".join(json.dumps(p) + "\n" for p in kept))
    print(f"{len(kept)} of {len(puzzles)} positions kept in {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(PLAYERS), required=True)
    parser.add_argument("--mate2", type=int, default=200)
    parser.add_argument("--mate3", type=int, default=100)
    parser.add_argument("--screen-depth", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="default: tests/data/mates/<game>.jsonl")
    parser.add_argument("--recheck", action="store_true", help="only complete the solutions of --out's puzzles")
    args = parser.parse_args()
    out = args.out or ROOT / "tests" / "data" / "mates" / f"{args.game}.jsonl"
    if args.recheck:
        recheck(out)
        return
    puzzles = make_mates(args.game, {2: args.mate2, 3: args.mate3}, args.screen_depth, args.seed)
    write_text_atomic(out, "".join(json.dumps(p) + "\n" for p in puzzles))
    print(f"wrote {len(puzzles)} positions to {out}")


if __name__ == "__main__":
    main()
