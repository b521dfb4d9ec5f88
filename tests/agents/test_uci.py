"""Our UCI front-end, driven by python-chess as a GUI would, against the real Stockfish."""

from __future__ import annotations

import gc
import io
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.engine
import pytest

from chess_envs.agents.alphazero.checkpoint import save_checkpoint
from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig
from chess_envs.agents.base import TunableSearchingAgent
from chess_envs.agents.shipped import shipped_agent
from chess_envs.agents.strength import load_levels
from chess_envs.apps.uci import OPTIONS, UCIEngine, centipawns
from chess_envs.registry import new_state
from tests.agents.test_agents import STOCKFISH, needs_stockfish

ROOT = Path(__file__).resolve().parents[2]


def tiny_checkpoint(path: Path, game: str) -> Path:
    state = new_state(game)
    channels, height, width = state.observation_shape
    config = NetworkConfig(channels, height, width, state.num_actions, filters=8, blocks=1, value_hidden=8)
    network = AlphaZeroNet(config)
    save_checkpoint(path, {"game": game, "network": config.to_dict(), "model": network.state_dict()})
    return path


def engine_command(*flags: str) -> list[str]:
    return [sys.executable, "-m", "chess_envs.apps.uci", *flags]


@needs_stockfish
@pytest.mark.parametrize("shipped", [False, True], ids=["a checkpoint", "no checkpoint: the shipped network"])
def test_a_whole_game_against_stockfish_through_python_chess(tmp_path, shipped):
    flags = [] if shipped else ["--checkpoint", str(tiny_checkpoint(tmp_path / "chess.pt", "chess"))]
    ours = chess.engine.SimpleEngine.popen_uci(engine_command(*flags), cwd=ROOT)
    stockfish = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    try:
        stockfish.configure({"Skill Level": 0})
        board = chess.Board()
        infos = []
        while not board.is_game_over(claim_draw=True) and board.ply() < 120:
            if board.turn == chess.WHITE:
                result = ours.play(board, chess.engine.Limit(nodes=32), info=chess.engine.INFO_ALL)
                infos.append(result.info)
            else:
                result = stockfish.play(board, chess.engine.Limit(depth=1))
            assert result.move in board.legal_moves
            board.push(result.move)
        assert board.ply() >= 20 or board.is_game_over()
        assert any("score" in info and "pv" in info and info.get("nodes") for info in infos)
    finally:
        ours.quit()
        stockfish.quit()


def run_lines(engine: UCIEngine, lines: list[str]) -> list[str]:
    for line in lines:
        engine.handle(line)
    engine._finish_search()
    return engine.out.getvalue().splitlines()


def test_malformed_commands_get_an_info_string_and_are_ignored(tmp_path):
    engine = UCIEngine(None, "greedy?seed=1", out=io.StringIO())
    output = run_lines(
        engine,
        [
            "uci",
            "flip the board",
            "position",
            "position fen not a fen",
            "position startpos moves e2e5",
            "setoption name Hash value 0",  # out of range
            "setoption name UCI_Variant value shogi",
            "go nodes -3",
            "go sideways",
            "position startpos moves e2e4",
            "isready",
            "go nodes 10",
        ],
    )
    assert "uciok" in output and "readyok" in output
    assert sum(line.startswith("info string") for line in output) == 8
    assert output[-1].startswith("bestmove ") and output[-1].split()[1] in {"e7e5", "e7e6", "d7d5"} | {
        m.uci() for m in chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves
    }


def test_los_alamos_through_uci_variant(tmp_path):
    checkpoint = tiny_checkpoint(tmp_path / "la.pt", "los_alamos")
    engine = UCIEngine(str(checkpoint), None, out=io.StringIO())
    output = run_lines(
        engine,
        ["setoption name UCI_Variant value losalamos", "isready", "position startpos moves b2b3", "go nodes 40"],
    )
    assert output[-1].startswith("bestmove ")
    state = new_state("los_alamos")
    state.apply_move("b2b3")
    assert state.legal_action_mask()[state.move_to_action(output[-1].split()[1])]
    assert any(line.startswith("info depth") and " pv " in line for line in output)


def test_without_a_checkpoint_the_variants_shipped_network_plays():
    engine = UCIEngine(out=io.StringIO())
    output = run_lines(engine, ["setoption name UCI_Variant value losalamos", "uci", "go nodes 32"])
    assert "id name chess-envs alphazero shipped network" in output
    assert not any(line.startswith("info string") for line in output), output
    state = new_state("los_alamos")
    assert state.legal_action_mask()[state.move_to_action(output[-1].split()[1])]
    assert str(engine.agent.name) == "alphazero:@los_alamos?cache_mb=256&sims=16"
    assert gc.get_freeze_count() > 0, "the loaded agent's objects are set aside from full collections"
    engine.shutdown()
    assert gc.get_freeze_count() == 0


def test_stop_during_go_infinite_answers_promptly(tmp_path):
    checkpoint = tiny_checkpoint(tmp_path / "chess.pt", "chess")
    process = subprocess.Popen(
        engine_command("--checkpoint", str(checkpoint)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        process.stdin.write("uci\nisready\nposition startpos\ngo infinite\n")
        process.stdin.flush()
        while process.stdout.readline().strip() != "readyok":
            pass
        time.sleep(1.0)
        process.stdin.write("stop\n")
        process.stdin.flush()
        asked = time.monotonic()
        line = process.stdout.readline()
        while not line.startswith("bestmove"):
            line = process.stdout.readline()
        assert time.monotonic() - asked < 2.0
        assert chess.Move.from_uci(line.split()[1]) in chess.Board().legal_moves
        process.stdin.write("quit\n")
        process.stdin.flush()
        assert process.wait(timeout=10) == 0
    finally:
        process.kill()


def test_centipawns_are_monotone_and_signed():
    assert centipawns(0.0) == 0 and centipawns(0.5) > 0 > centipawns(-0.5)
    assert centipawns(0.9) > centipawns(0.5) and centipawns(1.0) < 100_000


@pytest.mark.parametrize("flags", [["--checkpoint", "x", "--agent", "greedy"], ["--variant", "shogi"]])
def test_bad_command_lines(flags):
    result = subprocess.run(engine_command(*flags), capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 2 and "usage" in result.stderr


def test_the_options_match_runners_and_lichess_bot_set_are_declared_and_honoured():
    engine = UCIEngine(None, "greedy?seed=1", out=io.StringIO())
    output = run_lines(
        engine,
        [
            "uci",
            "setoption name threads value 2",  # option names are case-insensitive
            "setoption name HASH value 32",
            "setoption name Move Overhead value 250",
            "setoption name MultiPV value 4",
            "setoption name Ponder value true",
            "setoption name UCI_ShowWDL value true",
            "setoption name Clear Hash",
            "isready",
        ],
    )
    declared = {line.split(" type ")[0].removeprefix("option name ") for line in output if line.startswith("option")}
    assert {"Threads", "Hash", "Clear Hash", "MultiPV", "Move Overhead", "Ponder", "UCI_ShowWDL"} <= declared
    assert not any(line.startswith("info string") for line in output), output
    assert (engine.threads, engine.hash_mb, engine.overhead_ms, engine.multipv) == (2, 32, 250, 4)
    assert engine.ponder and engine.show_wdl
    import torch

    assert torch.get_num_threads() == 2
    torch.set_num_threads(1)


@pytest.mark.parametrize("left", [0.01, 0.2, 1.0, 60.0, 3600.0])
@pytest.mark.parametrize("increment", [0.0, 0.1, 2.0])
@pytest.mark.parametrize("moves_to_go", [None, 1, 40])
def test_the_time_for_a_move_never_spends_the_clock(left, increment, moves_to_go):
    from chess_envs.agents.base import move_time

    seconds = move_time(left, increment, moves_to_go, overhead=0.1)
    assert 0 < seconds <= max(0.005, 0.5 * max(0.0, left - 0.1))


@pytest.mark.parametrize("overhead", [0.03, 0.1])
def test_a_steady_lag_under_the_move_overhead_settles_the_clock_well_above_zero(overhead):
    from chess_envs.agents.base import move_time

    left, increment, lag = 8.0, 0.1, overhead / 2  # each move costs its budget plus the lag
    lowest = left
    for _ in range(300):
        left += increment - move_time(left, increment, None, overhead) - lag
        lowest = min(lowest, left)
    assert lowest > 10 * lag, lowest


def test_a_moves_time_runs_from_when_go_arrived_not_from_when_the_search_starts():
    engine = UCIEngine(out=io.StringIO())
    received = time.monotonic() - 0.3  # go arrived 0.3 s ago (a slow load, a pondering chunk)
    limits = engine._budget(engine.state, {"movetime": 1000}, received)
    assert limits.seconds is not None and 0.6 < limits.seconds <= 1.0 - engine.overhead_ms / 1000 - 0.3
    assert engine._budget(engine.state, {"movetime": 100}, received).seconds == 0.005  # late: the floor


def test_wdl_is_a_permille_split_with_the_expected_score_of_the_value():
    from chess_envs.apps.uci import win_draw_loss

    for q in (-1.0, -0.5, 0.0, 0.3, 1.0):
        win, draw, loss = win_draw_loss(q)
        assert win + draw + loss == 1000 and min(win, draw, loss) >= 0
        assert abs((win + draw / 2) / 1000 - (q + 1) / 2) < 0.002


def test_bench_prints_nodes_and_nodes_per_second_as_stockfish_does():
    engine = UCIEngine(out=io.StringIO())
    output = run_lines(engine, ["uci", "bench 32"])
    searched = [line for line in output if line.startswith("Nodes searched")]
    speed = [line for line in output if line.startswith("Nodes/second")]
    # four positions at 32 simulations each, less what the mate probe cost (at most a quarter)
    assert searched and int(searched[0].split(":")[1]) >= 3 * 32 and speed and int(speed[0].split(":")[1]) > 0


def test_a_proven_mate_is_reported_as_score_mate():
    engine = UCIEngine(out=io.StringIO())
    for line in ["uci", "position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "go nodes 64"]:
        engine.handle(line)
    engine._search.join(timeout=120)  # the search ends by itself: nodes 64
    output = run_lines(engine, [])
    assert output[-1].split()[:2] == ["bestmove", "a1a8"]
    assert any(" score mate 1 " in line and line.endswith("pv a1a8") for line in output), output


def advertised_options(output: list[str]) -> dict[str, dict[str, object]]:
    """The ``option`` lines of ``uci`` by name: their type, default, min and max, and a combo's vars."""
    options: dict[str, dict[str, object]] = {}
    for line in output:
        if line.startswith("option name "):
            words = line.removeprefix("option name ").split()
            cut = words.index("type")
            fields: dict[str, object] = {"type": words[cut + 1], "var": []}
            rest = words[cut + 2 :]
            for key, value in zip(rest[::2], rest[1::2]):
                if key == "var":
                    fields["var"].append(value)
                else:
                    fields[key] = value
            options[" ".join(words[:cut])] = fields
    return options


@pytest.mark.parametrize("agent", [None, "greedy?seed=1"], ids=["the shipped network", "an agent spec"])
def test_uci_advertises_exactly_the_rows_of_the_option_table(agent):
    engine = UCIEngine(None, agent, out=io.StringIO())
    advertised = advertised_options(run_lines(engine, ["uci"]))
    levels = load_levels("chess") if agent is None else []
    calibrated = {"UCI_LimitStrength", "UCI_Elo"}  # offered with a calibration (the shipped chess network's)
    assert levels or agent, "the shipped chess network has a UCI_Elo calibration"
    expected = {}
    for option in OPTIONS:
        if option.name in calibrated and not levels:
            continue
        fields: dict[str, object] = {"type": option.type, "var": list(option.values)}
        if option.type == "spin":
            low, high = option.bounds if isinstance(option.bounds, tuple) else (levels[0].elo, levels[-1].elo)
            default = low if option.default is None else option.default
            fields.update(default=str(round(default)), min=str(round(low)), max=str(round(high)))
        elif option.type != "button":
            fields["default"] = str(option.default).lower() if isinstance(option.default, bool) else option.default
        expected[option.name] = fields
    assert advertised == expected
    assert list(advertised) == [option.name for option in OPTIONS if option.name in expected]  # the table's order
    assert {option.name for option in OPTIONS} == {
        "UCI_Variant", "Simulations", "Threads", "Hash", "Clear Hash", "MultiPV", "Move Overhead", "Ponder",
        "UCI_ShowWDL", "UCI_LimitStrength", "UCI_Elo",
    }  # fmt: skip


def test_every_spin_option_accepts_its_advertised_bounds_and_refuses_one_past_them():
    import torch

    threads = torch.get_num_threads()
    engine = UCIEngine(out=io.StringIO())  # the shipped network: UCI_Elo is offered over its calibrated range
    advertised = advertised_options(run_lines(engine, ["uci"]))
    spins = {name: (int(o["min"]), int(o["max"])) for name, o in advertised.items() if o["type"] == "spin"}
    assert "UCI_Elo" in spins and len(spins) == sum(option.type == "spin" for option in OPTIONS)
    try:
        for name, (low, high) in spins.items():
            for value, accepted in ((low - 1, False), (low, True), (high, True), (high + 1, False)):
                before = len(engine.out.getvalue().splitlines())
                engine.handle(f"setoption name {name} value {value}")
                answer = engine.out.getvalue().splitlines()[before:]
                if accepted:
                    assert answer == [], (name, value, answer)
                else:
                    assert len(answer) == 1 and answer[0].startswith("info string"), (name, value, answer)
                    assert f"must be in {low}..{high}, got {value}" in answer[0], answer
    finally:
        torch.set_num_threads(threads)
    assert engine.elo == spins["UCI_Elo"][1] and engine.hash_mb == 65_536 and engine.agent is None


def test_clear_hash_empties_the_agents_cache_through_the_searching_agent_protocol():
    engine = UCIEngine(out=io.StringIO())
    output = run_lines(engine, ["uci", "position startpos", "go nodes 64"])
    agent = engine.agent
    assert isinstance(agent, TunableSearchingAgent)
    usage = agent.cache_usage()
    assert usage is not None and 0 < usage <= 1
    assert all(" hashfull " in line for line in output if line.startswith("info depth"))
    output = run_lines(engine, ["setoption name clear hash", "isready"])
    assert agent.cache_usage() == 0 and engine.agent is agent  # emptied, not rebuilt
    assert not any(line.startswith("info string") for line in output), output
    engine.shutdown()

    engine = UCIEngine(None, shipped_agent("chess", cache_mb=0), out=io.StringIO())  # keeps no cache
    output = run_lines(engine, ["go nodes 16", "setoption name Clear Hash"])
    assert engine.agent.cache_usage() is None
    assert not any(" hashfull " in line or line.startswith("info string") for line in output), output
    engine.shutdown()
