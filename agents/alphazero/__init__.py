"""AlphaZero: ResNet (network.py), batched PUCT/Gumbel search with one call, ``policy`` (mcts.py
native, python_mcts.py for games in Python), the agents that search (search_agent.py, agent.py)."""

from agents.alphazero.mcts import MCTS, MCTSConfig, SearchTree
from agents.alphazero.mcts_config import PolicyOutput, Search
from agents.alphazero.network import AlphaZeroNet, NetworkConfig, resolve_device
from agents.alphazero.search_agent import new_search

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
