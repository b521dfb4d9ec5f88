"""Saving and restoring a DQN run: the model in the safe checkpoint format of :mod:`chess_envs.agents.dqn`
(weights, optimizer, counters; never unpickled), its replay buffer, and the manifest that pairs
them; plus the one-off conversion of a stable-baselines3 zip.

    chess-envs import-sb3 OLD.zip NEW.pt --trust-pickle

A run's ``checkpoints/`` holds the model and the replay buffer of one step (``model_<step>.pt``,
``replay_<step>.npz``), the ``manifest.json`` that names them, and ``last.pt`` to play with.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import gymnasium as gym
import numpy as np
import torch

from chess_envs.agents.dqn import FORMAT, MASK, PLANES, DQNCheckpointError, _is_sb3_zip, read_checkpoint
from chess_envs.files import ctrl_c_deferred, write_atomic, write_text_atomic
from chess_envs.registry import game_names
from chess_envs.train.dqn.learner import CompactReplayBuffer, MaskableDQN

RUN_FORMAT = "chess_envs.dqn-run/1"
MANIFEST = "manifest.json"
COUNTERS = {"num_timesteps": "num_timesteps", "n_updates": "_n_updates", "episodes": "_episode_num"}
"""a checkpoint's counters -> the model's attributes that hold them"""


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
    space = cast(gym.spaces.Dict, model.observation_space)
    meta = {
        "game": model.game,
        "observation_shape": list(cast(tuple[int, ...], space[PLANES].shape)),
        "num_actions": int(cast(gym.spaces.Discrete, model.action_space).n),
        "step": int(model.num_timesteps),
        **network_sizes(model),
    }
    payload = {
        "format": FORMAT,
        "meta": json.dumps(meta),
        "policy": model.policy.state_dict(),
        "optimizer": model.policy.optimizer.state_dict(),
        "counters": {key: getattr(model, name) for key, name in COUNTERS.items()},
    }
    return write_atomic(path, lambda handle: torch.save(payload, handle))


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
        for key, name in COUNTERS.items():
            setattr(model, name, int(payload["counters"][key]))
    except (KeyError, TypeError, ValueError, RuntimeError) as error:
        raise DQNCheckpointError(f"{path}: its contents do not fit this model ({error})") from None
    return meta


MOVED = {
    "agents": "chess_envs.agents",
    "agents.dqn": "chess_envs.agents.dqn",
    "train": "chess_envs.train",
    "train.dqn_learner": "chess_envs.train.dqn.learner",
}
"""module names an SB3 zip of 0.3 pickled (its policy and feature extractor classes) -> today's"""


_RENAMING = threading.Lock()


@contextlib.contextmanager
def _old_module_names() -> Iterator[None]:
    """While unpickling an SB3 zip (one at a time): 0.3's module names (:data:`MOVED`) are today's
    modules, in place of whatever the process had under those names (a user's own ``train``), which
    come back after; names below them that the load added go again."""
    with _RENAMING:
        before = dict(sys.modules)
        try:
            sys.modules.update({old: importlib.import_module(new) for old, new in MOVED.items()})
            yield
        finally:
            for name in [n for n in sys.modules if n.split(".")[0] in ("agents", "train") and n not in before]:
                del sys.modules[name]
            sys.modules.update({old: before[old] for old in MOVED if old in before})


def import_sb3(source: str | Path, target: str | Path) -> Path:
    """Convert a stable-baselines3 zip of a MaskableDQN into the safe format. This UNPICKLES
    ``source``, which can run any code it holds: call it only on files you trust."""
    source = Path(source)
    if not _is_sb3_zip(source):
        raise DQNCheckpointError(f"{source} is not a stable-baselines3 zip")
    try:
        with _old_module_names():
            model = MaskableDQN.load(source, device="cpu")
    except Exception as error:  # SB3 raises many kinds on a damaged archive
        raise DQNCheckpointError(f"{source} is corrupt or not a MaskableDQN checkpoint: {error}") from None
    if model.game not in game_names():
        raise DQNCheckpointError(f"{source} names no known game ({model.game!r})")
    return save_model(model, target)


def _replay_arrays(buffer: CompactReplayBuffer) -> dict[str, np.ndarray]:
    """The buffer's storage, by the names its file uses."""
    return {
        "observation": buffer.observations[PLANES],
        "action_mask": buffer.observations[MASK],
        "next_observation": buffer.next_observations[PLANES],
        "next_action_mask": buffer.next_observations[MASK],
        "actions": buffer.actions,
        "rewards": buffer.rewards,
        "dones": buffer.dones,
        "timeouts": buffer.timeouts,
    }


def save_replay(buffer: CompactReplayBuffer, path: Path, step: int) -> Path:
    """The replay buffer as an ``.npz`` of plain arrays (loaded without pickle), written atomically."""
    arrays = {**_replay_arrays(buffer), "position": np.array([buffer.pos, int(buffer.full), step], dtype=np.int64)}
    return write_atomic(path, lambda handle: np.savez(handle, **arrays))  # type: ignore[arg-type]


def load_replay(buffer: CompactReplayBuffer, path: Path) -> int:
    """Fill ``buffer`` from :func:`save_replay`'s file, checking every shape; returns the file's step."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in (*_replay_arrays(buffer), "position")}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise DQNCheckpointError(f"{path} is not a readable replay file: {error}") from None
    targets = _replay_arrays(buffer)
    for key, target in targets.items():
        if arrays[key].shape != target.shape or arrays[key].dtype != target.dtype:
            raise DQNCheckpointError(
                f"{path}: {key} is {arrays[key].dtype}{list(arrays[key].shape)}, this run's buffer holds "
                f"{target.dtype}{list(target.shape)} (another --buffer-size or --envs?)"
            )
    position, full, step = (int(v) for v in arrays["position"])
    if not 0 <= position < buffer.buffer_size:
        raise DQNCheckpointError(f"{path}: position {position} is outside the buffer")
    for key, target in targets.items():
        target[...] = arrays[key]
    buffer.pos, buffer.full = position, bool(full)
    return step


def save_run(model: MaskableDQN, run_dir: Path) -> Path:
    """Model and replay as one unit: both files are named by their step, then ``manifest.json``,
    which names them, is renamed into place last. A kill at any moment leaves the previous
    manifest and its files, or the new ones. ``last.pt``, for playing, is a copy of the model."""
    folder = run_dir / "checkpoints"
    step = model.num_timesteps
    model_file, replay_file = f"model_{step:010d}.pt", f"replay_{step:010d}.npz"
    with ctrl_c_deferred():  # Ctrl-C waits for the whole save, ``last.pt`` included
        save_model(model, folder / model_file)
        save_replay(cast(CompactReplayBuffer, model.replay_buffer), folder / replay_file, step)
        manifest = {"format": RUN_FORMAT, "step": step, "model": model_file, "replay": replay_file}
        write_text_atomic(folder / MANIFEST, json.dumps(manifest, indent=2))
        last = folder / "last.pt"
        write_atomic(last, lambda handle: handle.write((folder / model_file).read_bytes()))
        for old in [*folder.glob("model_*.pt"), *folder.glob("replay_*.npz")]:
            if old.name not in (model_file, replay_file):
                old.unlink(missing_ok=True)
    return last


def read_manifest(folder: Path) -> dict:
    """The checkpoint manifest of a run, checked: it names a model and a replay file of one step."""
    path = folder / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        names = (manifest["model"], manifest["replay"])
        step = manifest["step"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DQNCheckpointError(f"{path} is not a readable manifest: {error}") from None
    if manifest.get("format") != RUN_FORMAT or not isinstance(step, int):
        raise DQNCheckpointError(f"{path} is not a chess_envs DQN run manifest")
    for name in names:
        if not isinstance(name, str) or Path(name).name != name or not (folder / name).is_file():
            raise DQNCheckpointError(f"{path} names {name!r}, which is not a file in {folder}")
    return manifest


def restore_run(model: MaskableDQN, run_dir: Path) -> None:
    """Load the manifest's model and replay into ``model``; refuse a pair from different steps."""
    folder = run_dir / "checkpoints"
    manifest = read_manifest(folder)
    meta = restore_model(model, folder / manifest["model"])
    replay_step = load_replay(cast(CompactReplayBuffer, model.replay_buffer), folder / manifest["replay"])
    if not meta["step"] == replay_step == manifest["step"]:
        raise DQNCheckpointError(
            f"{folder}: the manifest says step {manifest['step']}, its model is from step {meta['step']} and its "
            f"replay from step {replay_step}; they must be one save"
        )


def parser() -> argparse.ArgumentParser:
    """``chess-envs import-sb3 OLD.zip NEW.pt --trust-pickle``'s command line."""
    convert = argparse.ArgumentParser(
        prog="chess-envs import-sb3", description="Convert a stable-baselines3 zip into the safe DQN format."
    )
    convert.add_argument("source", help="the SB3 zip (it is unpickled: it can run code)")
    convert.add_argument("target", help="where to write the safe checkpoint")
    convert.add_argument("--trust-pickle", action="store_true", help="required: you trust the source file")
    return convert


def main(argv: list[str] | None = None) -> None:
    convert = parser()
    args = convert.parse_args(argv)
    if not args.trust_pickle:
        convert.exit(2, "error: an SB3 zip can run code when loaded; pass --trust-pickle if you trust this file\n")
    try:
        path = import_sb3(args.source, args.target)
    except (DQNCheckpointError, OSError) as error:
        convert.exit(2, f"error: {error}\n")
    print(f"wrote {path}")
