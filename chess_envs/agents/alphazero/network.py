"""The AlphaZero ResNet: a convolutional trunk with a policy head and a value head.

Input ``[B, C, H, W]`` float planes (a game's ``observation()``); outputs policy logits
``[B, num_actions]`` over the game's actions and values ``[B, value_size]`` in [-1, 1]. For two
players the value is the mover's expected outcome (``value_size = 1``); for more players it is
one value per seat counted from the mover (index 0 = the mover).

When ``num_actions`` is a multiple of ``H * W`` (AlphaZero's "from-square x move type"
layouts, action ``square * types + type``) the policy head is convolutional: a 1x1 convolution
to ``types`` planes read out square by square. Otherwise it ends in a linear layer.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

from chess_envs.agents.base import check_device


@dataclass
class NetworkConfig:
    """Sizes of the network; ``in_channels``, ``height``, ``width`` and ``num_actions`` come from the game."""

    in_channels: int
    height: int
    width: int
    num_actions: int
    value_size: int = 1
    filters: int = 48
    blocks: int = 7
    value_hidden: int = 128
    activation: str = "gelu"
    """``gelu`` (the seed's) or ``relu`` (about 1.4x faster on a CPU; see benchmarks/inference_speed.py)"""
    teams: bool = False
    """four-player: its values were learned from Teams games (partners share one result), not as
    Free-For-All placements; :func:`team_values` reads them accordingly"""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_file(cls, values: object) -> NetworkConfig:
        """A config read from a file, checked before anything is allocated: every size an integer
        within LIMITS and the parameters at most MAX_PARAMETERS. ValueError says what is wrong."""
        if (
            not isinstance(values, dict)
            or set(values) - set(LIMITS) - {"activation", "teams"}
            or not {"in_channels", "num_actions"} <= set(values)
        ):
            raise ValueError(f"a network config needs the keys {sorted(LIMITS)}, got {values!r}")
        values = dict(values)
        activation = values.pop("activation", "gelu")
        if activation not in ACTIVATIONS:
            raise ValueError(f"network activation {activation!r} is not one of {sorted(ACTIVATIONS)}")
        teams = values.pop("teams", False)
        if not isinstance(teams, bool):
            raise ValueError(f"network teams must be true or false, got {teams!r}")
        for name, value in values.items():
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= LIMITS[name]:
                raise ValueError(f"network size {name}={value!r} is outside 1..{LIMITS[name]}")
        config = cls(**values, activation=activation, teams=teams)
        if config.parameters() > MAX_PARAMETERS:
            raise ValueError(
                f"the network would have {config.parameters():,} parameters, more than the {MAX_PARAMETERS:,} allowed"
            )
        return config

    def parameters(self) -> int:
        """An upper bound on the network's weights from the sizes alone (both policy head kinds counted)."""
        f, squares = self.filters, self.height * self.width
        conv = lambda c_in, c_out, k: c_in * c_out * k * k + 4 * c_out  # noqa: E731  (with BatchNorm)
        trunk = conv(self.in_channels, f, 3) + self.blocks * 2 * conv(f, f, 3)
        policy = (
            conv(f, f, 3) + f * self.num_actions // max(squares, 1) + conv(f, 2, 1) + 2 * squares * self.num_actions
        )
        value = conv(f, 1, 1) + squares * self.value_hidden + self.value_hidden * (self.value_size + 1)
        return trunk + policy + value


LIMITS = {
    "in_channels": 2_048,
    "height": 64,
    "width": 64,
    "num_actions": 100_000,
    "value_size": 8,
    "filters": 1_024,
    "blocks": 64,
    "value_hidden": 8_192,
}
"""The largest sizes a checkpoint may ask for."""
MAX_PARAMETERS = 200_000_000
"""At most 800 MB of float32 weights: far above any network this project trains."""


ACTIVATIONS = {"gelu": nn.GELU, "relu": nn.ReLU}


def _conv_block(in_channels: int, out_channels: int, kernel: int, activation: str) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, kernel, padding=kernel // 2, bias=False),
        nn.BatchNorm2d(out_channels),
        ACTIVATIONS[activation](),
    )


class ResidualBlock(nn.Module):
    def __init__(self, filters: int, activation: str) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(filters)
        self.conv2 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(filters)
        self.act = ACTIVATIONS[activation]()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.act(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.act(x + y)


class AlphaZeroNet(nn.Module):
    """ResNet with policy and value heads (the Los Alamos seed's layout, sized by NetworkConfig)."""

    def __init__(self, config: NetworkConfig) -> None:
        super().__init__()
        self.config = config
        squares = config.height * config.width
        if config.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {config.activation!r}")
        act = config.activation
        self.stem = _conv_block(config.in_channels, config.filters, 3, act)
        self.trunk = nn.Sequential(*(ResidualBlock(config.filters, act) for _ in range(config.blocks)))
        self.move_types = config.num_actions // squares if config.num_actions % squares == 0 else 0
        if self.move_types:
            self.policy = nn.Sequential(
                _conv_block(config.filters, config.filters, 3, act), nn.Conv2d(config.filters, self.move_types, 1)
            )
        else:
            self.policy = nn.Sequential(
                _conv_block(config.filters, 2, 1, act), nn.Flatten(), nn.Linear(2 * squares, config.num_actions)
            )
        self.value = nn.Sequential(
            _conv_block(config.filters, 1, 1, act),
            nn.Flatten(),
            nn.Linear(squares, config.value_hidden),
            ACTIVATIONS[act](),
            nn.Linear(config.value_hidden, config.value_size),
            nn.Tanh(),
        )

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``[B, C, H, W]`` -> (policy logits ``[B, num_actions]``, values ``[B, value_size]``)."""
        expected = (self.config.in_channels, self.config.height, self.config.width)
        if planes.dim() != 4 or tuple(planes.shape[1:]) != expected:
            raise ValueError(f"expected planes of shape [B, {', '.join(map(str, expected))}], got {list(planes.shape)}")
        x = self.trunk(self.stem(planes))
        logits = self.policy(x)
        if self.move_types:
            # [B, types, H, W] -> [B, H, W, types] -> action = square * types + type
            logits = logits.permute(0, 2, 3, 1).reshape(planes.shape[0], -1)
        return logits, self.value(x)


def fused_for_inference(network: AlphaZeroNet) -> AlphaZeroNet:
    """A copy in eval mode with every BatchNorm folded into the convolution before it: the same
    outputs for one pass less over each activation (for search, never for training)."""
    fused = copy.deepcopy(network).eval()
    for module in fused.modules():
        if isinstance(module, ResidualBlock):
            module.conv1, module.bn1 = fuse_conv_bn_eval(module.conv1, module.bn1), nn.Identity()  # type: ignore[assignment]
            module.conv2, module.bn2 = fuse_conv_bn_eval(module.conv2, module.bn2), nn.Identity()  # type: ignore[assignment]
        elif isinstance(module, nn.Sequential):
            for i in range(len(module) - 1):
                conv, norm = module[i], module[i + 1]
                if isinstance(conv, nn.Conv2d) and isinstance(norm, nn.BatchNorm2d):
                    module[i], module[i + 1] = fuse_conv_bn_eval(conv, norm), nn.Identity()
    return fused


def resolve_device(device: str = "auto") -> torch.device:
    """``"auto"``: CUDA when present, else the CPU; otherwise the named device, which must exist here."""
    if check_device(device) == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def team_values(values: np.ndarray, learned_as_teams: bool = False) -> np.ndarray:
    """Per-seat values ``[B, 4]`` (relative seats: 0 the mover, 2 its partner) read for Teams, so
    partners share one value and maximise it together. A network that learned Teams predicts each
    seat's team result (``v, -v, v, -v``): the mean of the four estimates of the mover's team's.
    An FFA network predicts placements: its team's mean value less the other team's."""
    lead = (values[:, 0] + values[:, 2] - values[:, 1] - values[:, 3]) / (4 if learned_as_teams else 2)
    return np.stack([lead, -lead, lead, -lead], axis=1)
