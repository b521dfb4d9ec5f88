"""The same tournament command gives the same games, move for move, with 1 or 2 workers and
after being killed and resumed; killing the tournament kills its workers too."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.agents.test_uci import ROOT, tiny_checkpoint


def command(out: Path, checkpoint: Path, workers: int, games_per_pair: int = 4) -> list[str]:
    return [
        sys.executable, "-m", "chess_envs.apps.arena_cli", "tournament", "--game", "los_alamos",
        "--agents", "random", "greedy", f"alphazero:{checkpoint}?sims=8&temperature=1",
        "--games-per-pair", str(games_per_pair), "--max-plies", "60", "--workers", str(workers),
        "--bootstrap", "10", "--seed", "7", "--quiet", "--out", str(out),
    ]  # fmt: skip


def games(out: Path) -> dict[str, list[str]]:
    lines = (out / "games.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    return {record["id"]: record["moves"] for record in records}


def finished(out: Path) -> int:
    path = out / "games.jsonl"
    return sum(1 for line in path.read_text().splitlines() if line.endswith("}")) if path.exists() else 0


def run(cmd: list[str]) -> None:
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr


def run_until_killed(cmd: list[str], out: Path, games_done: int) -> None:
    process = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while finished(out) < games_done and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert process.poll() is None, "the run ended before it could be killed"
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait()


def test_one_worker_two_workers_and_a_twice_killed_run_play_the_same_games(tmp_path: Path) -> None:
    checkpoint = tiny_checkpoint(tmp_path / "la.pt", "los_alamos")
    run(command(tmp_path / "one", checkpoint, workers=1))
    run(command(tmp_path / "two", checkpoint, workers=2))
    resumed = tmp_path / "resumed"
    run_until_killed(command(resumed, checkpoint, workers=2), resumed, 3)
    run_until_killed(command(resumed, checkpoint, workers=1), resumed, 7)
    run(command(resumed, checkpoint, workers=2))
    one, two, again = games(tmp_path / "one"), games(tmp_path / "two"), games(resumed)
    assert len(one) == 12 and len({tuple(moves) for moves in one.values()}) > 6
    assert one == two == again


def _descendants(pid: int) -> set[int]:
    found, frontier = set(), [pid]
    while frontier:
        parent = frontier.pop()
        children = subprocess.run(["pgrep", "-P", str(parent)], capture_output=True, text=True).stdout.split()
        for child in map(int, children):
            if child not in found:
                found.add(child)
                frontier.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().split(")")[-1].split()[0] == "Z")


def assert_gone(pids: set[int]) -> None:
    """Give ``pids`` 30 s to end; fail if one is left."""
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in pids if _alive(pid)], "workers outlived the tournament"


def kill_all(pids: set[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and uses pgrep")
def test_workers_die_with_a_killed_tournament(tmp_path: Path) -> None:
    checkpoint = tiny_checkpoint(tmp_path / "la.pt", "los_alamos")
    out = tmp_path / "t"
    process = subprocess.Popen(
        command(out, checkpoint, workers=2, games_per_pair=40), cwd=ROOT, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    children: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while finished(out) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        children = _descendants(process.pid)
        assert len(children) >= 2, "two workers (and the resource tracker) should be running"
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert_gone(children)
    finally:
        process.kill()
        process.wait()
        kill_all(children)
