"""The sections of a trainer of AlphaZero networks (self-play and distillation): the network's shape,
its optimizer, and the network they describe."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, cast

import torch
from torch import nn

from chess_envs.agents.alphazero.checkpoint import load_checkpoint, load_network
from chess_envs.agents.alphazero.network import LIMITS as NETWORK_LIMITS
from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig
from chess_envs.registry import get_game, new_state
from chess_envs.train.config import C, arg


@dataclass
class NetworkSection:
    """The AlphaZero network's shape (its input and output sizes come from the game)."""

    filters: int = arg(48, "convolution filters", low=1, high=NETWORK_LIMITS["filters"])
    blocks: int = arg(7, "residual blocks", low=1, high=NETWORK_LIMITS["blocks"])
    value_hidden: int = arg(128, "hidden units of the value head", low=1, high=NETWORK_LIMITS["value_hidden"])
    activation: str = arg("gelu", "gelu or relu (faster on a CPU)", choices=("gelu", "relu"))
    init: str = arg("", "a checkpoint whose network starts the run (its shape replaces the fields above)")
    grow_blocks: int = arg(
        0,
        "residual blocks added after --init's (a relu network): each starts as the identity, so the grown "
        "network plays exactly as --init until it learns",
        low=0,
        high=NETWORK_LIMITS["blocks"] - 1,
    )


@dataclass
class OptimizerSection:
    """How the network learns: optimizer, peak learning rate and its schedule, batch size."""

    optimizer: str = arg("adamw", "adamw, or sgd (momentum 0.9, Nesterov)", choices=("adamw", "sgd"))
    learning_rate: float = arg(2e-3, "peak learning rate", above=0)
    weight_decay: float = arg(1e-4, "weight decay (decoupled with adamw)", low=0)
    lr_schedule: str = arg(
        "cosine",
        "cosine (to 1/20 over total_steps, or over --minutes when sooner) or constant",
        choices=("cosine", "constant"),
    )
    total_steps: int = arg(20_000, "learner steps the run (and the schedule) spans", low=1)
    batch_size: int = arg(256, "positions per learner step", low=1, high=65_536)


SHAPE = ("filters", "blocks", "value_hidden", "activation")
"""the network section's fields that are the network's shape (``--init`` takes its checkpoint's)"""


def game_options(config: Any) -> dict[str, Any]:
    """A run's ``--game-options`` (``mode=teams``) as the registry's checked values, ``{"mode": "teams"}``
    (a trainer without the setting: none); ValueError naming a bad one."""
    options = {}
    for item in filter(None, getattr(config, "game_options", "").split(",")):
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--game-options: expected name=value, got {item!r}")
        options[name.strip()] = value.strip()
    return get_game(config.game).check_options(options)


def network_config(config: Any) -> NetworkConfig:
    """The network of a run whose config has a run and a network section: input and output sizes
    from the game (one value for two players, one per seat otherwise), whether its values are
    learned as Teams results (``--game-options mode=teams``), the rest from the section."""
    prototype = new_state(config.game, **game_options(config))
    return NetworkConfig(
        *prototype.observation_shape,
        num_actions=prototype.num_actions,
        value_size=1 if prototype.num_players == 2 else prototype.num_players,
        teams=prototype.teams is not None,
        **{name: getattr(config, name) for name in SHAPE},
    )


def take_init_shape(config: C) -> C:
    """With ``--init``, the config (one with a ``network`` section) with the network shape of that
    checkpoint, so its weights fit."""
    run: Any = config  # any trainer's config: a run section (game) and a network section (init)
    if not run.init:
        if run.grow_blocks:
            raise ValueError("--grow-blocks adds blocks to a network: give the network with --init")
        return config
    shape = NetworkConfig.from_file(load_checkpoint(run.init, run.game).get("network"))
    if run.grow_blocks and shape.activation != "relu":
        raise ValueError(
            f"--grow-blocks needs a relu network (a {shape.activation} block cannot start as the identity)"
        )
    if shape.blocks + run.grow_blocks > NETWORK_LIMITS["blocks"]:
        raise ValueError(f"{shape.blocks} + {run.grow_blocks} blocks is more than {NETWORK_LIMITS['blocks']}")
    network = dataclasses.replace(run.network, **{name: getattr(shape, name) for name in SHAPE})
    network.blocks += run.grow_blocks
    return cast(C, dataclasses.replace(run, network=network))


def new_network(config: Any, device: torch.device) -> AlphaZeroNet:
    """The run's network on ``device`` (channels-last: a los_alamos preset step takes 0.079 s
    instead of 0.094 s on a CPU), with the weights of ``--init`` when given (and ``--grow-blocks``
    identity blocks after its trunk)."""
    network = AlphaZeroNet(network_config(config)).to(device, memory_format=torch.channels_last)  # type: ignore[call-overload]
    if config.init:  # a resumed run then loads its own checkpoint over these weights
        start = load_network(config.init, config.game)[0]
        network.load_state_dict(start.state_dict(), strict=not config.grow_blocks)
        for block in network.trunk[len(start.trunk) :]:  # y = bn2(...) = 0, and relu(x + 0) = x as x >= 0
            nn.init.zeros_(block.bn2.weight)
            nn.init.zeros_(block.bn2.bias)
    return network
