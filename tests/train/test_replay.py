"""The replay store: saves append only what is new, the ring's old chunks go, loads rebuild the ring."""

from __future__ import annotations

import json

import numpy as np
import pytest

from chess_envs.train.alphazero.replay import ReplayBuffer, ReplayError

SHAPE = (3, 2, 2)


def filled(capacity: int, count: int, first: int = 0) -> ReplayBuffer:
    """A buffer with positions ``first .. first + count - 1``, each marked by its number."""
    buffer = ReplayBuffer(capacity, SHAPE, 1, max_actions=4)
    add(buffer, range(first, first + count))
    return buffer


def add(buffer: ReplayBuffer, numbers) -> None:
    for n in numbers:
        buffer.add(np.full(SHAPE, (n % 255) / 255, np.float32), np.array([n % 7]), np.array([1.0]), np.array([n]))


def numbers(buffer: ReplayBuffer) -> list[int]:
    """The positions held, oldest first."""
    rows = np.arange(buffer.added - len(buffer), buffer.added) % buffer.capacity
    return [int(v) for v in buffer.values[rows, 0]]


def test_a_save_writes_only_what_was_added_since_the_last(tmp_path) -> None:
    buffer = filled(100, 40)
    buffer.save(tmp_path / "replay")
    first_chunk = tmp_path / "replay" / "chunk_000000000000.npz"
    written_once = first_chunk.stat()
    add(buffer, range(40, 50))
    second = buffer.save(tmp_path / "replay")
    new_chunk = tmp_path / "replay" / "chunk_000000000040.npz"
    assert second == new_chunk.stat().st_size + len((tmp_path / "replay" / "index.json").read_text())
    unchanged = (written_once.st_ino, written_once.st_mtime_ns)
    assert (first_chunk.stat().st_ino, first_chunk.stat().st_mtime_ns) == unchanged
    assert buffer.save(tmp_path / "replay") < 1_000  # nothing new: the index only
    index = json.loads((tmp_path / "replay" / "index.json").read_text())
    assert [(c["first"], c["count"]) for c in index["chunks"]] == [(0, 40), (40, 10)] and index["added"] == 50
    loaded = ReplayBuffer(100, SHAPE, 1, max_actions=4)
    loaded.load(tmp_path / "replay")
    assert numbers(loaded) == list(range(50)) and loaded.added == 50
    for name in ("planes", "policy_actions", "policy_probs", "values"):
        assert np.array_equal(getattr(loaded, name), getattr(buffer, name))


def test_chunks_that_left_the_ring_are_deleted(tmp_path) -> None:
    buffer = filled(30, 20)
    buffer.save(tmp_path)
    add(buffer, range(20, 45))  # 0..14 left the ring; the first chunk still holds 15..19
    buffer.save(tmp_path)
    add(buffer, range(45, 70))
    buffer.save(tmp_path)
    index = json.loads((tmp_path / "index.json").read_text())
    assert [c["first"] for c in index["chunks"]] == [20, 45]
    assert sorted(p.name for p in tmp_path.glob("chunk_*")) == ["chunk_000000000020.npz", "chunk_000000000045.npz"]
    loaded = ReplayBuffer(30, SHAPE, 1, max_actions=4)
    loaded.load(tmp_path)
    assert numbers(loaded) == list(range(40, 70))


def test_more_new_positions_than_the_ring_holds_save_only_the_ring(tmp_path) -> None:
    buffer = filled(10, 35)
    buffer.save(tmp_path)
    index = json.loads((tmp_path / "index.json").read_text())
    assert [(c["first"], c["count"]) for c in index["chunks"]] == [(25, 10)]


def test_a_load_stops_where_the_checkpoint_counted(tmp_path) -> None:
    """A kill between the replay save and the checkpoint leaves a store ahead of the checkpoint:
    the resumed run reads the store as the checkpoint knew it and overwrites the rest."""
    buffer = filled(50, 30)
    buffer.save(tmp_path)
    add(buffer, range(30, 40))
    buffer.save(tmp_path)  # the checkpoint of this save never came
    resumed = ReplayBuffer(50, SHAPE, 1, max_actions=4)
    resumed.load(tmp_path, added=30)
    assert numbers(resumed) == list(range(30)) and resumed.added == 30
    add(resumed, range(100, 105))  # the resumed run plays other games
    resumed.save(tmp_path)
    again = ReplayBuffer(50, SHAPE, 1, max_actions=4)
    again.load(tmp_path)
    assert numbers(again) == [*range(30), *range(100, 105)]
    with pytest.raises(ReplayError, match="the checkpoint counts 99"):
        again.load(tmp_path, added=99)


def test_a_chunk_written_by_a_save_that_was_cut_is_ignored_then_removed(tmp_path) -> None:
    buffer = filled(50, 10)
    buffer.save(tmp_path)
    stray = tmp_path / "chunk_000000000010.npz"
    stray.write_bytes(b"half a chunk")  # the save died before its index
    loaded = ReplayBuffer(50, SHAPE, 1, max_actions=4)
    loaded.load(tmp_path)
    assert numbers(loaded) == list(range(10))
    add(loaded, range(10, 12))
    loaded.save(tmp_path)  # writes chunk 10 again, whole this time
    again = ReplayBuffer(50, SHAPE, 1, max_actions=4)
    again.load(tmp_path)
    assert numbers(again) == list(range(12))


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda folder: (folder / "index.json").write_text("{"), "not a readable replay index"),
        (
            lambda folder: (folder / "index.json").write_text(
                '{"format": "other", "added": 1, "shapes": {}, "chunks": []}'
            ),
            "format",
        ),
        (lambda folder: next(folder.glob("chunk_*")).write_bytes(b"x"), "is not a replay chunk"),
        (lambda folder: next(folder.glob("chunk_*")).unlink(), "is not a replay chunk"),
        (lambda folder: edit_index(folder, lambda i: i["chunks"].clear()), "hold 0 of the last 10"),
        (lambda folder: edit_index(folder, lambda i: i["chunks"][0].update(file="../x.npz")), "format"),
    ],
)
def test_a_damaged_store_is_a_clear_error(tmp_path, damage, message) -> None:
    filled(50, 10).save(tmp_path)
    damage(tmp_path)
    with pytest.raises(ReplayError, match=message):
        ReplayBuffer(50, SHAPE, 1, max_actions=4).load(tmp_path)


def edit_index(folder, change) -> None:
    index = json.loads((folder / "index.json").read_text())
    change(index)
    (folder / "index.json").write_text(json.dumps(index))


def test_a_store_of_other_shapes_is_refused(tmp_path) -> None:
    filled(50, 10).save(tmp_path)
    with pytest.raises(ReplayError, match="shapes"):
        ReplayBuffer(50, (3, 3, 3), 1, max_actions=4).load(tmp_path)
    smaller = ReplayBuffer(5, SHAPE, 1, max_actions=4)  # a smaller ring keeps the newest
    smaller.load(tmp_path)
    assert numbers(smaller) == list(range(5, 10))


@pytest.mark.parametrize("old_capacity, count", [(20, 15), (20, 47)])
def test_a_0_2_replay_file_is_read_oldest_first_and_becomes_a_chunk(tmp_path, old_capacity, count) -> None:
    """0.2 wrote the ring as it was (rows in place, ``position`` the next row) into replay.npz."""
    old = filled(old_capacity, count)
    n = len(old)
    np.savez(
        tmp_path / "replay.npz",
        counters=np.array([old.position, old.added]),
        **{name: getattr(old, name)[:n] for name in ("planes", "policy_actions", "policy_probs", "values")},
    )
    for capacity in (20, 8):
        buffer = ReplayBuffer(capacity, SHAPE, 1, max_actions=4)
        buffer.load(tmp_path / "replay", added=count)
        assert numbers(buffer) == list(range(count - min(n, capacity), count))
    with pytest.raises(ReplayError, match="the checkpoint counts"):
        ReplayBuffer(20, SHAPE, 1, max_actions=4).load(tmp_path / "replay", added=count + 1)
    buffer.save(tmp_path / "replay")
    assert not (tmp_path / "replay.npz").exists()
    again = ReplayBuffer(8, SHAPE, 1, max_actions=4)
    again.load(tmp_path / "replay")
    assert numbers(again) == list(range(count - 8, count))


def test_weight_versions_are_stored_and_a_format_2_store_reads_as_version_minus_one(tmp_path) -> None:
    # a store as 0.3 wrote it: format 2, chunks without versions
    old = filled(100, 30)
    old.save(tmp_path / "replay")
    index_path = tmp_path / "replay" / "index.json"
    index = json.loads(index_path.read_text())
    index["format"] = "chess_envs.replay/2"
    index["shapes"] = {name: shape for name, shape in index["shapes"].items() if name != "versions"}
    index_path.write_text(json.dumps(index))
    chunk = tmp_path / "replay" / "chunk_000000000000.npz"
    with np.load(chunk) as data:
        arrays = {name: data[name] for name in data.files if name != "versions"}
    np.savez(chunk, **arrays)
    resumed = ReplayBuffer(100, SHAPE, 1, max_actions=4)
    resumed.load(tmp_path / "replay")
    assert numbers(resumed) == list(range(30)) and set(resumed.versions[:30].tolist()) == {-1}
    for n in range(30, 40):  # new positions with their versions, appended to the old store
        resumed.add(np.zeros(SHAPE, np.float32), np.array([0]), np.array([1.0]), np.array([n]), version=n * 10)
    resumed.save(tmp_path / "replay")
    assert json.loads(index_path.read_text())["format"] == "chess_envs.replay/3"
    again = ReplayBuffer(100, SHAPE, 1, max_actions=4)
    again.load(tmp_path / "replay")
    assert numbers(again) == list(range(40))
    assert again.versions[:40].tolist() == [-1] * 30 + [n * 10 for n in range(30, 40)]
