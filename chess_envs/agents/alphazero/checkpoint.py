"""AlphaZero checkpoint files: one file per save, written atomically, read with ``weights_only=True``.

A checkpoint is a dict of tensors and plain Python values (no pickled classes), so it loads
with ``torch.load(weights_only=True)``. ``format`` identifies it; ``game`` guards against
playing a network on the wrong board.
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path

import torch

from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig
from chess_envs.agents.shipped import checkpoint_path
from chess_envs.files import CheckpointError, write_atomic
from chess_envs.registry import new_state

FORMAT = "chess_envs.alphazero/1"


def save_checkpoint(path: str | Path, payload: dict) -> None:
    """Write ``payload`` (plus the format tag) to a temporary file, then rename it over ``path``."""
    payload = {**payload, "format": FORMAT}
    write_atomic(path, lambda handle: torch.save(payload, handle))


def load_checkpoint(path: str | Path, game: str | None = None, map_location: str | torch.device = "cpu") -> dict:
    """Read a checkpoint safely (``path`` a file, or ``@<game>`` for a shipped network);
    CheckpointError says what is wrong with a bad one."""
    try:
        path = checkpoint_path(path)
    except ValueError as error:
        raise CheckpointError(str(error)) from None
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {path}")
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, zipfile.BadZipFile, ValueError, OSError) as error:
        raise CheckpointError(f"{path} is not a readable checkpoint (corrupt or truncated?): {error}") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a chess_envs AlphaZero checkpoint (format {FORMAT!r} expected)")
    if game is not None and payload.get("game") != game:
        raise CheckpointError(f"{path} was trained on {payload.get('game')!r}, not {game!r}")
    return payload


def load_network(
    path: str | Path, game: str | None = None, device: str | torch.device = "cpu"
) -> tuple[AlphaZeroNet, dict]:
    """The network of a checkpoint, in eval mode on ``device``, and the whole payload."""
    payload = load_checkpoint(path, game, map_location=device)
    try:
        config = NetworkConfig.from_file(payload.get("network"))
    except ValueError as error:
        raise CheckpointError(f"{path}: {error}") from None
    if game is not None:
        prototype = new_state(game)
        shape = (config.in_channels, config.height, config.width)
        if shape != tuple(prototype.observation_shape) or config.num_actions != prototype.num_actions:
            raise CheckpointError(
                f"{path}: a network for planes {shape} and {config.num_actions} actions does not fit {game} "
                f"({tuple(prototype.observation_shape)}, {prototype.num_actions})"
            )
    try:
        network = AlphaZeroNet(config)
        network.load_state_dict(payload["model"])
    except (KeyError, TypeError, RuntimeError) as error:
        raise CheckpointError(f"{path}: the network in it does not load ({error})") from None
    return network.to(device).eval(), payload


def export_model(source: str | Path, target: str | Path) -> None:
    """Write a small checkpoint holding only what playing needs: game, network shape, weights,
    and the training counters (no optimizer or replay buffer)."""
    payload = load_checkpoint(source)
    keep = {key: payload[key] for key in ("game", "network", "model", "distilled_from") if key in payload}
    keep["counters"] = payload.get("counters", {})
    keep.update({key: payload[key] for key in ("config", "args") if key in payload})  # the run's settings (0.2: args)
    save_checkpoint(target, keep)
