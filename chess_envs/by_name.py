"""The modules imported by name from strings, listed in one place: the ``chess-envs`` subcommands and
the agent kinds that need an extra (torch). Each is imported only when it is used, so the core
install (environments only) runs without torch and says which extra a command needs.

``tests/test_architecture.py`` imports each and checks that the module naming it may import it under
the layers of pyproject.toml's import-linter contract (the game registry's import paths too).
"""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "demo": ("chess_envs.__main__:main", "", "a random game drawn in the terminal", ()),
    "perft": ("chess_envs.apps.perft:main", "", "count the legal-move tree of a position", ()),
    "train": ("chess_envs.train.alphazero:main", "train", "AlphaZero self-play training", ()),
    "distill": ("chess_envs.train.distill:main", "train", "a network learned from an engine's labels", ()),
    "dqn": ("chess_envs.train.dqn:main", "train", "the masked DQN baseline", ()),
    "tournament": ("chess_envs.apps.arena_cli:main", "agents", "matches, Elo and PGN between agents", ("tournament",)),
    "play": ("chess_envs.apps.arena_cli:main", "agents", "play an agent in the terminal", ("play",)),
    "uci": ("chess_envs.apps.uci:main", "agents", "the UCI engine (lichess-bot, cutechess, GUIs)", ()),
    "export": ("chess_envs.apps.export:main", "agents", "a checkpoint's playing part only", ()),
    "import-sb3": ("chess_envs.train.dqn.checkpoint:main", "train", "a trusted SB3 zip in the safe DQN format", ()),
    "serve": ("chess_envs.apps.web.server:main", "web", "a local web app: play and watch the games in a browser", ()),
}
"""command -> (``module:function`` taking argv, the extra it needs, help, arguments put first); the
module's ``parser()`` is the command line that function parses (the docs render it)"""

AGENT_KINDS: dict[str, str] = {
    "alphazero": "chess_envs.agents.alphazero.agent",
    "dqn": "chess_envs.agents.dqn",
    "material-mcts": "chess_envs.agents.four_player.material",
}
"""agent kind -> the module that registers it (:func:`chess_envs.agents.base.make_agent` imports it)"""
