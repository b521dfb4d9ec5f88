"""A masked DQN baseline: stable-baselines3's DQN, extended so it never picks an illegal move.

SB3's DQN chooses or scores actions in four places; :class:`MaskableDQN` applies the env's
``action_mask`` in each of them:

1. warm-up sampling (``_sample_action`` before ``learning_starts``): uniform over legal moves;
2. epsilon-greedy exploration (``predict`` with probability epsilon): uniform over legal moves;
3. the greedy action (:class:`MaskedQNetwork`): argmax over legal moves only;
4. the TD target (``train``): the max over the NEXT observation's legal moves (zero where the
   game is over and nothing is legal).

The Q-network reads the planes through :class:`PlanesExtractor` (a small CNN that ignores the
mask key) and scores moves with a :class:`DuelingHead`. :class:`CompactReplayBuffer` stores
planes as uint8 and masks as packed bits, about four times smaller than SB3's float32 buffer
(see docs/dqn.md for the sums), and gives n-step returns.
"""

from __future__ import annotations

import argparse
import json
import zipfile
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
import torch.nn.functional as F
from stable_baselines3 import DQN
from stable_baselines3.common.buffers import DictReplayBuffer
from stable_baselines3.common.policies import BasePolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.type_aliases import DictReplayBufferSamples
from stable_baselines3.dqn.policies import DQNPolicy, QNetwork
from torch import nn

from agents.base import AgentBase, AgentError, check_device, register_agent
from chess_envs.core import GameState
from chess_envs.files import write_atomic
from chess_envs.gym_env import GameEnv
from chess_envs.registry import game_names, new_state

PLANES, MASK = "observation", "action_mask"


class DQNCheckpointError(ValueError):
    """A DQN checkpoint that cannot be used: unreadable, corrupt, or for another game."""


class PlanesExtractor(BaseFeaturesExtractor):
    """A stack of 3x3 convolutions over the observation planes (the mask is not an input).

    Its features are the last convolution's planes, flattened: ``filters * H * W`` numbers that
    :class:`DuelingHead` reads both square by square and as a whole.
    """

    def __init__(self, observation_space: gym.spaces.Dict, filters: int = 64, layers: int = 3) -> None:
        channels, height, width = observation_space[PLANES].shape
        super().__init__(observation_space, filters * height * width)
        blocks: list[nn.Module] = []
        for layer in range(layers):
            blocks += [nn.Conv2d(channels if layer == 0 else filters, filters, 3, padding=1), nn.ReLU()]
        self.cnn = nn.Sequential(*blocks, nn.Flatten())

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.cnn(observations[PLANES].float())


class DuelingHead(nn.Module):
    """Q(s, a) = V(s) + A(s, a) - mean A(s, .), with a convolutional advantage.

    In AlphaZero's "from-square x move type" layouts (``num_actions`` a multiple of ``H * W``,
    action ``square * types + type``) the advantage of a move is read at its from-square by a
    3x3 then a 1x1 convolution, so what is learnt about a capture on one square carries over to
    every square; otherwise it is a linear layer. The value is a small MLP over all features.
    """

    def __init__(self, filters: int, height: int, width: int, num_actions: int, hidden: int) -> None:
        super().__init__()
        squares = height * width
        self.planes = (filters, height, width)
        self.types = num_actions // squares if num_actions % squares == 0 else 0
        if self.types:
            self.advantage = nn.Sequential(
                nn.Conv2d(filters, filters, 3, padding=1), nn.ReLU(), nn.Conv2d(filters, self.types, 1)
            )
        else:
            self.advantage = nn.Linear(filters * squares, num_actions)
        self.value = nn.Sequential(nn.Linear(filters * squares, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        if self.types:  # [B, types, H, W] -> [B, H, W, types] -> action = square * types + type
            advantage = self.advantage(features.view(-1, *self.planes)).permute(0, 2, 3, 1).flatten(1)
        else:
            advantage = self.advantage(features)
        return self.value(features) + advantage - advantage.mean(dim=1, keepdim=True)


def legal(observations: dict[str, torch.Tensor]) -> torch.Tensor:
    """The boolean legal-move mask of a batch of observations."""
    return observations[MASK] > 0.5


class MaskedQNetwork(QNetwork):
    """SB3's Q-network with a :class:`DuelingHead`, whose greedy action is the best LEGAL action (place 3).

    ``net_arch`` is ``[hidden]``, the width of the value MLP.
    """

    def __init__(
        self,
        observation_space: gym.spaces.Dict,
        action_space: gym.spaces.Discrete,
        features_extractor: BaseFeaturesExtractor,
        features_dim: int,
        net_arch: list[int] | None = None,
        activation_fn: type[nn.Module] = nn.ReLU,
        normalize_images: bool = False,
    ) -> None:
        # QNetwork.__init__ would build an MLP head only to be replaced: set its fields here instead.
        BasePolicy.__init__(
            self,
            observation_space,
            action_space,
            features_extractor=features_extractor,
            normalize_images=normalize_images,
        )
        self.net_arch = net_arch or [256]
        self.activation_fn = activation_fn
        self.features_dim = features_dim
        _, height, width = observation_space[PLANES].shape
        filters = features_dim // (height * width)
        self.q_net = DuelingHead(filters, height, width, int(action_space.n), self.net_arch[0])

    def _predict(self, observation: dict[str, torch.Tensor], deterministic: bool = True) -> torch.Tensor:
        q_values = self(observation).masked_fill(~legal(observation), -torch.inf)
        return q_values.argmax(dim=1).reshape(-1)


class MaskedDQNPolicy(DQNPolicy):
    """DQNPolicy over dict observations with the masked Q-network and the planes CNN."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("features_extractor_class", PlanesExtractor)
        kwargs.setdefault("normalize_images", False)
        super().__init__(*args, **kwargs)

    def make_q_net(self) -> MaskedQNetwork:
        net_args = self._update_features_extractor(self.net_args, features_extractor=None)
        return MaskedQNetwork(**net_args).to(self.device)


class CompactReplayBuffer(DictReplayBuffer):
    """SB3's dict replay buffer storing planes as uint8 (x255) and the mask as packed bits.

    The planes are 0/1 except a few scalar planes in [0, 1], which keep 1/255 resolution.
    With ``n_steps > 1`` a sample is an n-step transition (SB3's ``NStepReplayBuffer`` for dict
    observations): the discounted rewards of up to ``n_steps`` moves, stopping at the end of the
    game, the observation after the last of them and the discount left for its bootstrap.
    """

    def __init__(
        self,
        buffer_size: int,
        observation_space: gym.spaces.Dict,
        *args: Any,
        n_steps: int = 1,
        gamma: float = 0.99,
        **kwargs: Any,
    ) -> None:
        super().__init__(buffer_size, observation_space, *args, **kwargs)
        if n_steps < 1:
            raise ValueError(f"n_steps must be >= 1, got {n_steps}")
        self.n_steps, self.gamma = n_steps, gamma
        self._mask_size = int(np.prod(observation_space[MASK].shape))
        packed = (self._mask_size + 7) // 8
        for store in (self.observations, self.next_observations):
            store[PLANES] = np.zeros((self.buffer_size, self.n_envs, *self.obs_shape[PLANES]), dtype=np.uint8)
            store[MASK] = np.zeros((self.buffer_size, self.n_envs, packed), dtype=np.uint8)
        self.obs_shape = {**self.obs_shape, MASK: (packed,)}

    def _compress(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        planes = np.rint(np.asarray(obs[PLANES], dtype=np.float32) * 255.0).astype(np.uint8)
        mask = np.packbits(np.asarray(obs[MASK]).reshape(self.n_envs, -1) > 0, axis=1)
        return {PLANES: planes, MASK: mask}

    def add(self, obs, next_obs, action, reward, done, infos) -> None:  # noqa: ANN001 (SB3's signature)
        super().add(self._compress(obs), self._compress(next_obs), action, reward, done, infos)

    def _expand(self, obs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        bits = torch.arange(7, -1, -1, device=obs[MASK].device)
        mask = (obs[MASK].long().unsqueeze(-1) >> bits) & 1
        return {PLANES: obs[PLANES].float() / 255.0, MASK: mask.flatten(1)[:, : self._mask_size].float()}

    def _get_samples(self, batch_inds: np.ndarray, env=None):  # noqa: ANN001, ANN202 (SB3's signature)
        samples = super()._get_samples(batch_inds, env) if self.n_steps == 1 else self._n_step_samples(batch_inds)
        return samples._replace(
            observations=self._expand(samples.observations), next_observations=self._expand(samples.next_observations)
        )

    def _n_step_samples(self, batch_inds: np.ndarray) -> DictReplayBufferSamples:
        """n-step transitions starting at ``batch_inds`` (environments drawn at random)."""
        envs = np.random.randint(0, self.n_envs, size=len(batch_inds))
        offsets = np.arange(self.n_steps)
        rows = (batch_inds[:, None] + offsets) % self.buffer_size
        dones, timeouts = self.dones[rows, envs[:, None]], self.timeouts[rows, envs[:, None]]
        # The newest transition ends every sequence: what follows it is older data or nothing.
        stop = (dones > 0) | (timeouts > 0) | (rows == (self.pos - 1) % self.buffer_size)
        last = np.where(stop.any(axis=1), stop.argmax(axis=1), self.n_steps - 1)
        used = offsets <= last[:, None]
        rewards = (self.rewards[rows, envs[:, None]] * self.gamma**offsets * used).sum(axis=1, keepdims=True)
        end = rows[np.arange(len(rows)), last]
        finished = self.dones[end, envs] * (1 - self.timeouts[end, envs])
        return DictReplayBufferSamples(
            observations={key: self.to_torch(store[batch_inds, envs]) for key, store in self.observations.items()},
            actions=self.to_torch(self.actions[batch_inds, envs]),
            next_observations={key: self.to_torch(store[end, envs]) for key, store in self.next_observations.items()},
            dones=self.to_torch(finished.reshape(-1, 1)),
            rewards=self.to_torch(rewards.astype(np.float32)),
            discounts=self.to_torch((self.gamma ** (last + 1)).astype(np.float32).reshape(-1, 1)),
        )

    @staticmethod
    def bytes_per_transition(observation_space: gym.spaces.Dict) -> int:
        """Bytes one transition takes here (observation and next observation, both stored)."""
        planes = int(np.prod(observation_space[PLANES].shape))
        mask = (int(np.prod(observation_space[MASK].shape)) + 7) // 8
        return 2 * (planes + mask) + 8 + 4 + 4 + 4  # + action (int64), reward, done, timeout


def _legal_choice(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (0 where nothing is legal)."""
    masks = np.asarray(masks).reshape(len(masks), -1) > 0
    choices = np.zeros(len(masks), dtype=np.int64)
    for row, mask in enumerate(masks):
        actions = np.flatnonzero(mask)
        if actions.size:
            choices[row] = rng.choice(actions)
    return choices


class MaskableDQN(DQN):
    """SB3's DQN with the legal-action mask applied wherever it picks or scores an action.

    ``game`` is saved with the model, so a checkpoint for another game is refused on load.
    ``double_q``: the TD target scores the online network's best legal move with the target
    network (Double DQN), which curbs the overestimation of a max over noisy values.
    ``n_steps``: n-step returns (see :class:`CompactReplayBuffer`).
    """

    policy_aliases = {**DQN.policy_aliases, "MaskedDQNPolicy": MaskedDQNPolicy}

    def __init__(
        self,
        policy: Any = MaskedDQNPolicy,
        env: Any = None,
        *,
        game: str = "",
        double_q: bool = True,
        n_steps: int = 1,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("replay_buffer_class", CompactReplayBuffer)
        if n_steps > 1:  # SB3 sets n-step returns up only for its own buffers: hand them to ours
            extra = {"n_steps": n_steps, "gamma": kwargs.get("gamma", 0.99)}
            kwargs["replay_buffer_kwargs"] = {**(kwargs.get("replay_buffer_kwargs") or {}), **extra}
        super().__init__(policy, env, **kwargs)
        self.game = game
        self.double_q = double_q
        self._mask_rng = np.random.default_rng(kwargs.get("seed"))

    # place 1: warm-up sampling
    def _sample_action(self, learning_starts: int, action_noise: Any = None, n_envs: int = 1):  # noqa: ANN202
        if self.num_timesteps < learning_starts:
            action = _legal_choice(self._last_obs[MASK], self._mask_rng)
            return action, action
        return super()._sample_action(learning_starts, action_noise, n_envs)

    # place 2: epsilon-greedy exploration (place 3 is the policy's masked argmax)
    def predict(self, observation: Any, state: Any = None, episode_start: Any = None, deterministic: bool = False):  # noqa: ANN201
        if not deterministic and np.random.rand() < self.exploration_rate:
            masks = np.asarray(observation[MASK])
            vectorized = masks.ndim == 2
            action = _legal_choice(masks if vectorized else masks[None], self._mask_rng)
            return (action if vectorized else action[0]), state
        return self.policy.predict(observation, state, episode_start, deterministic)

    # place 4: the target's max over the next observation's legal actions
    def train(self, gradient_steps: int, batch_size: int = 100) -> None:
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        losses = []
        for _ in range(gradient_steps):
            data = self.replay_buffer.sample(batch_size, env=self._vec_normalize_env)
            discounts = data.discounts if getattr(data, "discounts", None) is not None else self.gamma
            with torch.no_grad():
                next_legal = legal(data.next_observations)
                next_q = self.q_net_target(data.next_observations)
                if self.double_q:  # the online network picks the move, the target network scores it
                    best = self.q_net(data.next_observations).masked_fill(~next_legal, -torch.inf).argmax(dim=1)
                    next_q = next_q.gather(1, best[:, None]).expand_as(next_q)
                target_q = masked_max(next_q, next_legal)
                target = data.rewards + (1 - data.dones) * discounts * target_q.reshape(-1, 1)
            current = torch.gather(self.q_net(data.observations), dim=1, index=data.actions.long())
            loss = F.smooth_l1_loss(current, target)
            losses.append(loss.item())
            self.policy.optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/loss", float(np.mean(losses)))

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "_mask_rng"]


def masked_max(q_values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per row, the max Q-value over the legal actions; 0 for rows with none (finished games)."""
    best = q_values.masked_fill(~mask, -torch.inf).max(dim=1).values
    return torch.where(mask.any(dim=1), best, torch.zeros_like(best))


def q_action(policy: BasePolicy, state: GameState) -> int:
    """The greedy legal action of a Q-policy in ``state`` (seen from the side to move)."""
    observation = {PLANES: state.observation()[None], MASK: state.legal_action_mask()[None].astype(np.int8)}
    action, _ = policy.predict(observation, deterministic=True)
    return int(action[0])


# -- checkpoints ---------------------------------------------------------------------------
#
# A checkpoint is one torch file of tensors and plain values, read with weights_only=True, so
# loading it never runs code (SB3's own zip unpickles its "data" entry). Its "meta" entry is
# JSON: game, shapes, network sizes and step, checked before anything is built.

FORMAT = "chess_envs.dqn/1"
LIMITS = {"filters": 1024, "layers": 32, "hidden": 16_384}
"""The largest network sizes a checkpoint may ask for (the presets use 96, 4 and 512)."""


def network_sizes(model: MaskableDQN) -> dict[str, int]:
    """filters, layers and hidden of a model's Q-network."""
    kwargs = model.policy_kwargs
    extractor = kwargs.get("features_extractor_kwargs", {})
    return {
        "filters": int(extractor.get("filters", 64)),
        "layers": int(extractor.get("layers", 3)),
        "hidden": int((kwargs.get("net_arch") or [256])[0]),
    }


def save_model(model: MaskableDQN, path: str | Path) -> Path:
    """Write the model (weights, optimizer, counters; no replay) to ``path`` atomically."""
    space = model.observation_space
    meta = {
        "game": model.game,
        "observation_shape": list(space[PLANES].shape),
        "num_actions": int(model.action_space.n),
        "step": int(model.num_timesteps),
        **network_sizes(model),
    }
    payload = {
        "format": FORMAT,
        "meta": json.dumps(meta),
        "policy": model.policy.state_dict(),
        "optimizer": model.policy.optimizer.state_dict(),
        "counters": {
            "num_timesteps": model.num_timesteps,
            "n_updates": model._n_updates,
            "episodes": model._episode_num,
        },
    }
    return write_atomic(path, lambda handle: torch.save(payload, handle))


def _is_sb3_zip(path: Path) -> bool:
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
    return "data" in names and "policy.pth" in names


def read_checkpoint(path: str | Path, game: str) -> tuple[dict, dict]:
    """(meta, payload) of a checkpoint for ``game``, checked; DQNCheckpointError says what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise DQNCheckpointError(f"no DQN checkpoint at {path}")
    if _is_sb3_zip(path):
        raise DQNCheckpointError(
            f"{path} is a stable-baselines3 zip, whose loading unpickles code from the file; convert it once "
            f"with python -m agents.dqn import-sb3 {path} NEW.pt --trust-pickle, only if you trust where it came from"
        )
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds on a damaged or foreign file
        raise DQNCheckpointError(f"{path} is not a readable DQN checkpoint (corrupt or truncated?): {error}") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise DQNCheckpointError(f"{path} is not a chess_envs DQN checkpoint (format {FORMAT!r} expected)")
    try:
        meta = json.loads(payload["meta"])
        meta_game = meta["game"]
    except (KeyError, TypeError, ValueError) as error:
        raise DQNCheckpointError(f"{path}: its metadata is unreadable ({error})") from None
    if meta_game != game:
        raise DQNCheckpointError(f"{path} was trained on {meta_game!r}, not {game!r}")
    check_meta(meta, game, path)
    return meta, payload


def check_meta(meta: dict, game: str, path: str | Path) -> None:
    """Shapes must be the game's and sizes within LIMITS, before any network is built."""
    prototype = new_state(game)
    if meta.get("observation_shape") != list(prototype.observation_shape) or meta.get("num_actions") != int(
        prototype.num_actions
    ):
        raise DQNCheckpointError(
            f"{path}: observations {meta.get('observation_shape')} and {meta.get('num_actions')} actions do not fit "
            f"{game} ({list(prototype.observation_shape)}, {prototype.num_actions})"
        )
    for name, limit in LIMITS.items():
        value = meta.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= limit:
            raise DQNCheckpointError(f"{path}: network size {name}={value!r} is outside 1..{limit}")


def policy_kwargs(sizes: dict[str, int]) -> dict:
    """SB3 policy keywords for the network sizes of :func:`network_sizes`."""
    return dict(
        features_extractor_kwargs=dict(filters=sizes["filters"], layers=sizes["layers"]), net_arch=[sizes["hidden"]]
    )


def load_policy(path: str | Path, game: str, device: str = "cpu") -> MaskedDQNPolicy:
    """The Q-policy of a checkpoint, in eval mode: what playing needs, built only after the checks."""
    meta, payload = read_checkpoint(path, game)
    env = GameEnv(game)
    policy = MaskedDQNPolicy(env.observation_space, env.action_space, lambda _: 0.0, **policy_kwargs(meta))
    try:
        policy.load_state_dict(payload["policy"])
    except (KeyError, RuntimeError) as error:
        raise DQNCheckpointError(f"{path}: the network in it does not load ({error})") from None
    policy.set_training_mode(False)
    return policy.to(device)


def restore_model(model: MaskableDQN, path: str | Path) -> dict:
    """Load a checkpoint's weights, optimizer and counters into ``model`` (built with the same sizes)."""
    meta, payload = read_checkpoint(path, model.game)
    wanted = network_sizes(model)
    stored = {name: meta[name] for name in wanted}
    if stored != wanted:
        raise DQNCheckpointError(f"{path} holds a network of sizes {stored}, but this run asks for {wanted}")
    try:
        model.policy.load_state_dict(payload["policy"])
        model.policy.optimizer.load_state_dict(payload["optimizer"])
        counters = payload["counters"]
        model.num_timesteps = int(counters["num_timesteps"])
        model._n_updates = int(counters["n_updates"])
        model._episode_num = int(counters["episodes"])
    except (KeyError, TypeError, ValueError, RuntimeError) as error:
        raise DQNCheckpointError(f"{path}: its contents do not fit this model ({error})") from None
    return meta


def import_sb3(source: str | Path, target: str | Path) -> Path:
    """Convert a stable-baselines3 zip of a MaskableDQN into the safe format. This UNPICKLES
    ``source``, which can run any code it holds: call it only on files you trust."""
    source = Path(source)
    if not _is_sb3_zip(source):
        raise DQNCheckpointError(f"{source} is not a stable-baselines3 zip")
    try:
        model = MaskableDQN.load(source, device="cpu")
    except Exception as error:  # SB3 raises many kinds on a damaged archive
        raise DQNCheckpointError(f"{source} is corrupt or not a MaskableDQN checkpoint: {error}") from None
    if model.game not in game_names():
        raise DQNCheckpointError(f"{source} names no known game ({model.game!r})")
    return save_model(model, target)


@register_agent("dqn")
class DQNAgent(AgentBase):
    """A trained MaskableDQN playing greedily: ``dqn:PATH`` (a checkpoint in the safe format)."""

    def __init__(self, game: str, path: str | None = None, device: str = "cpu") -> None:
        if path is None:
            raise ValueError("the dqn agent needs a checkpoint: dqn:PATH")
        self.name = "dqn"
        try:
            self.policy = load_policy(path, game, device=check_device(device))
        except DQNCheckpointError as error:
            raise AgentError(str(error)) from None

    def reset(self, seed: int | None = None) -> None:
        """A greedy DQN has no memory and no randomness."""

    def select_action(self, state: GameState) -> int:
        return q_action(self.policy, state)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m agents.dqn", description="DQN checkpoint tools.")
    commands = parser.add_subparsers(dest="command", required=True)
    convert = commands.add_parser("import-sb3", help="convert a stable-baselines3 zip into the safe format")
    convert.add_argument("source", help="the SB3 zip (it is unpickled: it can run code)")
    convert.add_argument("target", help="where to write the safe checkpoint")
    convert.add_argument("--trust-pickle", action="store_true", help="required: you trust the source file")
    args = parser.parse_args(argv)
    if not args.trust_pickle:
        parser.exit(2, "error: an SB3 zip can run code when loaded; pass --trust-pickle if you trust this file\n")
    try:
        path = import_sb3(args.source, args.target)
    except (DQNCheckpointError, OSError) as error:
        parser.exit(2, f"error: {error}\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
