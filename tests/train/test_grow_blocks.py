"""--grow-blocks: a network deepened by residual blocks that start as the identity plays exactly as the
network it grew from, then learns; a network or setting it cannot grow is refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from chess_envs.agents.alphazero.checkpoint import load_network, save_checkpoint
from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig
from chess_envs.registry import new_state
from chess_envs.train import alphazero
from chess_envs.train.alphazero.config import AlphaZeroConfig
from chess_envs.train.alphazero.sections import new_network, take_init_shape
from chess_envs.train.config import build

CPU = torch.device("cpu")


def saved_network(path: Path, activation: str = "relu", blocks: int = 2) -> AlphaZeroNet:
    """A small trained-looking Los Alamos network (random BatchNorm statistics, so no layer is trivially zero)."""
    state = new_state("los_alamos")
    config = NetworkConfig(*state.observation_shape, num_actions=state.num_actions, filters=8, blocks=blocks)
    config.activation = activation
    network = AlphaZeroNet(config)
    generator = torch.Generator().manual_seed(0)
    for module in network.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.copy_(torch.randn(module.num_features, generator=generator) * 0.1)
            module.running_var.copy_(torch.rand(module.num_features, generator=generator) + 0.5)
            module.bias.data.copy_(torch.randn(module.num_features, generator=generator) * 0.1)
    save_checkpoint(path, {"game": "los_alamos", "network": config.to_dict(), "model": network.state_dict()})
    return network.eval()


def grown(path: Path, blocks: int) -> AlphaZeroConfig:
    return take_init_shape(build(AlphaZeroConfig, game="los_alamos", init=str(path), grow_blocks=blocks))


def planes(count: int) -> torch.Tensor:
    state = new_state("los_alamos")
    return torch.from_numpy(state.observation()[None]).repeat(count, 1, 1, 1) + torch.rand(count, 51, 6, 6).round()


def test_the_grown_network_plays_exactly_as_its_start_then_learns(tmp_path):
    start = saved_network(tmp_path / "start.pt")
    config = grown(tmp_path / "start.pt", 3)
    assert config.blocks == 5 and config.grow_blocks == 3
    network = new_network(config, CPU)
    assert len(network.trunk) == 5
    x = planes(16)
    with torch.no_grad():
        network.eval()
        (logits, values), (start_logits, start_values) = network(x), start(x)
    torch.testing.assert_close(logits, start_logits, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(values, start_values, atol=1e-5, rtol=1e-5)
    network.train()
    logits, values = network(x)
    (logits.logsumexp(1).mean() + values.square().mean()).backward()
    added = network.trunk[4].bn2
    assert added.weight.grad is not None and added.weight.grad.abs().sum() > 0, "an added block learns"


def test_a_network_that_cannot_grow_is_refused(tmp_path):
    saved_network(tmp_path / "gelu.pt", activation="gelu")
    with pytest.raises(ValueError, match="needs a relu network"):
        grown(tmp_path / "gelu.pt", 1)
    with pytest.raises(ValueError, match="give the network with --init"):
        take_init_shape(build(AlphaZeroConfig, game="los_alamos", grow_blocks=1))
    saved_network(tmp_path / "deep.pt", blocks=60)
    with pytest.raises(ValueError, match="60 \\+ 5 blocks is more than 64"):
        grown(tmp_path / "deep.pt", 5)
    with pytest.raises(ValueError, match="grow_blocks"):
        build(AlphaZeroConfig, grow_blocks=-1)


def test_self_play_grows_its_init_and_resumes_as_grown(tmp_path):
    saved_network(tmp_path / "start.pt")
    flags = ["--preset", "smoke", "--game", "los_alamos", "--init", str(tmp_path / "start.pt"), "--grow-blocks", "2"]
    flags += ["--runs-dir", str(tmp_path), "--run-name", "grown", "--progress", "false"]
    first = alphazero.main(flags)
    assert json.loads((tmp_path / "grown" / "config.json").read_text())["network"]["blocks"] == 4
    assert load_network(first, "los_alamos")[0].config.blocks == 4
    again = alphazero.main([*flags, "--resume", "--total-steps", "4"])
    assert load_network(again, "los_alamos")[0].config.blocks == 4
