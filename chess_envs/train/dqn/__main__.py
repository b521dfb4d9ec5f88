"""``python -m chess_envs.train.dqn``: the trainer's command line."""

from chess_envs.train.dqn.loop import main

main()
