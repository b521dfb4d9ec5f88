"""The AlphaZero network, its checkpoints, and the agent built from them."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
import torch

from chess_envs.agents import make_agent
from chess_envs.agents.alphazero.agent import AlphaZeroAgent
from chess_envs.agents.alphazero.checkpoint import (
    FORMAT,
    CheckpointError,
    load_checkpoint,
    load_network,
    save_checkpoint,
)
from chess_envs.agents.alphazero.evaluators import PolicyTemperature
from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig, resolve_device, team_values
from chess_envs.agents.base import AgentError, SearchingAgent, SearchLimits
from chess_envs.arena.game import play_game
from chess_envs.registry import new_state
from chess_envs.standard import ChessState


def network_for(game: str, **sizes) -> AlphaZeroNet:
    state = new_state(game)
    return AlphaZeroNet(NetworkConfig(*state.observation_shape, num_actions=state.num_actions, **sizes)).eval()


@pytest.mark.parametrize("game, actions", [("los_alamos", 1944), ("chess", 4672)])
def test_shapes_and_value_range(game, actions):
    network = network_for(game, filters=8, blocks=1)
    planes = torch.from_numpy(new_state(game).observation()[None]).repeat(3, 1, 1, 1)
    logits, values = network(planes)
    assert logits.shape == (3, actions) and values.shape == (3, 1)
    assert values.abs().max() <= 1.0
    assert network.move_types == actions // planes[0, 0].numel()


def test_linear_policy_head_for_the_from_to_encoding():
    state = ChessState(action_encoding="from_to")
    network = AlphaZeroNet(NetworkConfig(*state.observation_shape, num_actions=4272, filters=8, blocks=1))
    assert network.move_types == 0
    assert network(torch.zeros(2, *state.observation_shape))[0].shape == (2, 4272)


def test_conv_policy_head_reads_actions_square_by_square():
    network = network_for("los_alamos", filters=4, blocks=1)
    conv = network.policy[-1]
    with torch.no_grad():
        conv.weight.zero_()
        conv.bias.zero_()
        conv.bias[7] = 5.0  # move type 7 at every square
    logits, _ = network(torch.zeros(1, 51, 6, 6))
    top = torch.topk(logits[0], 36).indices
    assert sorted((top % 54).tolist()) == [7] * 36
    assert sorted((top // 54).tolist()) == list(range(36))


def test_wrong_input_shape_is_an_error():
    with pytest.raises(ValueError, match=r"expected planes of shape \[B, 51, 6, 6\]"):
        network_for("los_alamos", filters=4, blocks=1)(torch.zeros(1, 50, 6, 6))


def test_device_auto_is_cuda_when_present():
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")


def save_network(path, game="los_alamos"):
    network = network_for(game, filters=8, blocks=1)
    save_checkpoint(path, {"game": game, "network": network.config.to_dict(), "model": network.state_dict()})
    return network


def test_checkpoint_round_trip_with_weights_only(tmp_path):
    path = tmp_path / "net.pt"
    network = save_network(path)
    loaded, payload = load_network(path, "los_alamos")
    assert payload["format"] == FORMAT
    planes = torch.randn(2, 51, 6, 6)
    torch.testing.assert_close(loaded(planes)[0], network(planes)[0])
    assert not list(tmp_path.glob("*.tmp")), "no temporary file left behind"


def test_checkpoint_for_another_game_is_refused(tmp_path):
    save_network(tmp_path / "net.pt")
    with pytest.raises(CheckpointError, match="trained on 'los_alamos', not 'chess'"):
        load_network(tmp_path / "net.pt", "chess")
    with pytest.raises(CheckpointError, match="trained on 'los_alamos', not 'chess'"):
        make_agent(f"alphazero:{tmp_path / 'net.pt'}", "chess")


def test_corrupt_truncated_and_foreign_files_are_refused(tmp_path):
    good = tmp_path / "net.pt"
    save_network(good)
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[:300])
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a checkpoint at all")
    foreign = tmp_path / "foreign.pt"
    torch.save({"state_dict": {}}, foreign)
    for path in (truncated, garbage):
        with pytest.raises(CheckpointError, match="not a readable checkpoint"):
            load_checkpoint(path)
    with pytest.raises(CheckpointError, match="not a chess_envs AlphaZero checkpoint"):
        load_checkpoint(foreign)
    with pytest.raises(CheckpointError, match="no checkpoint at"):
        load_checkpoint(tmp_path / "missing.pt")


class Smuggled:
    def __reduce__(self):
        return (print, ("code ran while loading",))


def test_pickled_code_is_never_run(tmp_path):
    path = tmp_path / "evil.pt"
    with open(path, "wb") as handle:
        torch.save({"format": FORMAT, "game": "los_alamos", "x": Smuggled()}, handle, pickle_module=pickle)
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        load_checkpoint(path)


def test_agent_plays_legal_deterministic_games(tmp_path):
    save_network(tmp_path / "net.pt")
    first = make_agent(f"alphazero:{tmp_path / 'net.pt'}?sims=16", "los_alamos")
    second = make_agent(f"alphazero:{tmp_path / 'net.pt'}?sims=16", "los_alamos")
    start = new_state("los_alamos").to_text()
    one = play_game("los_alamos", [first, make_agent("random?seed=3", "los_alamos")], start, max_plies=60)
    two = play_game("los_alamos", [second, make_agent("random?seed=3", "los_alamos")], start, max_plies=60)
    assert one.forfeit is None and one.moves == two.moves


def test_agent_needs_a_path():
    with pytest.raises(ValueError, match="needs a checkpoint"):
        make_agent("alphazero?sims=4", "los_alamos")


def test_search_settings_come_from_the_spec_and_bad_ones_are_named(tmp_path):
    save_network(tmp_path / "net.pt")
    spec = f"alphazero:{tmp_path / 'net.pt'}?sims=16"
    config = make_agent(f"{spec}&cpuct=2.5&fpu=0.4&root_fpu=none", "los_alamos").search.config
    assert (config.c_puct_init, config.fpu_reduction, config.root_fpu) == (2.5, 0.4, None)
    default = make_agent(spec, "los_alamos").search.config
    assert (default.c_puct_init, default.fpu_reduction, default.root_fpu) == (1.25, 0.25, 1.0)

    def moves_tried(options: str) -> int:
        search = make_agent(f"{spec}&{options}&mate=0", "los_alamos").search
        visits = search.policy([search.new_tree(new_state("los_alamos"))], np.random.default_rng(0)).visit_counts
        return int(np.count_nonzero(visits[0]))

    assert moves_tried("cpuct=50") > moves_tried("cpuct=0&root_fpu=-1")
    for bad, name in [("cpuct=-1", "cpuct"), ("fpu=x", "fpu"), ("root_fpu=2", "root_fpu"), ("cpuct=nan", "cpuct")]:
        with pytest.raises(ValueError, match=f"option {name} must be"):
            make_agent(f"{spec}&{bad}", "los_alamos")


def test_policy_temperature_softens_the_root_priors_and_bad_ones_are_named(tmp_path):
    save_network(tmp_path / "net.pt")
    spec = f"alphazero:{tmp_path / 'net.pt'}?sims=16&mate=0"
    state = new_state("los_alamos")

    def agent_and_root_priors(options: str) -> tuple[Any, np.ndarray, np.ndarray]:
        agent = make_agent(f"{spec}{options}", "los_alamos")
        tree = agent.search.new_tree(state)
        agent.search.policy([tree], np.random.default_rng(0))
        return agent, tree.root.actions, tree.root.priors

    agent, actions, plain = agent_and_root_priors("")
    hot_agent, _, hot = agent_and_root_priors("&policy_temp=2")
    assert isinstance(hot_agent.evaluator, PolicyTemperature)
    logits = agent.evaluator(state.observation()[None])[0][0, actions]
    for priors, temperature in [(plain, 1.0), (hot, 2.0)]:
        expected = np.exp(logits / temperature - np.max(logits / temperature))
        np.testing.assert_allclose(priors, expected / expected.sum(), rtol=1e-4, atol=1e-6)
    assert np.max(hot) < np.max(plain)
    for bad in ("0", "-1", "x", "nan", "11"):
        with pytest.raises(ValueError, match="option policy_temp must be"):
            make_agent(f"{spec}&policy_temp={bad}", "los_alamos")


def test_team_values_give_partners_one_value_from_per_seat_predictions():
    values = np.array([[0.6, -0.2, 0.2, -0.6], [-1.0, 1.0, -1.0, 1.0]], dtype=np.float32)
    np.testing.assert_allclose(team_values(values), [[0.8, -0.8, 0.8, -0.8], [-2.0, 2.0, -2.0, 2.0]])
    # a network that learned Teams predicts each seat's team result: the four estimates' mean
    np.testing.assert_allclose(team_values(values, True), [[0.4, -0.4, 0.4, -0.4], [-1.0, 1.0, -1.0, 1.0]])


def test_a_network_config_says_whether_its_values_were_learned_as_teams():
    sizes = {"in_channels": 8, "height": 14, "width": 14, "num_actions": 100, "value_size": 4, "filters": 8}
    assert not NetworkConfig.from_file(sizes).teams  # a checkpoint from before the field
    assert NetworkConfig.from_file({**sizes, "teams": True}).teams
    with pytest.raises(ValueError, match="network teams must be true or false, got 1"):
        NetworkConfig.from_file({**sizes, "teams": 1})


def test_four_player_agent_reads_values_per_team_only_in_teams():
    state = new_state("four_player")
    network = AlphaZeroNet(
        NetworkConfig(*state.observation_shape, num_actions=state.num_actions, value_size=4, filters=8, blocks=1)
    ).eval()
    agent = AlphaZeroAgent.from_spec("four_player", sims=4, network=network)
    agent.select_action(state)
    assert not agent.evaluator.teams
    teams = new_state("four_player", mode="teams")
    assert teams.legal_action_mask()[agent.select_action(teams)]
    assert agent.evaluator.teams
    _, values = agent.evaluator(teams.observation()[None])
    assert values[0, 0] == values[0, 2] == -values[0, 1] == -values[0, 3]


@pytest.mark.parametrize("options", [{}, {"material": 0.5, "policy_temp": 1.5}])
def test_a_teams_network_refuses_free_for_all_by_name(options):
    state = new_state("four_player")
    config = NetworkConfig(*state.observation_shape, num_actions=state.num_actions, value_size=4, filters=8, blocks=1)
    config.teams = True
    agent = AlphaZeroAgent.from_spec("four_player", sims=4, network=AlphaZeroNet(config).eval(), **options)
    teams = new_state("four_player", mode="teams")
    assert teams.legal_action_mask()[agent.select_action(teams)]
    with pytest.raises(AgentError, match="learned four-player Teams values .* does not play Free-For-All"):
        agent.select_action(state)
    record = play_game("four_player", [agent] * 4, state.to_text(), max_plies=4)  # a forfeit naming why
    assert "Teams values" in record.forfeit


def test_agent_thinks_like_it_plays_and_goes_on_with_its_tree():
    network = network_for("los_alamos", filters=8, blocks=1)
    state = new_state("los_alamos")
    agent = AlphaZeroAgent.from_spec("los_alamos", network=network, sims=16, mate=0)  # every simulation a node
    assert isinstance(agent, SearchingAgent)
    first = agent.think(state, SearchLimits(nodes=16))
    assert first.action == AlphaZeroAgent.from_spec("los_alamos", network=network, sims=16, mate=0).select_action(
        state.copy()
    )
    second = agent.think(state, SearchLimits(nodes=16))
    assert (first.nodes, second.nodes) == (16, 32) and state.legal_action_mask()[second.action]
    assert state.to_text() == new_state("los_alamos").to_text()
