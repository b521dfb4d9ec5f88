"""Four-player Teams distillation from 4pchess, through its stand-in (CI cannot build the real one):
labels (its move, its score for the mover's team), team value targets, a network started from the
shipped FFA one that records it learned Teams, and the settings it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from chess_envs.agents.alphazero.checkpoint import load_checkpoint, load_network
from chess_envs.agents.base import AgentError, make_agent
from chess_envs.core import GameState
from chess_envs.registry import new_state
from chess_envs.train.alphazero.sections import network_config
from chess_envs.train.config import from_dict
from chess_envs.train.distill import loop as distill
from chess_envs.train.distill.config import DistillConfig
from chess_envs.train.distill.data import play_and_label
from chess_envs.train.distill.labels import FourPChessTeacher, open_teacher
from chess_envs.train.distill.loop import value_targets
from tests.four_player import fake_4pchess

TINY = ["--batch-size", "16", "--progress", "false", "--game", "four_player", "--multipv", "1"]


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fake_4pchess.install(tmp_path, monkeypatch)


def run(tmp_path: Path, *flags: str) -> Path | None:
    return distill.main(["--runs-dir", str(tmp_path / "runs"), "--run-name", "fp", *TINY, *flags])


def test_a_teams_network_learns_4pchess_labels_from_the_shipped_network(engine: Path, tmp_path: Path) -> None:
    flags = ["--game-options", "mode=teams", "--teacher", f"4pchess:{engine}?depth=3", "--init", "@four_player"]
    path = run(tmp_path, *flags, "--positions", "60", "--max-plies", "20", "--workers", "1", "--total-steps", "4",
               "--policy-temperature", "0", "--random-plies", "3", "--fewest-random-plies", "1",
               "--checkpoint-every", "1", "--keep-checkpoints", "2")  # fmt: skip
    assert path is not None
    kept = sorted(path.name for path in path.parent.glob("step_*.pt"))
    assert kept == ["step_00000003.pt", "step_00000004.pt"]  # a learning curve's last two points
    data = distill.Shards(tmp_path / "runs" / "fp" / "data").load()
    assert len(data["scores"]) >= 60 and data["policy_actions"].shape == (len(data["scores"]), 1)
    np.testing.assert_array_equal(data["policy_probs"], 1.0)  # one line: all on its move
    expected = np.tanh(fake_4pchess.SCORE * np.log(10) / 800)  # the mover's team's score, 400 cp a factor 10
    np.testing.assert_allclose(data["scores"], expected, rtol=1e-6)
    for game in np.unique(data["game"]):  # cut at 20 plies: the last score stands for its mover's team
        results = data["results"][data["game"] == game]
        np.testing.assert_allclose(results[-1], expected, rtol=1e-6)
        np.testing.assert_array_equal(results[1:], -results[:-1])  # the teams take turns
    assert len(np.unique(data["game"])) >= 3 and np.all(data["planes"][:, 0].sum(axis=(1, 2)) > 0)
    sent = [command for _, command in fake_4pchess_commands(engine) if command.startswith("go")]
    assert sent and set(sent) == {"go depth 3"}
    payload = load_checkpoint(path, "four_player")
    assert payload["network"]["teams"] is True and payload["network"]["filters"] == 32  # the shipped network's shape
    config = from_dict(DistillConfig, json.loads((tmp_path / "runs" / "fp" / "config.json").read_text()))
    values = distill.value_targets(data, config, network_config(config).value_size)
    network, _ = load_network(path, "four_player")
    scores = distill.score(network, distill.batch_of(data, values, np.arange(16)), torch.device("cpu"))
    assert set(scores) == {"validation/policy_loss", "validation/value_loss"}  # one line always agrees: no agreement
    agent = make_agent(f"alphazero:{path}?sims=8", "four_player")
    state = new_state("four_player", mode="teams")
    assert state.legal_action_mask()[agent.select_action(state)]


def fake_4pchess_commands(engine: Path) -> list[tuple[int, str]]:
    lines = (engine.parent / "log").read_text().splitlines()
    return [(int(pid), command) for pid, _, command in (line.partition(" ") for line in lines)]


def test_each_game_is_labelled_by_a_fresh_engine(engine: Path) -> None:
    teacher = open_teacher(f"4pchess:{engine}?depth=1", "four_player", 1)
    assert isinstance(teacher, FourPChessTeacher)
    with teacher:
        for _ in range(2):
            teacher.new_game()
            state = new_state("four_player", mode="teams")
            label = teacher.analyse(state)
            assert label.moves == (state.action_to_move(state.legal_actions()[0]),)
            state.apply(state.legal_actions()[0])  # Blue to move: the score is still its team's
            assert teacher.analyse(state).scores == (float(fake_4pchess.SCORE),)
    searched = [pid for pid, command in fake_4pchess_commands(engine) if command.startswith("go")]
    assert len(searched) == 4 and len(set(searched)) == 2 and searched[0] == searched[1]


def test_team_value_targets_give_partners_the_movers_value() -> None:
    config = from_dict(DistillConfig, {"result_weight": 0.25})
    data = {"scores": np.array([0.4, -0.8], np.float32), "results": np.array([1.0, 0.0], np.float32)}
    targets = value_targets(data, config, value_size=4)
    np.testing.assert_allclose(targets, [[0.55, -0.55, 0.55, -0.55], [-0.6, 0.6, -0.6, 0.6]], rtol=1e-6)
    np.testing.assert_allclose(value_targets(data, config, value_size=1), [[0.55], [-0.6]], rtol=1e-6)


def test_an_engine_answering_only_illegal_moves_stops_the_data_stage(
    engine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_4PCHESS_MODE", "illegal")
    with pytest.raises(SystemExit):
        run(tmp_path, "--game-options", "mode=teams", "--teacher", f"4pchess:{engine}?depth=1", "--workers", "1",
            "--positions", "50", "--random-plies", "0")  # fmt: skip
    assert "labelled no position in 20 games in a row" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--teacher", "4pchess?depth=2"], "set --game-options mode=teams"),
        (["--teacher", "4pchess?depth=2", "--game", "chess"], "4pchess teaches four-player chess"),
        (
            ["--teacher", "4pchess?level=2", "--game-options", "mode=teams"],
            "unknown teacher '4pchess?level=2' option level",
        ),
        (
            ["--teacher", "stockfish?depth=2", "--game-options", "mode=teams"],
            "not 'four_player' (four_player: 4pchess)",
        ),
    ],
)
def test_settings_a_four_player_distillation_refuses(
    tmp_path: Path, flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        run(tmp_path, *flags)
    assert message in capsys.readouterr().err


def test_a_4pchess_teacher_needs_a_search_limit(engine: Path) -> None:
    with pytest.raises(ValueError, match="give 4pchess a depth or a movetime"):
        open_teacher(f"4pchess:{engine}", "four_player", 1)
    with pytest.raises(AgentError, match="not an executable program"):
        open_teacher("4pchess:/nonexistent/cli?depth=2", "four_player", 1)


class Recorder:
    """A student that plays the first legal move and records the seats it moved for."""

    name = "recorder"

    def __init__(self) -> None:
        self.seats: list[int] = []
        self.seeds: list[int | None] = []

    def select_action(self, state: GameState) -> int:
        self.seats.append(state.current_player)
        return state.legal_actions()[-1]

    def reset(self, seed: int | None = None) -> None:
        self.seeds.append(seed)

    def close(self) -> None:
        pass


def test_a_student_plays_one_team_and_the_teacher_labels_its_positions_too(engine: Path) -> None:
    config = from_dict(DistillConfig, {"game": "four_player", "game_options": "mode=teams", "multipv": 1,
                                       "teacher": f"4pchess:{engine}?depth=1", "student_share": 1.0,
                                       "random_plies": 0, "max_plies": 12, "policy_temperature": 0.0})  # fmt: skip
    student = Recorder()
    with open_teacher(config.teacher, "four_player", 1) as teacher:
        game = play_and_label(config, teacher, 5, student)
        alone = play_and_label(config, teacher, 5)
    assert student.seeds == [5] and len(student.seats) == 6 and len({seat % 2 for seat in student.seats}) == 1
    assert len(game.scores) == len(alone.scores) == 12  # the student's positions are labelled as well
    assert not np.array_equal(game.planes, alone.planes)  # its moves (the last legal one) are not the teacher's
    config.student_share = 0.0
    with open_teacher(config.teacher, "four_player", 1) as teacher:
        np.testing.assert_array_equal(play_and_label(config, teacher, 5, Recorder()).planes, alone.planes)
