"""Agent specs, the random and greedy baselines, and the real Stockfish and Fairy-Stockfish engines."""

from __future__ import annotations

import os
import shutil
import sys
import textwrap

import pytest

from chess_envs import ChessState, LosAlamosState
from chess_envs.agents import AgentError, AgentSpec, make_agent
from chess_envs.arena.game import play_game

STOCKFISH = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
FAIRY = shutil.which("fairy-stockfish") or shutil.which("fairy-stockfish", path="/usr/games")
# A laptop without the engines skips these tests; CI (which installs them) never does.
IN_CI = bool(os.environ.get("CI"))
needs_stockfish = pytest.mark.skipif(STOCKFISH is None and not IN_CI, reason="stockfish is not installed")
needs_fairy = pytest.mark.skipif(FAIRY is None and not IN_CI, reason="fairy-stockfish is not installed")


def test_spec_parsing():
    spec = AgentSpec.parse("alphazero:runs/x/last.pt?sims=200&temperature=0")
    assert (spec.kind, spec.path, spec.options) == ("alphazero", "runs/x/last.pt", {"sims": "200", "temperature": "0"})
    assert AgentSpec.parse("random").options == {}
    with pytest.raises(ValueError, match="write key=value"):
        AgentSpec.parse("stockfish?depth")


@pytest.mark.parametrize(
    "spec, match",
    [
        ("minimax", "unknown agent 'minimax'.*known agents: .*greedy"),
        ("random?speed=3", "bad options in agent spec"),
        ("random?seed=x", "seed must be an integer"),
        ("stockfish?depth=0", "depth must be >= 1"),
        ("stockfish?skill=30", "skill must be <= 20"),
        ("stockfish?skill=-1", "skill must be >= 0"),
        ("fairy-stockfish?skill=-21", "skill must be >= -20"),
        ("stockfish?elo=1000", "elo must be >= 1,350"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, match):
    with pytest.raises(ValueError, match=match):
        make_agent(spec, "chess")


def test_stockfish_is_for_chess_only():
    with pytest.raises(ValueError, match="stockfish does not play .los_alamos.; it plays chess"):
        make_agent("stockfish", "los_alamos")


def test_missing_engine_binary_is_a_clear_error():
    with pytest.raises(AgentError, match="'no-such-engine' not found on PATH; install it"):
        make_agent("fairy-stockfish?binary=no-such-engine", "los_alamos")


def test_random_agent_is_seeded():
    def moves(seed):
        agent, state = make_agent(f"random?seed={seed}", "los_alamos"), LosAlamosState()
        for _ in range(10):
            state.apply(agent.select_action(state))
        return state.to_text()

    assert moves(1) == moves(1) and moves(1) != moves(2)


def test_greedy_mates_in_one():
    state = LosAlamosState("3Q2/Q5/4k1/6/3K2/6 w - - 0 60")  # reference puzzle la-m1-001
    action = make_agent("greedy", "los_alamos").select_action(state)
    assert state.action_to_move(action) == "a5d5"


def test_greedy_takes_the_most_valuable_capture_then_promotes():
    state = ChessState("k7/8/8/3q1r2/4P3/8/8/K7 w - - 0 1")
    assert state.action_to_move(make_agent("greedy", "chess").select_action(state)) == "e4d5"
    promote = LosAlamosState("k5/2P3/6/6/6/5K w - - 0 1")
    assert promote.action_to_move(make_agent("greedy", "los_alamos").select_action(promote)) == "c5c6q"


def test_greedy_leaves_the_state_as_it_was():
    state = LosAlamosState()
    make_agent("greedy", "los_alamos").select_action(state)
    assert state.to_text() == LosAlamosState().to_text() and not state._game.moves_played()


@needs_stockfish
def test_stockfish_plays_a_whole_legal_game():
    engine = make_agent("stockfish?skill=0&depth=1", "chess")
    try:
        record = play_game(
            "chess", [engine, make_agent("random?seed=1", "chess")], ChessState().to_text(), max_plies=600
        )
    finally:
        engine.close()
    assert record.forfeit is None and record.termination != "forfeit"
    assert len(record.moves) > 10


@needs_fairy
def test_fairy_stockfish_plays_a_whole_legal_los_alamos_game():
    engine = make_agent("fairy-stockfish?depth=1", "los_alamos")
    try:
        record = play_game(
            "los_alamos", [make_agent("random?seed=1", "los_alamos"), engine], LosAlamosState().to_text()
        )
    finally:
        engine.close()
    assert record.forfeit is None and record.scores == [0.0, 1.0]


@needs_fairy
def test_fairy_stockfish_strength_changes_its_play():
    weak, strong = (
        make_agent("fairy-stockfish?depth=1", "los_alamos"),
        make_agent("fairy-stockfish?depth=9", "los_alamos"),
    )
    try:
        record = play_game("los_alamos", [weak, strong], LosAlamosState().to_text())
    finally:
        weak.close()
        strong.close()
    assert record.scores == [0.0, 1.0], "depth 9 beats depth 1 from the start"


@needs_stockfish
def test_stockfish_skill_changes_its_play():
    positions = [
        ChessState(fen)
        for fen in (
            "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
    ]
    weak, strong = make_agent("stockfish?skill=0&depth=1", "chess"), make_agent("stockfish?skill=20&depth=10", "chess")
    try:
        assert strong.select_action(positions[0]) == positions[0].move_to_action("f3f7")  # Scholar's mate
        weak_moves = [weak.select_action(p) for p in positions * 3]
        strong_moves = [strong.select_action(p) for p in positions * 3]
    finally:
        weak.close()
        strong.close()
    assert weak_moves != strong_moves


DYING_ENGINE = textwrap.dedent(
    """
    import sys
    from chess_envs.los_alamos import LosAlamosState, legal_moves
    fen, gos = None, 0
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["uci"]:
            print("uciok", flush=True)
        elif words[:1] == ["isready"]:
            print("readyok", flush=True)
        elif words[:2] == ["position", "fen"]:
            fen = " ".join(words[2:8])
        elif words[:1] == ["go"]:
            gos += 1
            if gos > 3:
                sys.exit(3)
            print("bestmove " + legal_moves(fen)[0], flush=True)
    """
)


@pytest.fixture()
def dying_engine(tmp_path):
    """A UCI engine that answers three moves and then dies."""
    script = tmp_path / "dying_engine.py"
    script.write_text(DYING_ENGINE)
    launcher = tmp_path / "dying-engine"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")
    launcher.chmod(0o755)
    return str(launcher)


def test_engine_that_dies_mid_game_forfeits_with_the_reason(dying_engine):
    engine = make_agent(f"fairy-stockfish?binary={dying_engine}&depth=1", "los_alamos")
    record = play_game("los_alamos", [engine, make_agent("random", "los_alamos")], LosAlamosState().to_text())
    assert record.termination == "forfeit" and record.scores == [0.0, 1.0]
    assert "fairy-stockfish" in record.forfeit and "ended" in record.forfeit
    assert len(record.moves) == 6


def test_a_type_error_inside_a_factory_is_not_called_bad_options():
    from chess_envs.agents.base import _FACTORIES, register_agent

    @register_agent("raises-type-error")
    def factory(game: str, path: str | None = None, depth: str = "1"):
        return int(None)  # a bug inside the agent, not a bad option

    try:
        with pytest.raises(TypeError, match="int"):
            make_agent("raises-type-error?depth=2", "chess")
        with pytest.raises(ValueError, match="bad options.*unexpected keyword argument 'width'"):
            make_agent("raises-type-error?width=2", "chess")
    finally:
        del _FACTORIES["raises-type-error"]


def test_engines_limit_their_strength_by_elo_and_fairy_stockfish_skill_goes_below_zero():
    from chess_envs.registry import new_state
    from tests.engines import require_engine

    require_engine("stockfish")
    require_engine("fairy-stockfish")
    for spec, game in (("stockfish?elo=1350&nodes=200", "chess"), ("fairy-stockfish?skill=-20&nodes=200", "los_alamos"),
                       ("fairy-stockfish?elo=1400&nodes=200", "chess")):  # fmt: skip
        agent = make_agent(spec, game)
        try:
            state = new_state(game)
            assert agent.select_action(state) in state.legal_actions()
        finally:
            agent.close()
