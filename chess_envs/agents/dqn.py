"""The DQN baseline's player: a Q-network that never scores an illegal move, its safe checkpoint
format, and the ``dqn:PATH`` agent.

The Q-network reads the planes through :class:`PlanesExtractor` (a small CNN that ignores the
mask key), scores moves with a :class:`DuelingHead`, and picks the argmax over legal moves only
(:class:`MaskedQNetwork`). The learner that trains it (stable-baselines3's DQN with the mask
applied wherever it picks or scores an action) is ``chess_envs/train/dqn/learner.py``.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.policies import BasePolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.dqn.policies import DQNPolicy, QNetwork
from torch import nn

from chess_envs.agents.base import AgentBase, AgentError, check_device, register_agent
from chess_envs.core import GameState
from chess_envs.fields import arg
from chess_envs.gym_env import GameEnv
from chess_envs.registry import new_state

PLANES, MASK = "observation", "action_mask"


class DQNCheckpointError(ValueError):
    """A DQN checkpoint that cannot be used: unreadable, corrupt, or for another game."""


class PlanesExtractor(BaseFeaturesExtractor):
    """A stack of 3x3 convolutions over the observation planes (the mask is not an input).

    Its features are the last convolution's planes, flattened: ``filters * H * W`` numbers that
    :class:`DuelingHead` reads both square by square and as a whole.
    """

    def __init__(self, observation_space: gym.spaces.Dict, filters: int = 64, layers: int = 3) -> None:
        channels, height, width = cast(tuple[int, int, int], observation_space[PLANES].shape)
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
        self.advantage: nn.Module
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
        _, height, width = cast(tuple[int, int, int], observation_space[PLANES].shape)
        filters = features_dim // (height * width)
        # SB3 declares q_net a Sequential; the dueling head takes its place.
        self.q_net = DuelingHead(filters, height, width, int(action_space.n), self.net_arch[0])  # type: ignore[assignment]

    def _predict(self, observation: torch.Tensor | dict[str, torch.Tensor], deterministic: bool = True) -> torch.Tensor:
        observation = cast(dict[str, torch.Tensor], observation)  # the envs' observations are dicts
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
            f"with chess-envs import-sb3 {path} NEW.pt --trust-pickle, only if you trust where it came from"
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
    shape, actions = list(prototype.observation_shape), int(prototype.num_actions)
    if meta.get("observation_shape") != shape or meta.get("num_actions") != actions:
        raise DQNCheckpointError(
            f"{path}: observations {meta.get('observation_shape')} and {meta.get('num_actions')} actions do not fit "
            f"{game} ({shape}, {actions})"
        )
    for name, limit in LIMITS.items():
        value = meta.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= limit:
            raise DQNCheckpointError(f"{path}: network size {name}={value!r} is outside 1..{limit}")


def policy_kwargs(sizes: dict[str, int]) -> dict:
    """SB3 policy keywords for the network sizes of :func:`chess_envs.train.dqn.checkpoint.network_sizes`."""
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


@dataclass
class DQNOptions:
    """The ``dqn`` agent's one option."""

    device: str = arg("cpu", "torch device: cpu, cuda[:N] or auto")


@register_agent("dqn", DQNOptions)
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
