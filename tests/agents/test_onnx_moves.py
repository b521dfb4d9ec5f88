"""The ONNX agent plays the torch agent's moves: at temperature 0 on the recorded positions
(``tests/data/shipped_moves.json``, a few hundred per game), wherever the search's top two visit
counts differ by more than 2% (closer than that, float rounding may tip the choice either way)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

from chess_envs.agents.alphazero.onnx import export_onnx
from chess_envs.agents.base import make_agent
from chess_envs.registry import new_state
from tests.agents.shipped_moves import DATA

if not os.environ.get("CI"):  # CI installs the dev extras, ONNX Runtime included: never skip there
    pytest.importorskip("onnxruntime")

RECORD = json.loads(DATA.read_text())
OPTIONS = "sims=64&cache_mb=0&device=cpu"


def moves_and_margins(agent, game: str, texts: list[str]) -> list[tuple[int, float]]:
    """The agent's action in each position and the gap between its top two root visit counts (share of all)."""
    out = []
    for text in texts:
        state = new_state(game, text)
        tree = agent.search.new_tree(state.copy())
        output = agent.search.policy([tree], agent.rng, temperature=0.0)
        visits = np.sort(output.visit_counts[0])[::-1]
        margin = (visits[0] - visits[1]) / visits.sum() if len(visits) > 1 and visits.sum() else 1.0
        out.append((int(output.action[0]), float(margin)))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(RECORD["positions"]))
def test_the_onnx_agent_chooses_the_torch_agents_moves(game, tmp_path) -> None:
    texts = [text for text, _ in RECORD["positions"][game]][::2]  # every other one: the choices, not the volume
    path = export_onnx(f"@{game}", tmp_path / f"{game}.onnx")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch_moves = moves_and_margins(make_agent(f"alphazero:@{game}?{OPTIONS}", game), game, texts)
        onnx_moves = moves_and_margins(make_agent(f"alphazero:{path}?{OPTIONS}", game), game, texts)
    finally:
        torch.set_num_threads(threads)
    clear = [(text, a, b) for text, (a, margin), (b, _) in zip(texts, torch_moves, onnx_moves) if margin > 0.02]
    differing = [item for item in clear if item[1] != item[2]]
    assert len(clear) >= 20, f"only {len(clear)} of {len(texts)} positions have a clear choice"
    assert not differing, f"{len(differing)} of {len(clear)} clear choices differ: {differing[:3]}"
