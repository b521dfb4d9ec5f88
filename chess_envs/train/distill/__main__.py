"""``python -m chess_envs.train.distill``: the trainer's command line."""

from chess_envs.train.distill.loop import main

main()
