"""AlphaZero: ResNet (network.py), batched PUCT/Gumbel search with one call, ``policy`` (mcts.py
native, python_mcts.py for games in Python), the agents that search (search_agent.py, agent.py)."""

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
