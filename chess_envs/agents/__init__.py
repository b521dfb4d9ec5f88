"""Agents that pick moves from game states (docs/architecture.md).

>>> from chess_envs.agents import make_agent
>>> from chess_envs import LosAlamosState
>>> agent = make_agent("greedy?seed=1", game="los_alamos")
>>> state = LosAlamosState()
>>> state.apply(agent.select_action(state))
"""

from chess_envs.agents import engine, simple  # noqa: F401  (register their agent kinds)
from chess_envs.agents.base import Agent, AgentError, AgentSpec, known_kinds, make_agent, register_agent
from chess_envs.agents.four_player import engine as four_player_engine  # noqa: F401  (4pchess)

__all__ = ["Agent", "AgentError", "AgentSpec", "known_kinds", "make_agent", "register_agent"]
