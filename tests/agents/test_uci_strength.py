"""UCI_LimitStrength with UCI_Elo (the calibrated levels of the shipped network) and searchmoves."""

from __future__ import annotations

import io

import numpy as np
import pytest

import chess_envs.agents.strength as strength
from chess_envs.agents.base import SearchLimits, make_agent
from chess_envs.agents.cards import load_card
from chess_envs.agents.shipped import shipped_agent
from chess_envs.agents.strength import Level, level_for, load_levels
from chess_envs.apps.uci import UCIEngine
from chess_envs.registry import new_state
from tests.agents.test_uci import run_lines
from tools.uci_elo_calibration import non_increasing

LEVELS = [Level(1, 1.0, 500.0), Level(1, 0.0, 800.0), Level(16, 0.0, 1000.0), Level(256, 0.0, 1200.0)]


def test_an_elo_between_two_levels_interpolates_the_one_knob_they_differ_in():
    assert level_for(100, LEVELS) == (1, 1.0)  # below the range: the weakest level
    assert level_for(5000, LEVELS) == (256, 0.0)
    assert level_for(1100, LEVELS) == (64, 0.0)  # simulations geometrically: sqrt(16 * 256)
    sims, temperature = level_for(650, LEVELS)  # temperature linearly
    assert sims == 1 and temperature == pytest.approx(0.5)
    with pytest.raises(ValueError, match="no calibration"):
        level_for(1000, [])


def test_the_shipped_chess_calibration_is_measured_and_ordered():
    levels = load_levels("chess")
    data = load_card("chess")["uci_elo"]
    assert len(levels) >= 3 and all(row["games"] >= 100 for row in data["levels"])
    assert data["anchors"][0]["spec"] == "stockfish?elo=1350&movetime=100" and data["anchors"][0]["elo"] == 1350
    at_zero = sorted((x.simulations, x.elo) for x in levels if x.temperature == 0)
    assert [elo for _, elo in at_zero] == sorted(elo for _, elo in at_zero)  # more simulations, stronger
    for low, high in zip(levels, levels[1:]):  # a path: neighbours differ in one knob, so Elo between them interpolates
        assert (low.simulations == high.simulations) != (low.temperature == high.temperature), (low, high)


def test_levels_measured_out_of_order_are_pooled_so_elo_never_rises_along_the_path():
    # the session-55 measurement: 64 and 8 simulations at temperature 1 came out 14 Elo out of order
    assert non_increasing([1673, 1469, 1169, 1183, 1145, 1103], [100] * 6) == [1673, 1469, 1176, 1176, 1145, 1103]
    assert non_increasing([900, 800, 700], [1, 1, 1]) == [900, 800, 700]
    assert non_increasing([1000, 1100, 1300], [3, 1, 1]) == pytest.approx([1080, 1080, 1080])
    assert non_increasing([500, 800], [3, 1]) == pytest.approx([575, 575])  # weighted by games


def test_pooled_levels_keep_their_order_on_the_path(monkeypatch):
    path = [(200, 0.0, 1673), (64, 0.0, 1469), (64, 1.0, 1176), (8, 1.0, 1176), (8, 2.0, 1145)]  # strongest first
    rows = [{"simulations": n, "temperature": t, "elo": e} for n, t, e in path]
    monkeypatch.setattr(strength, "load_card", lambda game: {"uci_elo": {"levels": rows}})
    levels = load_levels("chess")
    assert [(x.simulations, x.temperature) for x in levels] == [(n, t) for n, t, _ in reversed(path)]
    for low, high in zip(levels, levels[1:]):
        assert (low.simulations == high.simulations) != (low.temperature == high.temperature)
    assert level_for(1176, levels) == (8, 1.0)
    sims, temperature = level_for(1300, levels)  # past the pooled pair: 64 simulations, cooling from 1 to 0
    assert sims == 64 and temperature == pytest.approx(1 - (1300 - 1176) / (1469 - 1176))


def test_uci_elo_plays_the_levels_simulations_and_temperature(monkeypatch):
    rows = [{"simulations": x.simulations, "temperature": x.temperature, "elo": x.elo} for x in LEVELS]
    card = {**load_card("chess"), "uci_elo": {"levels": rows}}
    monkeypatch.setattr(strength, "load_card", lambda game: card)
    engine = UCIEngine(out=io.StringIO())
    output = run_lines(
        engine,
        ["uci", "setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 1000", "go nodes 400"],
    )
    assert "option name UCI_LimitStrength type check default false" in output
    assert "option name UCI_Elo type spin default 500 min 500 max 1200" in output
    infos = [line.split() for line in output if line.startswith("info depth")]
    assert max(int(words[words.index("nodes") + 1]) for words in infos) <= 16 + 16  # the level's simulations
    assert engine.agent.temperature == 0.0
    run_lines(engine, ["setoption name UCI_Elo value 650", "go nodes 400"])
    assert engine.agent.temperature == pytest.approx(0.5)
    run_lines(engine, ["setoption name UCI_LimitStrength value false", "go nodes 64"])
    assert engine.agent.temperature == 0.0


def test_uci_elo_is_not_offered_for_an_agent_without_a_calibration():
    output = run_lines(UCIEngine(None, "greedy?seed=1", out=io.StringIO()), ["uci"])
    assert not any("UCI_Elo" in line or "UCI_LimitStrength" in line for line in output)


def test_searchmoves_searches_and_chooses_only_the_moves_named():
    engine = UCIEngine(out=io.StringIO())
    output = run_lines(engine, ["uci", "setoption name MultiPV value 3", "go nodes 96 searchmoves a2a3 h2h4"])
    assert output[-1].split()[1] in {"a2a3", "h2h4"}
    lines = [line.split() for line in output if " multipv " in line]
    assert lines and all(words[words.index("pv") + 1] in {"a2a3", "h2h4"} for words in lines)
    output = run_lines(engine, ["go nodes 16 searchmoves e2e5"])
    assert any("e2e5 is not legal" in line for line in output)


@pytest.mark.parametrize("options", ["", "&root_fpu=1.0"], ids=["as shipped", "root first-play urgency"])
def test_a_search_restricted_to_some_moves_spends_its_simulations_on_them(options):
    # a root first-play urgency once tried each left-out move and chose some again on their values
    agent = make_agent(shipped_agent("chess", sims=16) + options, "chess")
    state = new_state("chess")
    allowed = tuple(state.move_to_action(m) for m in ("a2a3", "b1a3"))
    thought = agent.think(state, SearchLimits(nodes=128, moves=allowed))
    root = agent._tree.root
    outside = ~np.isin(root.actions, allowed)
    assert thought.action in allowed
    assert not root.visits[outside].any() and root.visits[~outside].sum() == 128
    full = agent.think(state, SearchLimits(nodes=128))  # unrestricted again: a new tree
    assert state.action_to_move(full.action) not in ("a2a3", "b1a3")
