"""A replay buffer of self-play positions in compact form, stored as appended chunks.

Planes are stored as uint8 (value * 255, exact for the 0/1 planes, 1/255 steps for the
counters), policy targets sparsely (the searched actions and their probabilities, float16),
one value target per seat counted from the mover, and the weight version that played it (the
learner step whose weights the search used; -1 where unknown: stores written before 0.4 and the
four-player teacher's games). In memory the buffer is a ring: the
position added ``seq``-th (from 0) sits at row ``seq % capacity``.

On disk (:meth:`ReplayBuffer.save`, :meth:`ReplayBuffer.load`) it is a folder of chunks, so a save
writes only the positions added since the last one::

    replay/chunk_<first seq, 12 digits>.npz   positions [first, first + count): plain arrays, no pickle
    replay/index.json                         {"format", "added", "shapes", "chunks": [{"file", "first", "count"}]}

A store of format 2 (before weight versions) is read as it is, its positions of version -1; the
next save writes the index as format 3 and its new chunks with versions.

Each chunk is written atomically before the index that names it, and the index is replaced
atomically: a kill at any moment leaves the previous index and its chunks. Chunks whose
positions have all left the ring are dropped from the index, then deleted. A run folder of
0.2 (one ``replay.npz`` of the whole ring, rewritten at every save) is read by ``load`` and
becomes a chunk at the next save.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from chess_envs.files import remove_stale_temporaries, write_atomic, write_text_atomic
from chess_envs.search.protocol import quantize_planes

ARRAYS = ("planes", "policy_actions", "policy_probs", "values", "versions")
OPTIONAL = {"versions": -1}
"""Arrays a chunk of an older store may lack, and the value their positions take then."""
FORMAT = "chess_envs.replay/3"
READABLE = ("chess_envs.replay/2", FORMAT)
INDEX = "index.json"
LEGACY_FILE = "replay.npz"
"""The 0.2 replay file, in the run folder beside ``replay/``."""


class ReplayError(ValueError):
    """A replay store that cannot be read into this buffer (the message says why)."""


class ReplayBuffer:
    """The last ``capacity`` positions added; shapes per position: planes ``planes_shape`` (uint8),
    policy ``[max_actions]`` actions (int32, -1 padded) and probabilities (float16), values ``[value_size]``,
    and the weight version of each (int64)."""

    def __init__(self, capacity: int, planes_shape: tuple[int, ...], value_size: int, max_actions: int = 64) -> None:
        self.capacity = capacity
        self.max_actions = max_actions
        self.planes = np.zeros((capacity, *planes_shape), dtype=np.uint8)
        self.policy_actions = np.full((capacity, max_actions), -1, dtype=np.int32)
        self.policy_probs = np.zeros((capacity, max_actions), dtype=np.float16)
        self.values = np.zeros((capacity, value_size), dtype=np.float32)
        self.versions = np.full(capacity, -1, dtype=np.int64)
        self.added = 0
        self.saved = 0
        """Positions (counted like ``added``) already in the store on disk."""

    @property
    def size(self) -> int:
        return min(self.added, self.capacity)

    @property
    def position(self) -> int:
        """The row the next position goes to."""
        return self.added % self.capacity

    def __len__(self) -> int:
        return self.size

    def add(
        self, planes: np.ndarray, actions: np.ndarray, probs: np.ndarray, value: np.ndarray, version: int = -1
    ) -> None:
        """One position: float planes, the policy target over ``actions``, the value target, the
        weight version that played it."""
        i = self.position
        self.planes[i] = quantize_planes(planes)
        if len(actions) > self.max_actions:  # keep the most visited actions, renormalised
            keep = np.argsort(-probs)[: self.max_actions]
            actions, probs = actions[keep], probs[keep] / probs[keep].sum()
        padding = (0, self.max_actions - len(actions))
        self.policy_actions[i] = np.pad(actions, padding, constant_values=-1)
        self.policy_probs[i] = np.pad(probs, padding)
        self.values[i] = value
        self.versions[i] = version
        self.added += 1

    def sample(self, batch_size: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        """(planes float32, policy actions, policy probs float32, values) of a uniform batch."""
        index = rng.integers(self.size, size=batch_size)
        planes = self.planes[index].astype(np.float32) / 255.0
        return planes, self.policy_actions[index], self.policy_probs[index].astype(np.float32), self.values[index]

    def _shapes(self) -> dict[str, list[int]]:
        return {name: list(getattr(self, name).shape[1:]) for name in ARRAYS}

    # -- the store on disk ---------------------------------------------------------------------

    def save(self, folder: str | Path) -> int:
        """Append the positions added since the last save to the store in ``folder``; returns the bytes written."""
        folder = Path(folder)
        index = read_index(folder) if (folder / INDEX).exists() else _new_index(self._shapes())
        index["format"], index["shapes"] = FORMAT, self._shapes()  # a format-2 store's chunks lack versions only
        first = max(self.saved, self.added - self.capacity)
        written = 0
        if first < self.added:
            rows = np.arange(first, self.added) % self.capacity
            name = f"chunk_{first:012d}.npz"
            arrays = {array: getattr(self, array)[rows] for array in ARRAYS}
            path = write_atomic(folder / name, lambda handle: np.savez(handle, **arrays))
            written += path.stat().st_size
            kept = [{**c, "count": min(c["count"], first - c["first"])} for c in index["chunks"] if c["first"] < first]
            index["chunks"] = [*kept, {"file": name, "first": first, "count": self.added - first}]
        oldest = self.added - self.capacity
        index["chunks"] = [c for c in index["chunks"] if c["first"] + c["count"] > oldest]
        index["added"] = self.added
        text = json.dumps(index, indent=1)
        write_text_atomic(folder / INDEX, text)
        written += len(text)
        _remove_unlisted(folder, index)
        (folder.parent / LEGACY_FILE).unlink(missing_ok=True)  # its positions are in the store now
        self.saved = self.added
        return written

    def load(self, folder: str | Path, added: int | None = None) -> None:
        """Fill the buffer from the store in ``folder`` (or the 0.2 ``replay.npz`` beside it) as it
        was when ``added`` positions had been added (default: all it holds; a checkpoint passes its
        own count, so positions saved after that checkpoint are not used). ReplayError says why a
        store does not fit."""
        folder = Path(folder)
        if not (folder / INDEX).exists() and (folder.parent / LEGACY_FILE).exists():
            self._load_legacy(folder.parent / LEGACY_FILE, added)
            return
        index = read_index(folder)
        shapes = self._shapes() if index["format"] == FORMAT else _without_optional(self._shapes())
        if index["shapes"] != shapes:
            raise ReplayError(f"{folder}: positions of shapes {index['shapes']}, this buffer holds {shapes}")
        stored = index["added"]
        upto = stored if added is None else added
        if upto > stored:
            raise ReplayError(f"{folder} holds {stored:,} positions added, the checkpoint counts {upto:,}")
        oldest = max(0, upto - self.capacity)
        for chunk in index["chunks"]:
            first, count = chunk["first"], chunk["count"]
            low, high = max(first, oldest), min(first + count, upto)
            if low >= high:
                continue
            arrays = _read_arrays(folder / chunk["file"], ARRAYS, "replay chunk", count)
            rows = np.arange(low, high) % self.capacity
            for name in ARRAYS:
                target = getattr(self, name)
                if name in arrays:
                    target[rows] = arrays[name][low - first : high - first]
                else:
                    target[rows] = OPTIONAL[name]
        held = sum(max(0, min(c["first"] + c["count"], upto) - max(c["first"], oldest)) for c in index["chunks"])
        if held != upto - oldest:
            raise ReplayError(f"{folder}: its chunks hold {held:,} of the last {upto - oldest:,} positions")
        self.added = self.saved = upto

    def _load_legacy(self, path: Path, added: int | None) -> None:
        """The 0.2 file: the ring as it was (rows in their old places, ``position`` the next row)."""
        names = (*_without_optional(dict.fromkeys(ARRAYS)), "counters")
        arrays = _read_arrays(path, names, "replay buffer file")
        n = len(arrays["planes"])
        for name in names[:-1]:
            target = getattr(self, name)
            if arrays[name].shape[1:] != target.shape[1:] or len(arrays[name]) != n:
                raise ReplayError(
                    f"{path}: its {name} have shape {arrays[name].shape}, expected [{n}, *{target.shape[1:]}]"
                )
        position, stored = (int(x) for x in arrays["counters"])
        if added is not None and added != stored:
            raise ReplayError(f"{path} holds {stored:,} positions added, the checkpoint counts {added:,}")
        # Oldest first: a full ring starts at its next row.
        order = (np.arange(n) + position) % n if stored > n else np.arange(n)
        keep = order[-self.capacity :]
        rows = np.arange(stored - len(keep), stored) % self.capacity
        for name in names[:-1]:
            getattr(self, name)[rows] = arrays[name][keep]
        self.versions[rows] = OPTIONAL["versions"]
        self.added = stored
        self.saved = stored - len(keep)  # the next save writes them all to the new store


def _without_optional(shapes: dict[str, Any]) -> dict[str, Any]:
    """``shapes`` less the arrays a store of format 2 did not have."""
    return {name: shape for name, shape in shapes.items() if name not in OPTIONAL}


def _new_index(shapes: dict[str, list[int]]) -> dict[str, Any]:
    return {"format": FORMAT, "added": 0, "shapes": shapes, "chunks": []}


def read_index(folder: Path) -> dict[str, Any]:
    """The store's index, checked: its format, counts and chunk names."""
    path = folder / INDEX
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
        chunks = index["chunks"]
        valid = (
            index["format"] in READABLE
            and isinstance(index["added"], int)
            and isinstance(index["shapes"], dict)
            and all(
                isinstance(c["file"], str)
                and Path(c["file"]).name == c["file"]
                and isinstance(c["first"], int)
                and isinstance(c["count"], int)
                and c["count"] > 0
                for c in chunks
            )
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ReplayError(f"{path} is not a readable replay index ({error})") from None
    if not valid:
        raise ReplayError(f"{path} is not a chess_envs replay index of format {' or '.join(READABLE)}")
    return index


def _read_arrays(path: Path, names: tuple[str, ...], what: str, count: int = 0) -> dict[str, np.ndarray]:
    """The arrays ``names`` of the file ``path``, each of at least ``count`` positions; ReplayError
    says the file is not ``what`` it should be."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in names if name in data.files or name not in OPTIONAL}
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise ReplayError(f"{path} is not a {what} ({error})") from None
    if any(len(array) < count for array in arrays.values()):
        raise ReplayError(f"{path} holds fewer than the {count:,} positions its index names")
    return arrays


def _remove_unlisted(folder: Path, index: dict[str, Any]) -> None:
    """Chunks the index no longer names (left the ring, or written by a save that was cut)."""
    listed = {chunk["file"] for chunk in index["chunks"]}
    for path in folder.glob("chunk_*.npz"):
        if path.name not in listed:
            path.unlink(missing_ok=True)
    remove_stale_temporaries(folder)
