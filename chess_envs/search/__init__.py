"""Batched tree search over game states: its settings (:mod:`.settings`, one table), the native search
(:mod:`.mcts`), the Python reference for games without a native core (:mod:`.python_mcts`), the root's
mate probe, and what a search is given and gives (:mod:`.protocol`)."""
