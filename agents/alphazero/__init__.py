"""AlphaZero: ResNet (network.py), batched PUCT/Gumbel search (mcts.py), the agent (agent.py)."""

from agents.alphazero.mcts import MCTS, MCTSConfig, SearchTree
from agents.alphazero.network import AlphaZeroNet, NetworkConfig, resolve_device

__all__ = ["MCTS", "AlphaZeroNet", "MCTSConfig", "NetworkConfig", "SearchTree", "resolve_device"]
