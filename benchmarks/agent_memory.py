"""Peak memory (RSS) of AlphaZero agents through long tournaments: the evaluation cache is bounded.

Two tournaments run through ``chess_envs.arena.tournament`` with two worker processes, each worker
holding its own agents:

* Los Alamos: the shipped network (``chess_envs/agents/networks/los_alamos.pt``) at 200 simulations a move
  against greedy, 100 games;
* four-player FFA: a network of the ``four_player`` training preset's size (random weights: no
  four-player network is shipped yet, and memory does not depend on the weights) at 200
  simulations against greedy, seated ``a b a b``, 12 games (3 openings x 4 seat rotations).

It prints the peak RSS of the main process and of the largest worker (``getrusage``); the
target is under 1 GB per process. Run: ``python benchmarks/agent_memory.py`` (about 30
minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chess_envs.agents.alphazero.checkpoint import save_checkpoint  # noqa: E402
from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig  # noqa: E402
from chess_envs.agents.shipped import shipped_checkpoint  # noqa: E402
from chess_envs.arena.game import random_openings  # noqa: E402
from chess_envs.arena.tournament import TournamentConfig, run_tournament  # noqa: E402
from chess_envs.registry import new_state  # noqa: E402


def four_player_checkpoint(folder: Path) -> Path:
    state = new_state("four_player")
    config = NetworkConfig(*state.observation_shape, state.num_actions, value_size=4, filters=64, blocks=6)
    path = folder / "four_player_random.pt"
    save_checkpoint(
        path, {"game": "four_player", "network": config.to_dict(), "model": AlphaZeroNet(config).state_dict()}
    )
    return path


def megabytes(usage: resource.struct_rusage) -> float:
    return usage.ru_maxrss / 1024  # kilobytes on Linux


def tournament(game: str, network: Path, games: int, sims: int, max_plies: int, out: Path) -> None:
    seats = new_state(game).num_players
    agents = [f"alphazero:{network}?sims={sims}", "greedy"]
    openings = random_openings(game, games // seats, 4, seed=0)
    config = TournamentConfig(game, agents, games, openings, max_plies=max_plies)
    started = time.monotonic()
    records = run_tournament(config, out, workers=2, progress=True)
    score = sum(r.scores[r.players.index(agents[0])] for r in records) / len(records)
    worker = megabytes(resource.getrusage(resource.RUSAGE_CHILDREN))
    print(
        f"{game}: {len(records)} games at {sims} simulations in {time.monotonic() - started:.0f} s "
        f"(alphazero's mean score {score:.2f}); peak RSS of the largest worker so far: {worker:,.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--los-alamos-games", type=int, default=100, help="a multiple of 2")
    parser.add_argument("--four-player-games", type=int, default=12, help="a multiple of 4")
    parser.add_argument("--sims", type=int, default=200, help="simulations per move")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        shipped = shipped_checkpoint("los_alamos")
        tournament("los_alamos", shipped, args.los_alamos_games, args.sims, 150, folder / "la")
        tournament("four_player", four_player_checkpoint(folder), args.four_player_games, args.sims, 200, folder / "fp")
    print(
        f"peak RSS: main process {megabytes(resource.getrusage(resource.RUSAGE_SELF)):,.0f} MB, "
        f"largest worker {megabytes(resource.getrusage(resource.RUSAGE_CHILDREN)):,.0f} MB (target: under 1,024 MB)"
    )


if __name__ == "__main__":
    main()
