"""chess_envs.train.alphazero resumes from the newest checkpoint that loads, and checkpoints fall between iterations."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chess_envs.agents.alphazero.checkpoint import load_checkpoint
from chess_envs.train.alphazero import main


def run(tmp_path: Path, name: str, *flags: str) -> Path:
    base = ["--preset", "smoke", "--runs-dir", str(tmp_path), "--run-name", name, "--progress", "false"]
    return main([*base, "--eval-every", "0", *flags])


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """A run of 6 iterations, 3 learner steps each, a checkpoint every 2 steps."""
    folder = tmp_path_factory.mktemp("runs")
    run(folder, "done", "--iterations", "6", "--steps-per-iteration", "3", "--checkpoint-every", "2")
    return folder / "done"


def test_checkpoints_fall_between_iterations(finished_run: Path) -> None:
    """A checkpoint's iteration count covers exactly the learner steps in it, so a resumed run
    repeats no iteration (and --iterations N runs N in all)."""
    metrics = [json.loads(line) for line in (finished_run / "metrics.jsonl").read_text().splitlines()]
    numbered = sorted((finished_run / "checkpoints").glob("step_*.pt"))
    assert len(numbered) >= 2
    for path in numbered:
        counters = load_checkpoint(path)["counters"]
        done = [m for m in metrics if m["learner_steps"] <= counters["learner_steps"]]
        assert counters["iteration"] == len(done), (path.name, counters)


def copy_run(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target / "checkpoints"


def test_a_kill_during_the_first_save_resumes_from_the_numbered_copy(finished_run, tmp_path, capsys) -> None:
    folder = copy_run(finished_run, tmp_path / "r")
    oldest = sorted(folder.glob("step_*.pt"))[0]
    for path in folder.iterdir():
        if path != oldest:
            path.unlink()
    (folder / ".last.pt.999999999.0badc0de.tmp").write_bytes(b"half a checkpoint")
    before = load_checkpoint(oldest)["counters"]
    path = run(tmp_path, "r", "--resume", "--iterations", str(before["iteration"] + 1), "--steps-per-iteration", "3")
    out = capsys.readouterr().out
    assert f"resumed {tmp_path / 'r'} from {oldest.name}" in out and "removed .last.pt.999999999" in out
    after = load_checkpoint(path)["counters"]
    assert after["iteration"] == before["iteration"] + 1 and after["games"] >= before["games"]
    assert not list(folder.glob(".*.tmp"))


def test_truncated_checkpoints_fall_back_to_the_newest_that_loads(finished_run, tmp_path, capsys) -> None:
    folder = copy_run(finished_run, tmp_path / "r")
    newest, *older = sorted(folder.glob("step_*.pt"), reverse=True)
    for path in (newest, folder / "last.pt"):
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    iteration = load_checkpoint(older[0])["counters"]["iteration"]
    run(tmp_path, "r", "--resume", "--iterations", str(iteration + 1), "--steps-per-iteration", "3")
    out = capsys.readouterr().out
    assert f"skipping {newest.name}" in out and f"from {older[0].name}" in out


def test_no_loadable_checkpoint_is_a_clear_error(finished_run, tmp_path, capsys) -> None:
    folder = copy_run(finished_run, tmp_path / "r")
    for path in folder.glob("*.pt"):
        path.write_bytes(b"garbage")
    with pytest.raises(SystemExit) as refused:
        run(tmp_path, "r", "--resume")
    assert refused.value.code == 2 and "no checkpoint of the run loads" in capsys.readouterr().err


def test_learning_empties_the_evaluation_cache(tmp_path) -> None:
    """Self-play forgets the network outputs it cached once the learner has changed the weights."""
    from chess_envs.train.alphazero.config import AlphaZeroConfig
    from chess_envs.train.alphazero.learner import Learner
    from chess_envs.train.alphazero.players import new_self_play
    from chess_envs.train.config import build

    config = build(AlphaZeroConfig, game="los_alamos", runs_dir=str(tmp_path), filters=8, blocks=1, value_hidden=8,
                   games_in_parallel=2, simulations=8, min_replay=1, batch_size=4)  # fmt: skip
    learner = Learner(config)
    self_play = new_self_play(learner.config, learner, 0)
    while len(learner.replay) < 4:
        learner.add_games(self_play.play(8))
    assert self_play.search.cache.bytes > 0
    self_play.forget_evaluations()
    assert self_play.search.cache.bytes == 0


def test_checkpoints_hold_no_replay_and_resume_restores_it_from_its_file(finished_run, tmp_path) -> None:
    folder = copy_run(finished_run, tmp_path / "r")
    payload = load_checkpoint(folder / "last.pt")
    assert "replay" not in payload and payload["replay_added"] > 0
    assert (folder / "last.pt").stat().st_size < 1_000_000
    from chess_envs.train.alphazero.config import AlphaZeroConfig
    from chess_envs.train.alphazero.learner import Learner
    from chess_envs.train.config import build

    learner = Learner(build(AlphaZeroConfig, game="los_alamos", preset="smoke", runs_dir=str(tmp_path), run_name="r",
                           filters=16, blocks=1, value_hidden=16, replay_size=2_000))  # fmt: skip
    learner.restore()
    assert learner.replay.added >= payload["replay_added"] and len(learner.replay) > 0


def test_a_replay_chunk_that_lost_positions_is_a_clear_error(finished_run, tmp_path, capsys) -> None:
    folder = copy_run(finished_run, tmp_path / "r").parent
    chunk = sorted((folder / "replay").glob("chunk_*.npz"))[-1]
    chunk.write_bytes(b"not a zip")
    with pytest.raises(SystemExit) as refused:
        run(tmp_path, "r", "--resume")
    assert refused.value.code == 2 and f"{chunk.name} is not a replay chunk" in capsys.readouterr().err


def test_a_replay_store_missing_is_a_clear_error(finished_run, tmp_path, capsys) -> None:
    folder = copy_run(finished_run, tmp_path / "r").parent
    shutil.rmtree(folder / "replay")
    with pytest.raises(SystemExit) as refused:
        run(tmp_path, "r", "--resume")
    assert refused.value.code == 2 and "replay index" in capsys.readouterr().err
