"""Four-player chess's own evaluators and agents: the material evaluator, ``material-mcts`` and the
blend of material into a network's values; ``4pchess``, an external Teams engine."""
