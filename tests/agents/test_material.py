"""The four-player material evaluator and the ``material-mcts`` agent."""

from __future__ import annotations

import numpy as np
import pytest

from chess_envs.agents.base import SearchingAgent, SearchLimits, make_agent
from chess_envs.agents.four_player.material import BlendedEvaluator, MaterialEvaluator
from chess_envs.agents.shipped import shipped_agent
from chess_envs.registry import new_state
from chess_envs.search.protocol import quantize_planes

START = new_state("four_player").to_text()
# Yellow's queen taken by Red, who has the 9 points for it.
FIELDS = START.split("-")  # turn, eliminated, kingside, queenside, points, clock, placement
QUEEN_UP = "-".join([*FIELDS[:4], "9,0,0,0", *FIELDS[5:]]).replace("yK,yQ,", "yK,1,", 1)


def planes_of(*texts: str, mode: str = "ffa") -> np.ndarray:
    return np.stack([new_state("four_player", text, mode=mode).observation() for text in texts])


def test_values_read_points_and_material_from_the_planes():
    evaluator = MaterialEvaluator(material_weight=0.5, scale=10.0)
    points, material = evaluator.seat_scores(planes_of(START, QUEEN_UP))
    assert points.tolist() == [[0, 0, 0, 0], [9, 0, 0, 0]]
    assert material[0].tolist() == [43, 43, 43, 43] and material[1].tolist() == [43, 43, 34, 43]
    start, queen_up = evaluator.values(planes_of(START, QUEEN_UP))
    assert np.allclose(start, 0.0)
    assert queen_up[0] > queen_up[1] > queen_up[2] and queen_up[1] == pytest.approx(queen_up[3]), "Red leads"
    assert queen_up.sum() == pytest.approx(0.0, abs=1e-6) and np.all(np.abs(queen_up) <= 1.0)
    # Red leads Blue by 9 points: tanh(0.9); Yellow by 9 + 4.5: tanh(1.35).
    assert queen_up[0] == pytest.approx((2 * np.tanh(0.9) + np.tanh(1.35)) / 3, rel=1e-5)


def test_uint8_planes_give_the_float_values_and_logits_are_uniform():
    evaluator = MaterialEvaluator()
    planes = planes_of(START, QUEEN_UP)
    logits, values = evaluator(quantize_planes(planes))
    assert logits.shape == (2, new_state("four_player").num_actions) and not logits.any()
    assert np.allclose(values, evaluator.values(planes), atol=0.02)


def test_teams_values_are_the_teams_material_lead():
    evaluator = MaterialEvaluator(scale=10.0, teams=True)
    (values,) = evaluator.values(planes_of(START.replace("yK,yQ,", "yK,1,", 1), mode="teams"))
    lead = np.tanh(-9 / 10.0)  # Red's team (Red and Yellow) is a queen down
    assert np.allclose(values, [lead, -lead, lead, -lead])


def test_evaluator_rejects_other_planes_and_settings():
    with pytest.raises(ValueError, match="four-player planes"):
        MaterialEvaluator().values(np.zeros((1, 119, 8, 8), np.float32))
    with pytest.raises(ValueError, match="scale"):
        MaterialEvaluator(scale=0)


def test_agent_plays_legal_moves_in_both_modes_and_refuses_other_games():
    for mode in ("ffa", "teams"):
        state = new_state("four_player", mode=mode)
        agent = make_agent("material-mcts?sims=16", "four_player")
        agent.reset(seed=1)
        for _ in range(8):
            action = agent.select_action(state)
            assert state.legal_action_mask()[action]
            state.apply(action)
    with pytest.raises(ValueError, match="four-player"):
        make_agent("material-mcts", "chess")
    with pytest.raises(ValueError, match="sims"):
        make_agent("material-mcts?sims=0", "four_player")


def test_agent_takes_a_hanging_queen():
    rows = START.split("-")[-1].split("/")
    rows[6] = rows[6].replace("bQ,", "1,", 1)  # Blue's queen leaves a7 ...
    rows[11] = "x,x,x,2,bQ,5,x,x,x"  # ... for f3, where Red's e2 and g2 pawns take it
    state = new_state("four_player", "-".join(START.split("-")[:-1] + ["/".join(rows)]))
    agent = make_agent("material-mcts?sims=200", "four_player")
    state.apply(agent.select_action(state))
    assert state.points[0] == 9


def test_agent_thinks_within_limits_and_reads_the_mode_before_each_search():
    agent = make_agent("material-mcts?sims=16", "four_player")
    assert isinstance(agent, SearchingAgent)
    teams = new_state("four_player", mode="teams")
    thought = agent.think(teams, SearchLimits(nodes=24))
    assert agent.evaluator.teams and thought.nodes == 24
    assert teams.legal_action_mask()[thought.action] and thought.pv[0] == thought.action
    agent.think(new_state("four_player"), SearchLimits(nodes=8))
    assert not agent.evaluator.teams


def test_blended_values_mix_the_network_and_the_material_lead_and_keep_the_network_logits():
    logits = np.arange(2 * 5, dtype=np.float32).reshape(2, 5)
    network_values = np.array([[0.8, -0.8, 0.4, -0.4], [0.0, 0.0, 0.0, 0.0]], np.float32)

    class Network:
        teams = False
        seconds = 1.0

        def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return logits, network_values

    network = Network()
    blended = BlendedEvaluator(network, 0.25)
    planes = planes_of(START, QUEEN_UP)
    out_logits, values = blended(planes)
    assert out_logits is logits and values.dtype == np.float32
    assert np.allclose(values, 0.75 * network_values + 0.25 * MaterialEvaluator().values(planes))
    assert blended.seconds >= 1.0
    blended.teams = True
    assert network.teams and blended.material.teams
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        BlendedEvaluator(network, 1.5)


def test_alphazero_agent_blends_material_on_four_player_only():
    agent = make_agent("alphazero:@four_player?sims=16&material=0.5", "four_player")
    assert isinstance(agent.evaluator, BlendedEvaluator) and agent.evaluator.weight == 0.5
    teams = new_state("four_player", mode="teams")
    thought = agent.think(teams, SearchLimits(nodes=16))
    assert agent.evaluator.teams and agent.evaluator.network.teams and teams.legal_action_mask()[thought.action]
    with pytest.raises(ValueError, match="material evaluator"):
        make_agent("alphazero:@chess?sims=16&material=0.5", "chess")
    with pytest.raises(ValueError, match="material"):
        make_agent("alphazero:@four_player?material=2", "four_player")


def test_a_timed_search_grows_its_chunks_and_ends_on_time():
    agent = make_agent("material-mcts", "four_player")
    reports: list[int] = []
    thought = agent.think(new_state("four_player"), SearchLimits(seconds=0.2), report=lambda t: reports.append(t.nodes))
    # a look at the clock every 16 simulations would leave this fast search idle between chunks
    assert len(reports) < thought.nodes / 64 and reports[-1] == thought.nodes
    assert 0.2 <= thought.seconds < 1.0


def test_shipped_agents_play_with_their_options_unless_told_otherwise():
    assert shipped_agent("chess", sims=200) == "alphazero:@chess?leaves=4&fpu=0&root_fpu=none&sims=200"
    config = make_agent(shipped_agent("chess", sims=8, leaves=2), "chess").search.config
    assert (config.leaves_per_tree, config.fpu_reduction, config.root_fpu) == (2, 0.0, None)
    assert shipped_agent("four_player") == "alphazero:@four_player?material=0.75"
    assert shipped_agent("four_player", sims=8, material=0) == "alphazero:@four_player?material=0&sims=8"
    network_alone = make_agent(shipped_agent("four_player", material=0), "four_player")
    assert not isinstance(network_alone.evaluator, BlendedEvaluator)


def test_guide_root_reads_the_root_with_the_network_and_every_other_node_with_material():
    agent = make_agent("alphazero:@four_player?guide=root", "four_player")
    assert isinstance(agent.evaluator, MaterialEvaluator) and agent.search.cache.capacity == 0
    rows: list[int] = []
    network = agent.search.root_evaluate

    def counted(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows.append(len(planes))
        return network(planes)

    agent.search.root_evaluate = counted
    state = new_state("four_player")
    thought = agent.think(state, SearchLimits(nodes=300))
    assert thought.nodes == 300 and rows == [1]  # one position for the network over all the chunks
    guided = agent._tree.root
    alone = make_agent("alphazero:@four_player?mate=0", "four_player")
    alone.think(state, SearchLimits(nodes=1))
    assert np.allclose(guided.priors, alone._tree.root.priors) and guided.priors.std() > 0
    assert int(guided.visits.sum()) == 300

    teams = new_state("four_player", mode="teams")
    agent.think(teams, SearchLimits(nodes=16))
    assert agent.evaluator.teams and agent.network_evaluator.teams
    with pytest.raises(ValueError, match="guide=root"):
        make_agent("alphazero:@chess?guide=root", "chess")
    with pytest.raises(ValueError, match="guide must be"):
        make_agent("alphazero:@four_player?guide=leaves", "four_player")
