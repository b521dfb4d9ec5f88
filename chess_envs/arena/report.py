"""What a tournament shows people: crosstable, rating table, rating plot (PNG) and PGN."""

from __future__ import annotations

import re
from itertools import combinations
from pathlib import Path

import chess
import chess.pgn

from chess_envs.arena.game import GameRecord
from chess_envs.arena.ratings import Rating, Result, likelihood_of_superiority
from chess_envs.files import write_atomic
from chess_envs.registry import get_game

_RESULT_TEXT = {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}


def pairwise_results(records: list[GameRecord]) -> list[Result]:
    """Each game as two-player results: every pair of seats held by different agents, scored
    1, 0.5 or 0 by who placed higher (for two players, simply the game's result), tagged with the
    game's id so that intervals resample a game's results together."""
    results = []
    for record in records:
        for i, j in combinations(range(len(record.players)), 2):
            first, second = record.players[i], record.players[j]
            if first != second:
                a, b = record.scores[i], record.scores[j]
                results.append(Result(first, second, 1.0 if a > b else 0.0 if a < b else 0.5, record.id))
    return results


def crosstable(records: list[GameRecord], players: list[str]) -> str:
    """Points scored by the row player against the column player (placings between them in
    games of more players), out of the games they played."""
    width = max(len(p) for p in players) + 2
    cells = {(a, b): [0.0, 0] for a in players for b in players}
    for result in pairwise_results(records):
        cells[result.first, result.second][0] += result.score
        cells[result.first, result.second][1] += 1
        cells[result.second, result.first][0] += 1.0 - result.score
        cells[result.second, result.first][1] += 1
    columns = [f"{i + 1:>10}" for i in range(len(players))]
    lines = [" " * (width + 3) + "".join(columns)]
    for i, a in enumerate(players):
        row = []
        for b in players:
            points, games = cells[a, b]
            row.append(f"{'-':>10}" if a == b else f"{f'{points:g}/{games}':>10}")
        lines.append(f"{i + 1:>2} {a:<{width}}" + "".join(row))
    return "\n".join(lines)


def rating_table(ratings: list[Rating], results: list[Result]) -> str:
    """Elo and score with 95% intervals, W/D/L, and the likelihood of superiority over the next player."""
    width = max(len(r.player) for r in ratings) + 2
    lines = [
        f"{'player':<{width}} {'Elo':>7} {'95% interval':>17} {'W':>4} {'D':>4} {'L':>4} {'score':>6} "
        f"{'95% interval':>16} {'LOS':>6}"
    ]
    for i, r in enumerate(ratings):
        below = ratings[i + 1].player if i + 1 < len(ratings) else None
        los = f"{likelihood_of_superiority(results, r.player, below):.2f}" if below is not None else ""
        interval = f"[{r.low:.0f}, {r.high:.0f}]"
        score_interval = f"[{r.score_low:.1%}, {r.score_high:.1%}]"
        lines.append(
            f"{r.player:<{width}} {r.elo:>7.0f} {interval:>17} {r.wins:>4} {r.draws:>4} {r.losses:>4} "
            f"{r.score:>6.1%} {score_interval:>16} {los:>6}".rstrip()
        )
    lines.append("W/D/L and score count pairs of seats (one per game for two players); intervals resample whole games.")
    lines.append("LOS: likelihood that a player is stronger than the one below it, from their games (draws ignored).")
    return "\n".join(lines)


def plot_ratings(ratings: list[Rating], path: Path, title: str) -> None:
    """A PNG of the ratings with their 95% intervals, best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [wrapped_spec(r.player) for r in reversed(ratings)]
    lines = sum(name.count("\n") + 1 for name in names)
    figure, axes = plt.subplots(figsize=(9, 0.35 * lines + 0.3 * len(names) + 1.5))
    elos = [r.elo for r in reversed(ratings)]
    # a percentile bootstrap interval of a few games may miss the estimate: no bar on that side then
    errors = [
        [max(r.elo - r.low, 0.0) for r in reversed(ratings)],
        [max(r.high - r.elo, 0.0) for r in reversed(ratings)],
    ]
    axes.errorbar(elos, range(len(names)), xerr=errors, fmt="o", capsize=4)
    axes.set_yticks(range(len(names)), names)
    axes.set_xlabel("Elo (random = 0), 95% bootstrap interval")
    axes.set_title(title)
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    try:
        write_atomic(path, lambda handle: figure.savefig(handle, dpi=100, format="png"))
    finally:
        plt.close(figure)


def wrapped_spec(spec: str, width: int = 36) -> str:
    """An agent spec broken into lines of about ``width`` characters after its ``:``, ``?`` and ``&``
    (a long checkpoint path with its options would push the plot off its figure)."""
    pieces = re.split(r"(?<=[:?&/])", spec)
    lines = [""]
    for piece in pieces:
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(lines)


def pgn(records: list[GameRecord]) -> str:
    """All games as PGN. Chess moves are SAN; Los Alamos moves are UCI text with a Variant tag;
    four-player games follow chess.com's PGN4 (``1. h2-h4 .. b7-d7 .. ...``)."""
    return "\n\n".join(_game_pgn(record, number) for number, record in enumerate(records, start=1)) + "\n"


def _termination(record: GameRecord) -> str:
    """The PGN Termination tag: the forfeit, or the adjudication and its reason, or how the game ended."""
    if record.forfeit:
        return record.forfeit
    return f"adjudication ({record.adjudication})" if record.adjudication else record.termination


def _pgn4(record: GameRecord, number: int) -> str:
    headers = {
        "Event": f"chess_envs {record.game} tournament",
        "Round": str(number),
        "Variant": "FFA",
        **dict(zip(("Red", "Blue", "Yellow", "Green"), record.players)),
        "Result": " - ".join(f"{score:g}" for score in record.scores),
        "Termination": _termination(record),
        "StartFen4": record.opening,
    }
    tags = "\n".join(f'[{key} "{value}"]' for key, value in headers.items())
    rounds = [record.moves[i : i + 4] for i in range(0, len(record.moves), 4)]
    text = " ".join(f"{n}. " + " .. ".join(moves) for n, moves in enumerate(rounds, start=1))
    return f"{tags}\n\n{text}"


def _game_pgn(record: GameRecord, number: int) -> str:
    if len(record.players) == 4:
        return _pgn4(record, number)
    result = _RESULT_TEXT.get(record.scores[0], "*")
    headers = {
        "Event": f"chess_envs {record.game} tournament",
        "Round": str(number),
        "White": record.players[0],
        "Black": record.players[1],
        "Result": result,
        "Termination": _termination(record),
    }
    variant = get_game(record.game).uci_variant or record.game
    if variant == "chess":  # the PGN standard's own game: python-chess writes SAN
        board = chess.Board(record.opening)
        game = chess.pgn.Game(headers={**headers})
        game.setup(board)
        node: chess.pgn.GameNode = game
        for ply, move in enumerate(record.moves):
            node = node.add_variation(chess.Move.from_uci(move))
            if ply < len(record.clocks):
                node.set_clock(record.clocks[ply])  # a [%clk h:mm:ss] comment
        game.headers["Result"] = result
        return str(game)
    headers.update({"Variant": variant, "SetUp": "1", "FEN": record.opening})
    tags = "\n".join(f'[{key} "{value}"]' for key, value in headers.items())
    fields = record.opening.split()
    fen_like = len(fields) >= 6 and fields[1] in ("w", "b") and fields[-1].isdigit()
    white_first = not fen_like or fields[1] == "w"
    fullmove = int(fields[-1]) if fen_like else 1
    tokens = []
    for ply, move in enumerate(record.moves):
        white_to_move = (ply % 2 == 0) == white_first
        if white_to_move:
            tokens.append(f"{fullmove}.")
        elif ply == 0:
            tokens.append(f"{fullmove}...")
        tokens.append(move)
        if not white_to_move:
            fullmove += 1
    return f"{tags}\n\n{' '.join(tokens + [result])}"
