"""What a tournament shows people: crosstable, rating table, rating plot (PNG) and PGN."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn

from evaluate.game import GameRecord
from evaluate.ratings import Rating, Result, likelihood_of_superiority

_RESULT_TEXT = {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}


def two_player_results(records: list[GameRecord]) -> list[Result]:
    return [Result(r.players[0], r.players[1], r.scores[0]) for r in records]


def crosstable(records: list[GameRecord], players: list[str]) -> str:
    """Points scored by the row player against the column player, out of the games they played."""
    width = max(len(p) for p in players) + 2
    cells = {(a, b): [0.0, 0] for a in players for b in players}
    for record in records:
        for seat, player in enumerate(record.players):
            for other_seat, other in enumerate(record.players):
                if other_seat != seat:
                    cells[player, other][0] += record.scores[seat]
                    cells[player, other][1] += 1
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
    """Elo with 95% intervals, W/D/L, score, and the likelihood of superiority over the next player."""
    width = max(len(r.player) for r in ratings) + 2
    lines = [f"{'player':<{width}} {'Elo':>7} {'95% interval':>17} {'W':>4} {'D':>4} {'L':>4} {'score':>6} {'LOS':>6}"]
    for i, r in enumerate(ratings):
        los = ""
        if i + 1 < len(ratings):
            los = f"{likelihood_of_superiority(results, r.player, ratings[i + 1].player):.2f}"
        interval = f"[{r.low:.0f}, {r.high:.0f}]"
        lines.append(
            f"{r.player:<{width}} {r.elo:>7.0f} {interval:>17} {r.wins:>4} {r.draws:>4} {r.losses:>4} "
            f"{r.score:>6.1%} {los:>6}"
        )
    lines.append("LOS: likelihood that a player is stronger than the one below it, from their games (draws ignored).")
    return "\n".join(lines)


def plot_ratings(ratings: list[Rating], path: Path, title: str) -> None:
    """A PNG of the ratings with their 95% intervals, best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 0.6 * len(ratings) + 1.5))
    names = [r.player for r in reversed(ratings)]
    elos = [r.elo for r in reversed(ratings)]
    errors = [[r.elo - r.low for r in reversed(ratings)], [r.high - r.elo for r in reversed(ratings)]]
    axes.errorbar(elos, range(len(names)), xerr=errors, fmt="o", capsize=4)
    axes.set_yticks(range(len(names)), names)
    axes.set_xlabel("Elo (random = 0), 95% bootstrap interval")
    axes.set_title(title)
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    temporary = path.with_name(path.stem + ".tmp.png")
    figure.savefig(temporary, dpi=100)
    plt.close(figure)
    temporary.replace(path)


def pgn(records: list[GameRecord]) -> str:
    """All games as PGN. Chess moves are SAN; Los Alamos moves are UCI text with a Variant tag."""
    return "\n\n".join(_game_pgn(record, number) for number, record in enumerate(records, start=1)) + "\n"


def _game_pgn(record: GameRecord, number: int) -> str:
    result = _RESULT_TEXT.get(record.scores[0], "*")
    headers = {
        "Event": f"chess_envs {record.game} tournament",
        "Round": str(number),
        "White": record.players[0],
        "Black": record.players[1],
        "Result": result,
        "Termination": record.forfeit or record.termination,
    }
    if record.game == "chess":
        board = chess.Board(record.opening)
        game = chess.pgn.Game(headers={**headers})
        game.setup(board)
        node = game
        for move in record.moves:
            node = node.add_variation(chess.Move.from_uci(move))
        game.headers["Result"] = result
        return str(game)
    headers.update({"Variant": "losalamos", "SetUp": "1", "FEN": record.opening})
    tags = "\n".join(f'[{key} "{value}"]' for key, value in headers.items())
    white_first = record.opening.split()[1] == "w"
    fullmove = int(record.opening.split()[-1])
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
