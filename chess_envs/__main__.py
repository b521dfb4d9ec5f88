"""Play one random-vs-random game through the Gymnasium env and draw it in the terminal.

Run: ``python -m chess_envs [--game chess] [--seed 0] [--every 20] [--svg final.svg]``.
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np

from chess_envs import __version__
from chess_envs.registry import game_names, get_game
from chess_envs.render import render_svg


def parser() -> argparse.ArgumentParser:
    """``chess-envs demo``'s command line."""
    line = argparse.ArgumentParser(prog="chess-envs demo", description=__doc__.splitlines()[0])
    line.add_argument("--game", choices=game_names(), default=game_names()[0], help="which game to play")
    line.add_argument("--seed", type=int, default=0, help="seed of the random moves")
    line.add_argument("--every", type=int, default=20, help="draw the board every N plies (0: only the end)")
    line.add_argument("--svg", metavar="PATH", help="also write the final position as an SVG picture")
    return line


def main(argv: list[str] | None = None) -> None:
    command = parser()
    args = command.parse_args(argv)
    if args.every < 0:
        command.error("--every must be >= 0")

    env = gym.make(get_game(args.game).env_id, render_mode="ansi")
    rng = np.random.default_rng(args.seed)
    obs, info = env.reset(seed=args.seed)
    print(f"chess_envs {__version__}: a random game of {args.game}\n{env.render()}")
    plies, done = 0, False
    while not done:
        action = rng.choice(np.flatnonzero(obs["action_mask"]))
        obs, reward, terminated, truncated, info = env.step(action)
        plies += 1
        done = terminated or truncated
        if args.every and plies % args.every == 0 and not done:
            print(f"after {plies} plies:\n{env.render()}")
    state = env.unwrapped.state  # type: ignore[attr-defined]  # GameEnv's state
    result = info.get("termination", "truncated")
    print(f"final position after {plies} plies:\n{env.render()}")
    print(f"game over: {result}, returns per seat {state.returns().tolist()}")
    if args.svg:
        with open(args.svg, "w", encoding="utf-8") as handle:
            handle.write(render_svg(state))
        print(f"wrote {args.svg}")
    env.close()


if __name__ == "__main__":
    main()
