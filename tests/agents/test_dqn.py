"""MaskableDQN: never an illegal action, the masked target, checkpoints and the dqn agent."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import pytest
import torch
from stable_baselines3.common.logger import configure
from stable_baselines3.common.vec_env import DummyVecEnv

import chess_envs.train.dqn.checkpoint as dqn_checkpoint
import chess_envs.train.dqn.learner as dqn
from chess_envs import LosAlamosState
from chess_envs.agents import make_agent
from chess_envs.agents.base import AgentError
from chess_envs.agents.dqn import DQNCheckpointError, DuelingHead, read_checkpoint
from chess_envs.gym_env import GameEnv
from chess_envs.train.dqn.checkpoint import restore_model, save_model
from chess_envs.train.dqn.learner import CompactReplayBuffer, MaskableDQN, masked_max


def tiny_model(env, **kwargs) -> MaskableDQN:
    settings = dict(
        learning_starts=2_000,
        buffer_size=5_000,
        batch_size=16,
        train_freq=8,
        target_update_interval=500,
        exploration_fraction=0.5,
        policy_kwargs=dict(features_extractor_kwargs=dict(filters=8, layers=2), net_arch=[32]),
        seed=0,
        device="cpu",
    )
    settings.update(kwargs)
    return MaskableDQN(env=env, game="los_alamos", **settings)


def raising_env(seat: int = 0) -> GameEnv:
    """An env that raises on any illegal action, so one would stop training at once."""
    return GameEnv("los_alamos", opponent="random", agent_seat=seat, max_plies=80, illegal_action="raise")


class Watch(GameEnv):
    """Records the legality of every action the learner takes."""

    chosen: list[bool] = []

    def step(self, action):
        Watch.chosen.append(bool(self.action_masks()[int(action)]))
        return super().step(action)


def test_no_illegal_action_in_10000_steps_of_warm_up_exploration_and_greed():
    Watch.chosen = []
    env = DummyVecEnv(
        [
            lambda s=seat: Watch("los_alamos", opponent="random", agent_seat=s, max_plies=80, illegal_action="raise")
            for seat in (0, 1)
        ]
    )
    light = dict(features_extractor_kwargs=dict(filters=8, layers=1), net_arch=[32])  # legality, not learning
    model = tiny_model(env, train_freq=16, policy_kwargs=light)
    model.learn(10_000)
    assert model.num_timesteps >= 10_000
    assert len(Watch.chosen) >= 10_000 and all(Watch.chosen)
    assert model.exploration_rate == pytest.approx(model.exploration_final_eps)


def test_greedy_action_is_the_best_legal_one():
    model = tiny_model(DummyVecEnv([raising_env]))
    obs = raising_env().reset(seed=0)[0]
    with torch.no_grad():
        q = model.q_net(model.policy.obs_to_tensor(obs)[0])[0].numpy()
    legal = np.flatnonzero(obs["action_mask"])
    action, _ = model.predict(obs, deterministic=True)
    assert int(action) == legal[np.argmax(q[legal])]
    assert np.argmax(q) not in legal or np.argmax(q) == int(action)


def test_dueling_head_reads_each_moves_advantage_at_its_from_square():
    torch.manual_seed(0)
    head = DuelingHead(filters=4, height=6, width=6, num_actions=LosAlamosState.num_actions, hidden=8)
    assert head.types == LosAlamosState.num_actions // 36
    features = torch.randn(2, 4 * 36)
    with torch.no_grad():
        q = head(features)
        planes = head.advantage(features.view(2, 4, 6, 6))  # [B, types, row, col]
        advantage = q - head.value(features)
    square, move_type = 6 * 2 + 5, 17  # the square on row 2, column 5
    action = square * head.types + move_type
    offset = advantage[:, 0] - planes[:, 0, 0, 0]  # the mean taken off every action alike
    assert torch.allclose(advantage[:, action], planes[:, move_type, 2, 5] + offset, atol=1e-5)
    assert torch.allclose(advantage.mean(dim=1), torch.zeros(2), atol=1e-5)


def test_dueling_head_falls_back_to_a_linear_advantage_for_other_layouts():
    head = DuelingHead(filters=4, height=6, width=6, num_actions=100, hidden=8)
    assert head.types == 0 and head(torch.randn(3, 4 * 36)).shape == (3, 100)


def one_transition_model(double_q: bool) -> MaskableDQN:
    """A model whose buffer holds one transition: reward 1, next legal moves 3 and 7, gamma 1/2."""
    model = tiny_model(DummyVecEnv([raising_env]), batch_size=1, gamma=0.5, double_q=double_q)
    model.set_logger(configure(None, []))
    obs = raising_env().reset(seed=0)[0]
    next_mask = np.zeros_like(obs["action_mask"])
    next_mask[[3, 7]] = 1
    next_obs = {"observation": obs["observation"][None], "action_mask": next_mask[None]}
    model.replay_buffer.add(
        {k: v[None] for k, v in obs.items()}, next_obs, np.array([[5]]), np.array([1.0]), np.array([False]), [{}]
    )
    return model


def trained_target(model: MaskableDQN, monkeypatch) -> float:
    """The TD target of one gradient step, caught on its way into the loss."""
    seen = {}
    loss = torch.nn.functional.smooth_l1_loss

    def spy(current, target):
        seen["target"] = target.clone()
        return loss(current, target)

    monkeypatch.setattr(dqn.F, "smooth_l1_loss", spy)
    model.train(gradient_steps=1, batch_size=1)
    return seen["target"].item()


def hand_set_values(values: dict[int, float]) -> torch.Tensor:
    q = torch.full((1, LosAlamosState.num_actions), -1.0)
    for action, value in values.items():
        q[0, action] = value
    return q


def test_target_takes_the_max_over_the_next_legal_actions(monkeypatch):
    model = one_transition_model(double_q=False)
    hand_set = hand_set_values({3: 2.0, 7: 4.0, 100: 50.0})  # 100 is illegal next
    monkeypatch.setattr(model, "q_net_target", lambda observations: hand_set)
    assert trained_target(model, monkeypatch) == pytest.approx(1.0 + 0.5 * 4.0)
    assert masked_max(hand_set, torch.zeros_like(hand_set, dtype=torch.bool)).item() == 0.0


def test_double_q_target_scores_the_online_networks_best_legal_move(monkeypatch):
    model = one_transition_model(double_q=True)
    target_values = hand_set_values({3: 2.0, 7: 4.0, 100: 50.0})
    online_values = hand_set_values({3: 9.0, 7: 1.0, 100: 99.0})  # online picks 3
    online = model.q_net
    monkeypatch.setattr(model, "q_net_target", lambda observations: target_values)
    monkeypatch.setattr(model, "q_net", lambda observations: online(observations) * 0 + online_values)
    assert trained_target(model, monkeypatch) == pytest.approx(1.0 + 0.5 * 2.0)  # the target's value of 3, not 4


def test_n_step_samples_sum_discounted_rewards_up_to_the_end_of_the_game():
    env = raising_env()
    obs = env.reset(seed=0)[0]
    buffer = CompactReplayBuffer(10, env.observation_space, env.action_space, device="cpu", n_steps=3, gamma=0.5)
    batched = {k: v[None] for k, v in obs.items()}
    for reward, done in ((1.0, False), (2.0, False), (4.0, True), (8.0, False), (16.0, False)):
        buffer.add(batched, batched, np.array([[1]]), np.array([reward]), np.array([done]), [{}])
    sample = buffer._get_samples(np.array([0, 1, 2, 3, 4]))
    assert sample.rewards[:, 0].tolist() == [1 + 0.5 * 2 + 0.25 * 4, 2 + 0.5 * 4, 4, 8 + 0.5 * 16, 16]
    assert sample.dones[:, 0].tolist() == [1, 1, 1, 0, 0]  # the last two stop at the newest transition
    assert sample.discounts[:, 0].tolist() == [0.125, 0.25, 0.5, 0.25, 0.5]


def test_compact_buffer_round_trips_planes_and_masks():
    env = raising_env()
    obs = env.reset(seed=0)[0]
    buffer = CompactReplayBuffer(10, env.observation_space, env.action_space, device="cpu")
    buffer.add(
        {k: v[None] for k, v in obs.items()},
        {k: v[None] for k, v in obs.items()},
        np.array([[1]]),
        np.array([0.0]),
        np.array([False]),
        [{}],
    )
    sample = buffer.sample(1)
    planes = sample.observations["observation"][0].numpy()
    assert np.allclose(planes, obs["observation"], atol=1 / 255)
    assert np.array_equal(sample.next_observations["action_mask"][0].numpy().astype(np.int8), obs["action_mask"])
    assert buffer.observations["observation"].dtype == np.uint8
    chess = GameEnv("chess").observation_space
    assert CompactReplayBuffer.bytes_per_transition(chess) == 2 * (119 * 64 + 584) + 20


def test_checkpoints_are_atomic_and_refuse_other_games_and_corruption(tmp_path):
    model = tiny_model(DummyVecEnv([raising_env]))
    path = save_model(model, tmp_path / "m.pt")
    assert [p.name for p in tmp_path.iterdir()] == ["m.pt"]
    meta, _ = read_checkpoint(path, "los_alamos")
    assert meta["game"] == "los_alamos" and meta["filters"] == 8
    with pytest.raises(DQNCheckpointError, match="trained on 'los_alamos', not 'chess'"):
        read_checkpoint(path, "chess")
    broken = tmp_path / "broken.pt"
    broken.write_bytes(path.read_bytes()[:2000])
    with pytest.raises(DQNCheckpointError, match="not a readable DQN checkpoint"):
        read_checkpoint(broken, "los_alamos")
    with pytest.raises(DQNCheckpointError, match="no DQN checkpoint"):
        read_checkpoint(tmp_path / "missing.pt", "los_alamos")
    agent = make_agent(f"dqn:{path}", "los_alamos")
    state = LosAlamosState()
    assert state.legal_action_mask()[agent.select_action(state)]
    with pytest.raises(AgentError, match="trained on 'los_alamos'"):
        make_agent(f"dqn:{path}", "chess")


def test_restore_model_brings_back_weights_optimizer_and_counters(tmp_path):
    model = tiny_model(DummyVecEnv([raising_env]))
    model.num_timesteps, model._n_updates = 1234, 56
    path = save_model(model, tmp_path / "m.pt")
    other = tiny_model(DummyVecEnv([raising_env]))
    restore_model(other, path)
    assert (other.num_timesteps, other._n_updates) == (1234, 56)
    for mine, theirs in zip(model.policy.state_dict().values(), other.policy.state_dict().values()):
        assert torch.equal(mine, theirs)
    bigger = tiny_model(DummyVecEnv([raising_env]), policy_kwargs=dict(features_extractor_kwargs=dict(filters=16)))
    with pytest.raises(DQNCheckpointError, match="sizes"):
        restore_model(bigger, path)


def test_a_trusted_sb3_zip_can_be_imported_explicitly(tmp_path, capsys):
    model = tiny_model(DummyVecEnv([raising_env]))
    model.save(tmp_path / "sb3.zip")
    with pytest.raises(AgentError, match="stable-baselines3 zip.*--trust-pickle"):
        make_agent(f"dqn:{tmp_path / 'sb3.zip'}", "los_alamos")
    with pytest.raises(SystemExit) as refused:
        dqn_checkpoint.main([str(tmp_path / "sb3.zip"), str(tmp_path / "safe.pt")])
    assert refused.value.code == 2 and "--trust-pickle" in capsys.readouterr().err
    dqn_checkpoint.main([str(tmp_path / "sb3.zip"), str(tmp_path / "safe.pt"), "--trust-pickle"])
    agent = make_agent(f"dqn:{tmp_path / 'safe.pt'}", "los_alamos")
    assert LosAlamosState().legal_action_mask()[agent.select_action(LosAlamosState())]


def test_an_sb3_zip_of_0_3_whose_pickles_name_the_old_modules_is_imported(tmp_path, monkeypatch):
    """tests/data/runs_0.3.0/sb3_maskable_dqn.zip pickled ``train.dqn_learner`` and ``agents.dqn``;
    a package of the user's named ``train`` is left as it was."""
    old = Path(__file__).resolve().parents[1] / "data" / "runs_0.3.0" / "sb3_maskable_dqn.zip"
    mine = types.ModuleType("train")
    monkeypatch.setitem(sys.modules, "train", mine)
    dqn_checkpoint.main([str(old), str(tmp_path / "safe.pt"), "--trust-pickle"])
    assert sys.modules["train"] is mine and "train.dqn_learner" not in sys.modules
    agent = make_agent(f"dqn:{tmp_path / 'safe.pt'}", "los_alamos")
    assert LosAlamosState().legal_action_mask()[agent.select_action(LosAlamosState())]
