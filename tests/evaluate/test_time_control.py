"""Games under a clock: searching agents share their time and never flag; an agent that overruns
loses on time; clocks reach the results and the PGN."""

from __future__ import annotations

import gc
import json
import time

import pytest

from chess_envs.agents import make_agent
from chess_envs.agents.base import AgentBase, SearchLimits, move_time
from chess_envs.apps.arena_cli import main
from chess_envs.arena.game import TimeControl, play_game
from chess_envs.core import GameState
from chess_envs.registry import new_state
from tests.agents.test_agents import needs_stockfish


class SlowAgent(AgentBase):
    """Takes ``seconds`` to play its first legal move."""

    def __init__(self, seconds: float) -> None:
        self.name, self.seconds = "slow", seconds

    def reset(self, seed: int | None = None) -> None:
        """Nothing carried between games."""

    def select_action(self, state: GameState) -> int:
        time.sleep(self.seconds)
        return int(state.legal_actions()[0])


def test_an_agent_that_overruns_its_clock_loses_on_time() -> None:
    fast = make_agent("random?seed=1", "los_alamos")
    record = play_game("los_alamos", [fast, SlowAgent(0.2)], new_state("los_alamos").to_text(),
                       time_control=TimeControl(0.5, 0.0))  # fmt: skip
    assert record.termination == "time" and record.scores == [1.0, 0.0] and "lost on time" in (record.forfeit or "")
    assert len(record.clocks) == len(record.moves) and record.clocks[-1] == 0.0


def test_time_controls_are_parsed_and_checked() -> None:
    assert str(TimeControl.parse("10+0.1")) == "10+0.1" and TimeControl.parse("60").increment == 0
    for bad in ("fast", "-1+0", "10+-1"):
        with pytest.raises(ValueError, match="time control"):
            TimeControl.parse(bad)


@pytest.mark.slow
def test_a_clocked_tournament_of_the_shipped_network_loses_no_game_on_time(tmp_path) -> None:
    out = tmp_path / "clocked"
    main(["tournament", "--game", "chess", "--agents", "alphazero:@chess?sims=100000", "greedy?seed=1",
          "--games-per-pair", "2", "--time-control", "3+0.05", "--max-plies", "120", "--workers", "1",
          "--out", str(out), "--quiet"])  # fmt: skip
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(r["termination"] != "time" for r in records), [r["termination"] for r in records]
    assert all(len(r["clocks"]) == len(r["moves"]) and min(r["clocks"]) > 0 for r in records)
    assert "[%clk " in (out / "games.pgn").read_text()


@needs_stockfish
def test_an_engine_without_limits_takes_its_move_time_from_the_clock_and_a_pinned_one_keeps_its_own() -> None:
    start = new_state("chess").to_text()
    clock = TimeControl(4.0, 0.05)
    first = move_time(4.0, 0.05, None, clock.overhead)  # about 0.17 s
    for spec, low, high in (("stockfish", 0.6 * first, first + 0.15), ("stockfish?depth=1", 0.0, 0.05)):
        engine = make_agent(spec, "chess")
        try:
            record = play_game("chess", [engine, make_agent("greedy?seed=1", "chess")], start, max_plies=6,
                               time_control=clock)  # fmt: skip
        finally:
            engine.close()
        spent = clock.base + clock.increment - record.clocks[0]  # the engine's first move
        assert low <= spent <= high, (spec, spent)


def test_a_time_control_per_move_gives_every_move_its_own_budget() -> None:
    per_move = TimeControl.parse("0.3/move")
    assert per_move.per_move and str(per_move) == "0.3/move" and per_move.budget(0.3) == pytest.approx(0.25)
    start = new_state("los_alamos").to_text()
    fast = make_agent("random?seed=1", "los_alamos")
    record = play_game("los_alamos", [fast, SlowAgent(0.1)], start, max_plies=12, time_control=per_move)
    assert record.termination != "time" and len(record.moves) == 12  # 0.6 s in all, 0.1 s a move
    record = play_game("los_alamos", [fast, SlowAgent(0.35)], start, max_plies=12, time_control=per_move)
    assert record.termination == "time" and len(record.moves) == 2
    with pytest.raises(ValueError, match="no increment"):
        TimeControl.parse("1+1/move")


def test_a_network_is_warmed_up_before_its_first_timed_move() -> None:
    # its first call compiles the network (0.3 s or more), far more than a 0.1 s move; the 0.1 s
    # margin forgives a busy machine's hiccup (CI lost a warm move on time), not a cold call
    network, teacher = make_agent("alphazero:@four_player", "four_player"), make_agent("material-mcts", "four_player")
    record = play_game("four_player", [network, teacher, network, teacher], new_state("four_player").to_text(),
                       max_plies=8, time_control=TimeControl.parse("0.1/move", margin=0.1))  # fmt: skip
    assert record.termination == "max_plies" and len(record.moves) == 8, record.forfeit


def test_a_four_player_table_of_two_agents_survives_a_forfeit(tmp_path) -> None:
    out = tmp_path / "flags"  # seated a b a b: the forfeiting agent is dropped once, not once a seat
    main(["tournament", "--game", "four_player", "--agents", "material-mcts", "random", "--games-per-pair", "8",
          "--time-control", "0.001/move", "--workers", "1", "--out", str(out), "--quiet"])  # fmt: skip
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 8 and all(r["termination"] == "time" for r in records)


def test_a_clock_within_its_margin_below_zero_plays_on() -> None:
    fast = make_agent("random?seed=1", "los_alamos")
    start = new_state("los_alamos").to_text()
    for margin, termination in ((0.0, "time"), (0.5, "max_plies")):
        record = play_game("los_alamos", [fast, SlowAgent(0.2)], start, max_plies=4,
                           time_control=TimeControl(0.15, per_move=True, margin=margin))  # fmt: skip
        assert record.termination == termination, margin
    with pytest.raises(ValueError, match="margin"):
        TimeControl.parse("1+0", margin=-1)


class FreezeWatcher(AgentBase):
    """Plays the first legal move and notes how many objects are set aside from full collections."""

    def __init__(self) -> None:
        self.name, self.frozen = "watcher", []

    def reset(self, seed: int | None = None) -> None:
        """Nothing carried between games."""

    def select_action(self, state: GameState) -> int:
        self.frozen.append(gc.get_freeze_count())
        return int(state.legal_actions()[0])


def test_timed_moves_run_with_the_heap_set_aside_from_full_collections() -> None:
    # a full collection with a network loaded took ~0.1 s and lost timed games on time
    for time_control, frozen in ((TimeControl.parse("10+0"), True), (None, False)):
        watcher = FreezeWatcher()
        play_game("los_alamos", [watcher, make_agent("random?seed=1", "los_alamos")], new_state("los_alamos").to_text(),
                  max_plies=6, time_control=time_control)  # fmt: skip
        assert all(count > 0 for count in watcher.frozen) == frozen and watcher.frozen
        assert gc.get_freeze_count() == 0, "unfrozen when the game ends"


class FakeClock:
    """``time.monotonic`` for the search agent's module: moved on by the simulations it runs."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_timed_search_that_runs_through_cheap_positions_into_new_ones_still_ends_on_time(monkeypatch) -> None:
    # Positions read before (the evaluation cache) cost next to nothing; a search sized its chunks
    # by its average rate, doubled them through thousands of those, then met new positions in a
    # chunk of 1,024 simulations and overran a 0.35 s move by up to 160 ms (games lost on time).
    clock = FakeClock()
    monkeypatch.setattr("chess_envs.agents.search_agent.time.monotonic", clock)
    agent = make_agent("material-mcts", "four_player")
    real_policy = agent.search.policy
    done = [0]

    def policy(trees, rng, *, simulations, **options):
        for _ in range(simulations):  # the first 3,000 of a move cost 1 us, the rest 200 us
            clock.now += 1e-6 if done[0] < 3000 else 2e-4
            done[0] += 1
        return real_policy(trees, rng, simulations=1, **options)

    monkeypatch.setattr(agent.search, "policy", policy)
    state = new_state("four_player")
    overruns = []
    for _ in range(3):
        done[0], started = 0, clock.now
        agent.think(state.copy(), SearchLimits(seconds=0.35))
        overruns.append(clock.now - started - 0.35)
    assert overruns[0] > 0.01, "the first move has no slow chunk behind it to go by"
    assert max(overruns[1:]) < 0.001, overruns
