"""Command line: ``chess-envs tournament --game los_alamos --agents random greedy ...`` and
``chess-envs play --game los_alamos --agent alphazero:@los_alamos``."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chess_envs.agents.base import AgentError, known_kinds, make_agent
from chess_envs.agents.shipped import shipped_agent, shipped_name
from chess_envs.apps.play import play_human, save_pgn
from chess_envs.arena.game import MAX_OPENING_PLIES, random_openings, read_openings
from chess_envs.arena.ratings import rate
from chess_envs.arena.report import crosstable, pairwise_results, pgn, plot_ratings, rating_table
from chess_envs.arena.sprt import SPRT, Pentanomial, pentanomial
from chess_envs.arena.tournament import RESULTS_FILE, TournamentConfig, run_tournament
from chess_envs.files import check_writable, write_text_atomic
from chess_envs.registry import game_names, get_game, registered_games


def _count(minimum: int, maximum: int | None = None):
    """An argparse type: an integer in [minimum, maximum]."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            bounds = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
            raise argparse.ArgumentTypeError(f"must be {bounds}, got {value}")
        return value

    return parse


_positive = _count(1)


def parser() -> argparse.ArgumentParser:
    """``chess-envs tournament`` and ``chess-envs play``: one parser, a subcommand each."""
    line = argparse.ArgumentParser(prog="chess-envs", description="Matches and tournaments between agents.")
    commands = line.add_subparsers(dest="command", required=True)
    t = commands.add_parser(
        "tournament",
        help="a round-robin tournament (or a gauntlet) with Elo ratings",
        description=f"Agent specs: {', '.join(known_kinds())} (e.g. 'fairy-stockfish?depth=1').",
    )
    t.add_argument("--game", choices=game_names(), required=True)
    t.add_argument("--agents", nargs="+", required=True, help="agent spec strings, at least two")
    t.add_argument(
        "--games-per-pair",
        type=_positive,
        default=20,
        help="games per pair (per table in four-player): a multiple of the seats, one per seat rotation",
    )
    t.add_argument("--out", type=Path, required=True, help="folder for games.jsonl, PGN, ratings and the plot")
    t.add_argument(
        "--openings-plies", type=_count(0, MAX_OPENING_PLIES), default=4, help="random plies that make each opening"
    )
    t.add_argument(
        "--openings-file",
        type=Path,
        help="an opening book: @GAME (the shipped balanced book), .pgn, .epd or FEN/FEN4 lines (not random plies)",
    )
    t.add_argument("--seed", type=int, default=0, help="seed of the random openings and of every game's agents")
    t.add_argument("--max-plies", type=_positive, default=400, help="a game this long is scored a draw")
    t.add_argument(
        "--gauntlet", action="store_true", help="only the first agent's games: it meets each of the others, once a pair"
    )
    _add_option_argument(t)
    t.add_argument("--workers", type=_positive, default=2, help="games played in parallel processes")
    t.add_argument(
        "--bootstrap", type=_count(0, 100_000), default=1000, help="bootstrap resamples for the intervals (0: none)"
    )
    t.add_argument("--tensorboard", action="store_true", help="also log the ratings to TensorBoard in --out")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    t.add_argument(
        "--time-control",
        metavar="BASE+INC",
        help="a clock per seat in seconds, e.g. 10+0.1, or 0.5/move: searching agents share their time, overruns lose",
    )
    t.add_argument(
        "--time-margin",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="how far below zero a clock may fall before its side loses on time (cutechess-cli's timemargin)",
    )
    t.add_argument(
        "--sprt",
        nargs=4,
        type=float,
        metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
        help="two agents: stop once an SPRT on normalised Elo over game pairs decides (e.g. 0 10 0.05 0.05)",
    )
    t.add_argument(
        "--resign",
        nargs=2,
        type=_count(1),
        metavar=("MOVES", "CP"),
        help="adjudicate a loss once a side's searched score is <= -CP centipawns for MOVES moves in a row "
        "and its opponent's is >= CP (e.g. 3 600)",
    )
    t.add_argument(
        "--draw",
        nargs=3,
        type=_count(1),
        metavar=("FROM", "MOVES", "CP"),
        help="adjudicate a draw from move FROM once both sides' scores stay within CP centipawns for MOVES "
        "moves (e.g. 40 8 10)",
    )
    p = commands.add_parser(
        "play",
        help="play against an agent in the terminal",
        description="You against an agent: type moves as UCI or SAN (four-player: from-to); 'moves' lists them.",
    )
    p.add_argument("--game", choices=game_names(), required=True)
    p.add_argument(
        "--agent", help="the agent spec you play against (every other seat); default: the game's shipped network"
    )
    p.add_argument("--seat", type=int, default=0, help="your seat: 0 white / Red, 1 black / Blue, ...")
    p.add_argument("--fen", help="start from this position (FEN, or FEN4 in four-player)")
    _add_option_argument(p)
    p.add_argument("--pgn", type=Path, help="save the game here as PGN when it ends")
    return line


def _add_option_argument(parser: argparse.ArgumentParser) -> None:
    options = "; ".join(
        f"{record.name}: " + ", ".join(f"{o.name}={'|'.join(map(str, o.choices)) or o.default}" for o in record.options)
        for record in registered_games()
        if record.options
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=f"a game option, repeatable ({options}; four-player mode=teams seats a b a b as partners)",
    )


def game_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``--option NAME=VALUE`` arguments, checked against the game's registry record."""
    options = {}
    for text in args.option:
        name, equals, value = text.partition("=")
        if not equals:
            raise ValueError(f"--option takes NAME=VALUE, got {text!r}")
        options[name.strip()] = value.strip()
    return get_game(args.game).check_options(options)


def play(args: argparse.Namespace) -> None:
    options = game_options(args)
    if args.pgn is not None:
        check_writable(args.pgn)  # before the first move, not after the game
    agent = make_agent(args.agent or shipped_agent(shipped_name(args.game, options)), args.game)
    try:
        record = play_human(args.game, agent, seat=args.seat, fen=args.fen, **options)
    finally:
        agent.close()
    if args.pgn is not None:
        try:
            save_pgn(record, args.pgn)
            print(f"saved {args.pgn}")
        except OSError as error:  # the folder went away during the game: keep the game elsewhere
            fallback = Path(tempfile.gettempdir()) / f"chess-envs-game-{time.strftime('%Y%m%d-%H%M%S')}.pgn"
            save_pgn(record, fallback)
            print(f"could not write {args.pgn} ({error}); the game is saved in {fallback}", file=sys.stderr)


def _adjudication(args: argparse.Namespace) -> dict[str, int] | None:
    """The ``--resign`` and ``--draw`` rules as an Adjudication's fields, None when neither is given."""
    rules: dict[str, int] = {}
    if args.resign is not None:
        rules.update(resign_moves=args.resign[0], resign_cp=args.resign[1])
    if args.draw is not None:
        rules.update(draw_from=args.draw[0], draw_moves=args.draw[1], draw_cp=args.draw[2])
    return rules or None


def _sprt_stop(sprt: SPRT, first: str, second: str, decided: list[Pentanomial]) -> Callable[[list], bool]:
    """The tournament's stop rule for an SPRT: True once a bound is crossed, keeping in ``decided``
    the counts that crossed it (games still in flight then may finish, and may not cross it)."""

    def stop(done: list) -> bool:
        counts = pentanomial(done, first, second)
        if sprt.decision(counts) is None:
            return False
        decided.append(counts)
        return True

    return stop


def tournament(args: argparse.Namespace) -> None:
    options = game_options(args)
    count = args.games_per_pair // get_game(args.game).num_players or 1
    if args.openings_file is not None:
        openings = read_openings(str(args.openings_file), args.game)
    else:
        openings = random_openings(args.game, count, args.openings_plies, args.seed, **options)
    config = TournamentConfig(
        args.game,
        list(args.agents),
        args.games_per_pair,
        openings[:count],
        args.max_plies,
        args.seed,
        args.gauntlet,
        options,
        args.time_control,
        _adjudication(args),
        args.time_margin,
    )
    sprt, stop = None, None
    decided: list[Pentanomial] = []
    if args.sprt is not None:
        if len(config.agents) != 2 or get_game(args.game).num_players != 2:
            raise SystemExit("error: --sprt plays one pair of agents at a two-player game")
        try:
            sprt = SPRT(*args.sprt)
        except ValueError as error:
            raise SystemExit(f"error: --sprt: {error}") from None
        stop = _sprt_stop(sprt, config.agents[0], config.agents[1], decided)
    records = run_tournament(config, args.out, workers=args.workers, progress=not args.quiet, stop=stop)
    if sprt is not None:
        counts = decided[-1] if decided else pentanomial(records, *config.agents)
        verdict = f"{sprt.report(counts)} after {2 * counts.pairs} games"
        if len(records) > 2 * counts.pairs:
            verdict += f" ({len(records) - 2 * counts.pairs} more, in flight or unpaired, are in the ratings only)"
        print(f"\n{config.agents[0]} against {config.agents[1]}: {verdict}")
        write_text_atomic(args.out / "sprt.txt", verdict + "\n")
    results = pairwise_results(records)
    anchor = next((a for a in config.agents if a.split("?")[0] == "random"), None)
    ratings = rate(results, players=config.agents, anchor=anchor, bootstrap=args.bootstrap)
    table, cross = rating_table(ratings, results), crosstable(records, config.agents)
    print(f"\n{cross}\n\n{table}")
    write_text_atomic(args.out / "crosstable.txt", f"{cross}\n\n{table}\n")
    write_text_atomic(args.out / "games.pgn", pgn(records))
    write_text_atomic(args.out / "ratings.json", json.dumps([r.__dict__ for r in ratings], indent=2))
    plot_ratings(ratings, args.out / "ratings.png", f"{args.game}: {len(records)} games")
    if args.tensorboard:
        from torch.utils.tensorboard import SummaryWriter

        with SummaryWriter(str(args.out)) as writer:
            for r in ratings:
                writer.add_scalar(f"eval/elo/{r.player}", r.elo, len(records))
    print(f"\nwrote {args.out}/{{{RESULTS_FILE}, games.pgn, crosstable.txt, ratings.json, ratings.png}}")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:  # the web app has its own parser (and needs the [web] extra)
        from chess_envs.apps.web.server import main as serve

        serve(argv[1:])
        return
    command = parser()
    args = command.parse_args(argv)
    try:
        play(args) if args.command == "play" else tournament(args)
    except (ValueError, AgentError, OSError) as error:
        command.exit(2, f"error: {error}\n")
    except KeyboardInterrupt:
        print("\ninterrupted: finished games are saved; rerun the same command to resume", file=sys.stderr)
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
