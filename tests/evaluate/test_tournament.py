"""Tournaments: ranking real agents, surviving SIGKILL, resuming, and bad input."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chess_envs.apps.arena_cli import main
from chess_envs.arena.game import GameRecord, random_openings
from chess_envs.arena.ratings import by_game, rate
from chess_envs.arena.report import pairwise_results, pgn
from chess_envs.arena.results import LiveGame, end_live, read_live, read_live_game, read_results
from chess_envs.arena.tournament import RESULTS_FILE, TournamentConfig, run_tournament, schedule, tables
from tests.agents.test_agents import DYING_ENGINE, needs_fairy, needs_stockfish
from tests.agents.test_uci import tiny_checkpoint

ROOT = Path(__file__).resolve().parents[2]


def config(agents, games_per_pair=4, game="los_alamos") -> TournamentConfig:
    return TournamentConfig(game, agents, games_per_pair, random_openings(game, games_per_pair // 2, 4, seed=0))


def test_schedule_is_colour_swapped_pairs_from_shared_openings():
    games = schedule(config(["random", "greedy", "random?seed=2"], games_per_pair=4))
    assert len(games) == 3 * 4 and len({g.id for g in games}) == 12
    first_pair = [g for g in games if set(g.players) == {"random", "greedy"}]
    assert sorted(g.players for g in first_pair) == [("greedy", "random")] * 2 + [("random", "greedy")] * 2
    assert len({g.opening for g in first_pair}) == 2


def test_gauntlet_plays_only_the_first_agents_pairs():
    agents = ["greedy", "random", "random?seed=2"]
    games = schedule(TournamentConfig("los_alamos", agents, 4, ["x", "y"], gauntlet=True))
    assert len(games) == 2 * 4 and all("greedy" in g.players for g in games)
    assert {frozenset(g.players) for g in games} == {
        frozenset(("greedy", "random")),
        frozenset(("greedy", "random?seed=2")),
    }
    assert tables(["a", "b", "c"], 4, gauntlet=True) == [("a", "b", "a", "b"), ("a", "c", "a", "c")]


def test_gauntlet_cli_rates_everyone_and_a_round_robin_in_the_same_folder_is_refused(tmp_path, capsys):
    command = ["tournament", "--game", "los_alamos", "--agents", "greedy", "random", "random?seed=2"]
    command += ["--games-per-pair", "2", "--out", str(tmp_path), "--quiet", "--bootstrap", "20", "--gauntlet"]
    main(command)
    records = read_results(tmp_path / RESULTS_FILE)
    assert len(records) == 4 and all("greedy" in r.players for r in records.values())
    ratings = json.loads((tmp_path / "ratings.json").read_text())
    assert {r["player"] for r in ratings} == {"greedy", "random", "random?seed=2"}
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(command[:-1])
    assert exit_info.value.code == 2 and "differs in gauntlet" in capsys.readouterr().err


@needs_fairy
def test_tournament_ranks_engine_above_greedy_above_random(tmp_path):
    agents = ["random", "greedy", "fairy-stockfish?depth=1"]
    records = run_tournament(config(agents, games_per_pair=20), tmp_path, workers=2, progress=False)
    assert len(records) == 60
    ratings = {r.player: r for r in rate(pairwise_results(records), players=agents, anchor="random")}
    engine, greedy, random_ = ratings["fairy-stockfish?depth=1"], ratings["greedy"], ratings["random"]
    assert engine.elo > greedy.elo > random_.elo == 0
    assert engine.low > greedy.high and greedy.low > random_.high, "95% intervals must not overlap"


def test_rerun_plays_only_missing_games_and_skips_a_corrupt_line(tmp_path):
    cfg = config(["random", "greedy"], games_per_pair=6)
    run_tournament(cfg, tmp_path, progress=False)
    results = tmp_path / RESULTS_FILE
    lines = results.read_text().splitlines()
    # Tear the last line as a kill during a write would, and add a line of garbage.
    results.write_text("\n".join(lines[:-1]) + "\nnot json\n" + lines[-1][:25])
    with pytest.warns(UserWarning, match="corrupt result line skipped"):
        records = run_tournament(cfg, tmp_path, progress=False)
    assert len(records) == 6
    with pytest.warns(UserWarning):
        stored = read_results(results)
    assert sorted(stored) == sorted(g.id for g in schedule(cfg))
    valid = [line for line in results.read_text().splitlines() if line.startswith("{") and line.endswith("}")]
    assert len(valid) == 6, "every game exactly once"


def test_out_folder_of_another_tournament_is_refused(tmp_path):
    run_tournament(config(["random", "greedy"], games_per_pair=2), tmp_path, progress=False)
    with pytest.raises(ValueError, match="holds a different tournament"):
        run_tournament(config(["random", "greedy?seed=1"], games_per_pair=2), tmp_path, progress=False)


def test_a_network_rewritten_under_the_same_name_is_not_resumed_as_the_same_player(tmp_path):
    network = tiny_checkpoint(tmp_path / "net.pt", "los_alamos")
    cfg = config([f"alphazero:{network}?sims=2", "random?seed=1"], games_per_pair=2)
    run_tournament(cfg, tmp_path / "out", progress=False)
    assert len(run_tournament(cfg, tmp_path / "out", progress=False)) == 2  # the same file resumes
    tiny_checkpoint(network, "los_alamos")  # other weights, same path
    with pytest.raises(ValueError, match=r"other contents of .*net\.pt .*choose another --out"):
        run_tournament(cfg, tmp_path / "out", progress=False)
    assert len(read_results(tmp_path / "out" / RESULTS_FILE)) == 2  # the games played stay


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"agents": ["random"]}, "at least two agents"),
        ({"agents": ["random", "random"]}, "must differ"),
        ({"games_per_pair": 3}, "positive multiple of 2"),
        ({"options": {"mode": "teams"}}, "los_alamos has no game option mode"),
        ({"game": "four_player", "games_per_pair": 4, "options": {"mode": "duos"}}, "mode must be one of ffa, teams"),
    ],
)
def test_bad_tournament_settings(kwargs, match):
    settings = {"game": "los_alamos", "agents": ["random", "greedy"], "games_per_pair": 2, "openings": ["x"]}
    with pytest.raises(ValueError, match=match):
        TournamentConfig(**{**settings, **kwargs})


def test_engine_dying_mid_game_is_a_forfeit_and_the_tournament_goes_on(tmp_path):
    script = tmp_path / "dying_engine.py"
    script.write_text(DYING_ENGINE)
    launcher = tmp_path / "dying-engine"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")
    launcher.chmod(0o755)
    dying = f"fairy-stockfish?binary={launcher}&depth=1"
    records = run_tournament(config(["greedy", dying], games_per_pair=4), tmp_path / "out", progress=False)
    assert len(records) == 4
    forfeits = [r for r in records if r.termination == "forfeit"]
    assert forfeits and all("ended while we waited" in r.forfeit for r in forfeits)
    for r in forfeits:
        assert r.scores[r.players.index(dying)] == 0.0


def test_cli_reports_bad_input_clearly(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["tournament", "--game", "los_alamos", "--agents", "random", "minimax", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "unknown agent 'minimax'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "tournament",
                "--game",
                "los_alamos",
                "--agents",
                "random",
                "greedy",
                "--games-per-pair",
                "0",
                "--out",
                str(tmp_path),
            ]
        )
    assert exit_info.value.code == 2


def test_cli_writes_every_report(tmp_path, capsys):
    main(
        [
            "tournament",
            "--game",
            "chess",
            "--agents",
            "random",
            "greedy",
            "--games-per-pair",
            "2",
            "--max-plies",
            "60",
            "--out",
            str(tmp_path),
            "--quiet",
            "--bootstrap",
            "50",
            "--tensorboard",
        ]
    )
    out = capsys.readouterr().out
    assert "Elo" in out and "greedy" in out
    for name in ("games.jsonl", "games.pgn", "crosstable.txt", "ratings.json", "ratings.png"):
        assert (tmp_path / name).stat().st_size > 0
    assert json.loads((tmp_path / "ratings.json").read_text())[0]["player"] in ("random", "greedy")
    assert '[White "random"]' in (tmp_path / "games.pgn").read_text()
    assert any(p.name.startswith("events.out.tfevents") for p in tmp_path.iterdir())


@needs_fairy
def test_sigkill_midway_then_rerun_gives_exactly_the_planned_games(tmp_path):
    out = tmp_path / "killed"
    command = [
        sys.executable,
        "-m",
        "chess_envs.apps.arena_cli",
        "tournament",
        "--game",
        "los_alamos",
        "--agents",
        "random",
        "fairy-stockfish?movetime=15",
        "--games-per-pair",
        "12",
        "--workers",
        "2",
        "--out",
        str(out),
        "--quiet",
    ]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    results = out / RESULTS_FILE
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if results.exists() and results.read_text().count("\n") >= 3:
            break
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    finished_before = len(read_results(results))
    assert 3 <= finished_before < 12, "the kill must land midway"
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    lines = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    assert len(lines) == 12 and len({line["id"] for line in lines}) == 12
    assert not (out / "live").exists(), "games the killed run showed as playing are gone once all are played"


@needs_fairy
def test_games_being_played_are_shown_live_as_prefixes_of_their_final_record(tmp_path):
    """Workers write each game's moves so far to ``live/<id>.json`` while they play it; what a
    watcher reads there is always the start of the game as it is finally recorded."""
    out = tmp_path / "live-cup"
    command = [sys.executable, "-m", "chess_envs.apps.arena_cli", "tournament", "--game", "los_alamos",
               "--agents", "greedy", "fairy-stockfish?movetime=100", "--games-per-pair", "4", "--workers", "2",
               "--out", str(out), "--quiet"]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen: dict[str, set[tuple[str, ...]]] = {}
    while process.poll() is None:
        for game_id, record in read_live(out).items():
            assert record.termination == "playing"
            seen.setdefault(game_id, set()).add(tuple(record.moves))
            followed = read_live_game(out, game_id)  # what the web app's follow loop reads
            if followed is not None:  # else finished since
                seen[game_id].add(tuple(followed.moves))
        time.sleep(0.02)
    assert process.returncode == 0, process.communicate()[1]
    process.stderr.close()
    final = read_results(out / RESULTS_FILE)
    assert len(final) == 4 and set(seen) <= set(final) and len(seen) >= 2
    partial = [m for game_id, snapshots in seen.items() for m in snapshots if m != tuple(final[game_id].moves)]
    assert len(partial) >= 4, "games seen while being played, at several moments"
    for game_id, snapshots in seen.items():
        for moves in snapshots:
            assert list(moves) == final[game_id].moves[: len(moves)]
    assert not (out / "live").exists()


def test_one_live_game_is_read_by_its_id_and_an_id_naming_another_file_reads_nothing(tmp_path):
    record = GameRecord(id="r1-g2", game="los_alamos", opening="", players=["greedy", "random"], moves=["a2a3"])
    LiveGame(tmp_path, record.id).update(record)
    (tmp_path / "secret.json").write_text(json.dumps({**record.to_dict(), "id": "../secret"}))
    got = read_live_game(tmp_path, "r1-g2")
    assert got is not None and got.moves == ["a2a3"] and got.termination == "playing"
    for game_id in ("r1-g3", "../secret", "/tmp/x", "live/r1-g2", ""):
        assert read_live_game(tmp_path, game_id) is None


def test_a_live_file_stays_in_the_live_folder_whatever_paths_the_players_specs_hold(tmp_path):
    folder = tmp_path / "out"
    game_id = "alphazero:../../../../escaped.pt?sims=8 | alphazero:/abs/net.pt | 0 | a"
    record = GameRecord(id=game_id, game="los_alamos", opening="", players=["a", "b"], moves=["a2a3"])
    LiveGame(folder, game_id).update(record)
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert [path.parent for path in written] == [folder / "live"]
    assert list(read_live(folder)) == [game_id] and read_live_game(folder, game_id).moves == ["a2a3"]
    end_live(folder, game_id)
    assert read_live(folder) == {}
    end_live(tmp_path, record.id)
    assert read_live_game(tmp_path, record.id) is None


def test_four_player_tables_rotate_every_agent_through_every_seat():
    cfg = TournamentConfig("four_player", ["random", "greedy"], 8, random_openings("four_player", 2, 4, seed=0))
    games = schedule(cfg)
    assert len(games) == 8 and len({g.id for g in games}) == 8
    for seat in range(4):
        assert sorted(g.players[seat] for g in games) == ["greedy"] * 4 + ["random"] * 4
    assert games[0].players == ("random", "greedy", "random", "greedy")
    five = TournamentConfig("four_player", ["a", "b", "c", "d", "e"], 4, ["x"])
    assert len(tables(five.agents, 4)) == 5
    with pytest.raises(ValueError, match="multiple of 4"):
        TournamentConfig("four_player", ["random", "greedy"], 6, ["x"] * 3)


def test_four_player_tournament_ranks_greedy_above_random(tmp_path):
    agents = ["random", "greedy"]
    cfg = TournamentConfig("four_player", agents, 8, random_openings("four_player", 2, 4, seed=1), max_plies=160)
    records = run_tournament(cfg, tmp_path, workers=2, progress=False)
    assert len(records) == 8 and all(len(r.scores) == 4 for r in records)
    results = pairwise_results(records)
    assert all({r.first, r.second} == {"random", "greedy"} for r in results)
    # seated a b a b: four pairs a game, tagged with it so that intervals resample them together
    assert [len(game) for game in by_game(results)] == [4] * 8
    assert {r.game for r in results} == {r.id for r in records}
    ratings = {r.player: r for r in rate(results, players=agents, anchor="random", bootstrap=100)}
    assert ratings["greedy"].elo > ratings["random"].elo
    assert ratings["greedy"].score_low <= ratings["greedy"].score <= ratings["greedy"].score_high
    text = pgn(records)
    assert '[Red "random"]' in text and "1. " in text and " .. " in text


def test_teams_tournament_seats_partners_opposite_and_scores_by_team(tmp_path, capsys):
    out = tmp_path / "teams"
    command = ["tournament", "--game", "four_player", "--option", "mode=teams", "--agents", "greedy", "random"]
    main([*command, "--games-per-pair", "8", "--max-plies", "160", "--out", str(out), "--quiet"])
    records = list(read_results(out / RESULTS_FILE).values())
    assert len(records) == 8
    for record in records:
        assert record.players[0] == record.players[2] != record.players[1] == record.players[3]
        assert record.scores[0] == record.scores[2] and record.scores[1] == record.scores[3]
        assert record.scores[0] + record.scores[1] == 1.0  # a team's win is the other's loss, a draw half each
    assert json.loads((out / "tournament.json").read_text())["options"] == {"mode": "teams"}
    assert "greedy" in capsys.readouterr().out


def test_a_teams_only_agent_in_a_free_for_all_tournament_is_refused_before_any_game(tmp_path, capsys):
    command = ["tournament", "--game", "four_player", "--agents", "alphazero:@four_player_teams?sims=2", "random"]
    with pytest.raises(SystemExit) as stopped:
        main([*command, "--games-per-pair", "4", "--out", str(tmp_path / "ffa"), "--quiet"])
    assert stopped.value.code == 2
    assert "@four_player_teams?sims=2 plays only with mode=teams, not mode=ffa" in capsys.readouterr().err
    assert not (tmp_path / "ffa" / RESULTS_FILE).exists()


@needs_stockfish
def test_stockfish_in_worker_processes_lets_the_tournament_end(tmp_path):
    """python-chess keeps a thread per engine: a worker that never closed its Stockfish could not
    exit, and the pool's shutdown (the tournament's end) waited forever."""
    cfg = config(["stockfish?depth=1", "greedy"], games_per_pair=2, game="chess")
    script = (
        "import pickle, sys; from pathlib import Path; from chess_envs.arena.tournament import run_tournament; "
        "records = run_tournament(pickle.loads(bytes.fromhex(sys.argv[1])), Path(sys.argv[2]), workers=2, "
        "progress=False); print(len(records))"
    )
    import pickle

    result = subprocess.run([sys.executable, "-c", script, pickle.dumps(cfg).hex(), str(tmp_path)],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert result.returncode == 0 and result.stdout.strip() == "2", result.stderr


def test_a_tournament_folder_of_an_older_version_resumes_with_the_settings_it_did_not_have(tmp_path):
    cfg = config(["random?seed=1", "greedy?seed=1"], games_per_pair=2)
    run_tournament(cfg, tmp_path, workers=1, progress=False)
    stored = json.loads((tmp_path / "tournament.json").read_text())
    for newer in ("time_control", "adjudication"):  # 0.2 wrote neither
        del stored[newer]
    (tmp_path / "tournament.json").write_text(json.dumps(stored))
    assert len(run_tournament(cfg, tmp_path, workers=1, progress=False)) == 2
    with pytest.raises(ValueError, match="differs in time_control"):
        run_tournament(TournamentConfig(**{**cfg.__dict__, "time_control": "5+0"}), tmp_path, progress=False)


def test_a_tournament_folder_of_0_3_resumes_and_plays_what_it_lacks(tmp_path):
    """tests/data/runs_0.3.0/tournament, cut short by its last game: the shipped network it named by
    ``@los_alamos`` moved with the package but kept its bytes, so the folder resumes."""
    folder = Path(shutil.copytree(Path(__file__).resolve().parents[1] / "data" / "runs_0.3.0" / "tournament",
                                  tmp_path / "tournament"))  # fmt: skip
    lines = (folder / RESULTS_FILE).read_text().splitlines()
    (folder / RESULTS_FILE).write_text("\n".join(lines[:-1]) + "\n")
    main(["tournament", "--game", "los_alamos", "--agents", "random", "greedy", "alphazero:@los_alamos?sims=2",
          "--games-per-pair", "2", "--out", str(folder), "--quiet"])  # fmt: skip
    games = read_results(folder / RESULTS_FILE)
    assert len(games) == len(lines) == 6 and list(games) == [json.loads(line)["id"] for line in lines]
    assert (folder / "ratings.png").exists()
