"""``python -m chess_envs.train.alphazero``: the trainer's command line."""

from chess_envs.train.alphazero.loop import main

main()
