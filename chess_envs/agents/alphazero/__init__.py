"""AlphaZero's agent: the ResNet (network.py), its checkpoints, ONNX and OpenVINO forms, the
evaluators a search calls (evaluators.py) and the agent (agent.py); the search itself is
:mod:`chess_envs.search`, what every searching agent shares :mod:`chess_envs.agents.search_agent`."""

from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig, resolve_device
from chess_envs.agents.search_agent import new_search
from chess_envs.search.mcts import MCTS, SearchTree
from chess_envs.search.protocol import PolicyOutput, Search
from chess_envs.search.settings import MCTSConfig

__all__ = [
    "MCTS",
    "AlphaZeroNet",
    "MCTSConfig",
    "NetworkConfig",
    "PolicyOutput",
    "Search",
    "SearchTree",
    "new_search",
    "resolve_device",
]
