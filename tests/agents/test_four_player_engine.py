"""The 4pchess agent against a stand-in that speaks 4pchess's UCI dialect (tests/four_player/fake_4pchess.py);
the real engine plays in recipes/four_player_vs_4pchess.sh."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chess_envs.agents import AgentError, make_agent
from chess_envs.agents.base import SearchLimits, expected_outcome
from chess_envs.agents.four_player import engine as four_player_engine
from chess_envs.agents.four_player.engine import BINARY_VARIABLE, FourPChessAgent
from chess_envs.arena.game import play_game
from chess_envs.four_player.state import FourPlayerState
from tests.four_player import fake_4pchess

ROOT = Path(__file__).parents[2]
START = FourPlayerState().to_text()


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An executable that runs the stand-in, its commands logged to ``tmp_path / 'log'``."""
    return fake_4pchess.install(tmp_path, monkeypatch)


def commands(engine: Path) -> list[tuple[int, str]]:
    """(process id, command) of every line the stand-in was sent."""
    lines = (engine.parent / "log").read_text().splitlines()
    return [(int(pid), command) for pid, _, command in (line.partition(" ") for line in lines)]


def test_it_plays_a_teams_game_sending_the_whole_position_every_move(engine: Path) -> None:
    agent = make_agent(f"4pchess:{engine}?depth=3", "four_player")
    random = make_agent("random?seed=1", "four_player")
    record = play_game("four_player", [agent, random, agent, random], START, max_plies=24, seed=5, mode="teams")
    agent.close()
    assert record.forfeit is None and len(record.moves) == 24
    sent = [command for _, command in commands(engine)]
    positions = [command.removeprefix("position fen ") for command in sent if command.startswith("position")]
    replay = FourPlayerState(mode="teams")
    expected = []
    for move in record.moves:
        if replay.current_player % 2 == 0:
            expected.append(replay.to_text())
        replay.apply(replay.move_to_action(move))
    assert positions == expected
    assert sent.count("go depth 3") == 12
    assert sent[-1] == "quit"


def test_each_game_gets_a_fresh_engine_and_close_ends_it(engine: Path) -> None:
    agent = FourPChessAgent("four_player", str(engine), depth=1)
    state = FourPlayerState(mode="teams")
    for _ in range(2):
        agent.reset()
        agent.think(state, None)
    process = agent.engine.process if agent.engine else None
    agent.close()
    assert process is not None and process.poll() is not None
    searched = {pid for pid, command in commands(engine) if command.startswith("go")}
    assert len(searched) == 2


def test_free_for_all_is_refused_with_a_clear_error(engine: Path) -> None:
    agent = make_agent(f"4pchess:{engine}", "four_player")
    with pytest.raises(AgentError, match="Teams only.*mode=teams"):
        agent.select_action(FourPlayerState())
    record = play_game("four_player", [agent] * 4, START, max_plies=4)
    agent.close()
    assert record.forfeit is not None and "Teams only" in record.forfeit


@pytest.mark.parametrize(
    ("spec", "limits", "command"),
    [
        ("depth=4", None, "go depth 4"),
        ("depth=4", SearchLimits(seconds=0.2), "go depth 4"),
        ("movetime=250", None, "go movetime 250"),
        ("", None, "go depth 2"),
        ("", SearchLimits(seconds=0.3), "go movetime 300"),
        ("hash=16", None, "go depth 2"),
    ],
)
def test_the_search_limit_sent(engine: Path, spec: str, limits: SearchLimits | None, command: str) -> None:
    agent = make_agent(f"4pchess:{engine}?{spec}", "four_player")
    state = FourPlayerState(mode="teams")
    action = agent.think(state, limits).action  # type: ignore[attr-defined]
    agent.close()
    assert state.legal_action_mask()[action]
    sent = [line for _, line in commands(engine)]
    assert [line for line in sent if line.startswith("go")] == [command]
    assert ("setoption name Hash value 16" in sent) is (spec == "hash=16")


def test_a_movetime_too_short_for_one_iteration_falls_back_to_depth_1(
    engine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(four_player_engine, "GRACE_SECONDS", 0.2)
    short = fake_4pchess.SLOW_MS - 1
    agent = FourPChessAgent("four_player", str(engine), movetime=short)
    state = FourPlayerState(mode="teams")
    thought = agent.think(state, None)
    agent.close()
    assert state.legal_action_mask()[thought.action]
    sent = [line for _, line in commands(engine)]
    fallback = [f"go movetime {short}", "stop", "isready", "go depth 1", "quit"]
    assert sent[sent.index(f"go movetime {short}") :] == fallback


def test_score_and_line_are_the_movers_team_s(engine: Path) -> None:
    agent = FourPChessAgent("four_player", str(engine), depth=1)
    state = FourPlayerState(mode="teams")
    red = agent.think(state, None)
    state.apply(red.action)
    blue = agent.think(state, None)  # the stand-in reports Red-Yellow's view: -123 with Blue to move
    agent.close()
    assert red.score == pytest.approx(expected_outcome(fake_4pchess.SCORE))
    assert blue.score == pytest.approx(expected_outcome(fake_4pchess.SCORE))
    assert red.pv[0] == red.action and blue.nodes == len(state.legal_actions())


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("illegal", "answered 'a1-a2', not a legal move in R-"),
        ("badfen", "could not read the position R-"),
        ("die", "4pchess ended"),
    ],
)
def test_a_misbehaving_engine_is_a_clear_agent_error(
    engine: Path, monkeypatch: pytest.MonkeyPatch, mode: str, message: str
) -> None:
    monkeypatch.setenv("FAKE_4PCHESS_MODE", mode)
    agent = FourPChessAgent("four_player", str(engine), depth=1)
    with pytest.raises(AgentError, match=message):
        agent.think(FourPlayerState(mode="teams"), None)
    agent.close()


def test_the_program_comes_from_the_spec_or_the_environment(
    engine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(BINARY_VARIABLE, raising=False)
    with pytest.raises(AgentError, match=f"\\${BINARY_VARIABLE} unset; build it"):
        make_agent("4pchess", "four_player")
    with pytest.raises(AgentError, match="'/nowhere/cli' is not an executable program"):
        make_agent("4pchess:/nowhere/cli", "four_player")
    with pytest.raises(ValueError, match="four-player chess \\(Teams\\), not 'chess'"):
        make_agent(f"4pchess:{engine}", "chess")
    monkeypatch.setenv(BINARY_VARIABLE, str(engine))
    agent = make_agent("4pchess?depth=1", "four_player")
    assert FourPlayerState(mode="teams").legal_action_mask()[agent.select_action(FourPlayerState(mode="teams"))]
    agent.close()
    assert os.path.exists(tmp_path / "log")


def test_the_recipe_builds_the_engine_and_rates_an_agent_against_it(engine: Path, tmp_path: Path) -> None:
    """recipes/four_player_vs_4pchess.sh on a checkout whose Makefile makes the stand-in its ``cli``."""
    checkout = tmp_path / "4pchess"
    checkout.mkdir()
    (checkout / "Makefile").write_text(f"cli:\n\tcp {engine} cli\n")
    result = subprocess.run(
        ["bash", str(ROOT / "recipes" / "four_player_vs_4pchess.sh"), str(checkout), "1", "4", "random?seed=3"],
        cwd=tmp_path,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "4pchess (not a git checkout)" in result.stdout
    assert (checkout / "cli").is_file()
    lines = (tmp_path / "runs" / "fp-4pchess-d1" / "games.jsonl").read_text().splitlines()
    games = [json.loads(line) for line in lines]
    assert len(games) == 4 and all(game["forfeit"] is None for game in games)
    assert {name.partition(":")[0] for game in games for name in game["players"]} == {"random?seed=3", "4pchess"}


def gone(pid: int, seconds: float = 10.0) -> bool:
    """Whether process ``pid`` has ended (or become a zombie) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z"):
                return True
        except (FileNotFoundError, IndexError):
            return True
        time.sleep(0.05)
    return False


def test_an_engine_is_stopped_when_its_agent_is_dropped_unclosed(engine: Path) -> None:
    agent = FourPChessAgent("four_player", str(engine), depth=1)
    assert agent.engine is not None
    pid = agent.engine.process.pid
    del agent
    gc.collect()
    assert gone(pid)  # the stand-in, like 4pchess, would run on with its input closed


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_an_engine_dies_with_a_killed_parent(engine: Path) -> None:
    script = (
        "from chess_envs.agents.four_player.engine import FourPChessAgent\n"
        f"agent = FourPChessAgent('four_player', {str(engine)!r}, depth=1)\n"
        "print(agent.engine.process.pid, flush=True)\n"
        "import time; time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    assert gone(pid)
