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

from dataclasses import asdict, dataclass

import torch
from torch import nn


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

    def to_dict(self) -> dict:
        return asdict(self)


def _conv_block(in_channels: int, out_channels: int, kernel: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, kernel, padding=kernel // 2, bias=False),
        nn.BatchNorm2d(out_channels),
        nn.GELU(),
    )


class ResidualBlock(nn.Module):
    def __init__(self, filters: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(filters)
        self.conv2 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(filters)
        self.act = nn.GELU()

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
        self.stem = _conv_block(config.in_channels, config.filters, 3)
        self.trunk = nn.Sequential(*(ResidualBlock(config.filters) for _ in range(config.blocks)))
        self.move_types = config.num_actions // squares if config.num_actions % squares == 0 else 0
        if self.move_types:
            self.policy = nn.Sequential(
                _conv_block(config.filters, config.filters, 3), nn.Conv2d(config.filters, self.move_types, 1)
            )
        else:
            self.policy = nn.Sequential(
                _conv_block(config.filters, 2, 1), nn.Flatten(), nn.Linear(2 * squares, config.num_actions)
            )
        self.value = nn.Sequential(
            _conv_block(config.filters, 1, 1),
            nn.Flatten(),
            nn.Linear(squares, config.value_hidden),
            nn.GELU(),
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


def resolve_device(device: str = "auto") -> torch.device:
    """``"auto"``: CUDA when present, else the CPU; otherwise the named device."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)
