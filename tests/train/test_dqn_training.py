"""train.dqn: the smoke preset end to end, resume, and bad arguments."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from agents.dqn import load_model
from train.dqn import main


def run(tmp_path: Path, *flags: str) -> Path:
    return main(["--preset", "smoke", "--runs-dir", str(tmp_path), "--run-name", "s", "--progress", "false", *flags])


def test_smoke_trains_checkpoints_logs_and_resumes(tmp_path):
    path = run(tmp_path, "--total-steps", "2000", "--eval-every", "1000")
    first = load_model(path, "los_alamos")
    assert first.num_timesteps == 2000
    run_dir = tmp_path / "s"
    assert (run_dir / "checkpoints" / "replay.pkl").exists()
    assert any(p.name.startswith("events.out.tfevents") for p in run_dir.iterdir())
    rows = list(csv.DictReader((run_dir / "progress.csv").open()))
    assert any(row.get("eval/score_vs_random") for row in rows)
    with pytest.raises(SystemExit, match="already holds a run"):
        run(tmp_path, "--total-steps", "2000")
    resumed = load_model(run(tmp_path, "--total-steps", "3000", "--resume"), "los_alamos")
    assert resumed.num_timesteps == 3000
    assert resumed._n_updates > first._n_updates
    assert resumed.exploration_rate == pytest.approx(resumed.exploration_final_eps)


def test_resume_refuses_a_checkpoint_of_another_game(tmp_path):
    run(tmp_path, "--total-steps", "600", "--eval-every", "0")
    with pytest.raises(SystemExit, match="trained on 'los_alamos', not 'chess'"):
        run(tmp_path, "--game", "chess", "--total-steps", "700", "--resume")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--opponent", "nobody"], "opponent must be one of"),
        (["--game", "four_player"], "plays two-player games"),
        (["--total-steps", "0"], "total_steps must be >= 1"),
        (["--exploration-final-eps", "2"], "exploration_final_eps"),
    ],
)
def test_bad_arguments_say_why(tmp_path, capsys, flags, message):
    with pytest.raises(SystemExit):
        run(tmp_path, *flags)
    assert message in capsys.readouterr().err


def test_material_reward_and_draw_price():
    # The shaped return is the outcome, plus the weight times the change in material lead over
    # the game, plus the draw price when the game is drawn.
    import numpy as np

    from train.dqn import Args, make_env

    for seed in range(4):
        env = make_env(Args(shaping=0.5, draw_reward=-0.5, max_plies=400), seed % 2, "random")()
        observation, _ = env.reset(seed=seed)
        seat = env.unwrapped.agent_seat
        rng = np.random.default_rng(seed)
        total, done = 0.0, False
        while not done:
            action = rng.choice(np.flatnonzero(observation["action_mask"]))
            observation, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
        material = env.unwrapped.state.material()
        lead = float(2 * material[seat] - material.sum()) / 10.0
        outcome = float(info["returns"][seat]) if terminated else 0.0
        expected = outcome + 0.5 * lead + (-0.5 if outcome == 0 else 0.0)
        assert total == pytest.approx(expected, abs=1e-9)
