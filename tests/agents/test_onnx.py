"""Networks exported to ONNX: the same outputs as torch's, an agent that plays them, wrong files refused."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

from chess_envs.agents import make_agent
from chess_envs.agents.alphazero.checkpoint import CheckpointError, load_network
from chess_envs.agents.alphazero.onnx import OnnxEvaluator, export_onnx
from chess_envs.apps.export import main as export_main
from chess_envs.registry import new_state

if not os.environ.get("CI"):  # CI installs the dev extras, ONNX Runtime included: never skip there
    pytest.importorskip("onnxruntime")


@pytest.mark.parametrize("game", ["los_alamos", "chess", "four_player"])
def test_onnx_outputs_equal_torchs_within_1e_4_of_their_scale(game, tmp_path) -> None:
    path = export_onnx(f"@{game}", tmp_path / f"{game}.onnx")
    network, _ = load_network(f"@{game}", game)
    evaluator = OnnxEvaluator(path, game)
    planes = (np.random.default_rng(0).random((16, *new_state(game).observation_shape)) < 0.2).astype(np.float32)
    logits, values = evaluator(planes)
    with torch.inference_mode():
        expected_logits, expected_values = network.eval()(torch.from_numpy(planes))
    assert logits.shape == expected_logits.shape and values.shape == expected_values.shape
    scale = max(1.0, float(np.abs(expected_logits.numpy()).max()))  # float32 rounding grows with the logits
    assert np.abs(logits - expected_logits.numpy()).max() < 1e-4 * scale
    assert np.abs(values - expected_values.numpy()).max() < 1e-4


def test_an_onnx_network_plays_and_a_file_for_another_game_is_refused(tmp_path) -> None:
    export_main(["@los_alamos", str(tmp_path / "la.onnx"), "--onnx"])
    agent = make_agent(f"alphazero:{tmp_path / 'la.onnx'}?sims=16", "los_alamos")
    state = new_state("los_alamos")
    assert agent.select_action(state) in state.legal_actions()
    with pytest.raises(CheckpointError, match="trained on 'los_alamos', not 'chess'"):
        OnnxEvaluator(tmp_path / "la.onnx", "chess")
    (tmp_path / "broken.onnx").write_bytes(b"not onnx")
    with pytest.raises(CheckpointError, match="not a readable ONNX network"):
        OnnxEvaluator(tmp_path / "broken.onnx", "los_alamos")
