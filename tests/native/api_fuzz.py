"""A stateful fuzz harness over the public and the ``chess_envs._core`` API.

Random sequences of calls on a pool of live objects (game states, search trees, MCTS searches,
raw native searches mid-wave, vector envs): create, apply, undo, copy, observe with buffers of
every wrong dtype and shape, search, choose, advance, raw waves in any order, step, reset, ``del``
+ ``gc.collect()`` (searches and trees mid-wave included), perft, FEN text, and a second thread on
the same vector env or MCTS. A call may fail only with a clear exception (ValueError, TypeError,
RuntimeError and its InUseError, IndexError, IllegalActionError); anything else, a crash, or a game
left changed by a call that failed, or by a search, fails the run. Under the sanitizer build
(``tests/native/sanitizers.sh``) a memory error ends the process with a report.

Run: ``python -m tests.native.api_fuzz --calls 10000000 --seed 1`` prints the calls per kind.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from chess_envs import InUseError
from chess_envs.native import core
from chess_envs.registry import new_state
from chess_envs.search.mcts import MCTS, SearchTree
from chess_envs.search.settings import MCTSConfig
from chess_envs.vector_env import GameVectorEnv

GAMES = ("chess", "los_alamos", "four_player")
CLEAR = (ValueError, TypeError, RuntimeError, IndexError)  # InUseError and IllegalActionError included
FENS = {
    "chess": [
        None,
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",  # checkmate
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
        "4k3/8/8/8/8/8/P7/4K1N1 w - - 97 60",  # the fifty-move rule in three plies
        "8/P7/8/8/8/8/7p/K6k w - - 0 1",  # promotions
    ],
    "los_alamos": [None, "k5/6/6/6/6/1R2RK w - - 0 1", "5k/6/6/6/p5/K5 w - - 0 1"],
    "four_player": [None],
}
# The steps of a raw native search, drawn in any order (receive and del twice as often).
RAW_STEPS = ("expand", "begin", "collect", "receive", "receive", "abort", "choose", "noise", "del", "del")
BAD_DTYPES = (np.float64, np.int8, np.uint8, np.bool_, np.int64, np.float16)


class Harness:
    """The object pool and one method per kind of call."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.states: list[Any] = []
        self.trees: list[SearchTree] = []
        self.raw: list[dict[str, Any]] = []  # raw native searches with their trees, state and phase
        self.envs: list[GameVectorEnv] = []
        self.mcts: dict[str, MCTS] = {}
        self.counts: Counter[str] = Counter()
        self.failures: Counter[str] = Counter()
        self._last_op = ""

    # -- helpers ---------------------------------------------------------------------------

    def evaluator(self, game: str) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
        state = new_state(game)
        actions, values = state.num_actions, 1 if state.num_players == 2 else 4

        def evaluate(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            n = len(planes)
            return (
                self.np_rng.standard_normal((n, actions), dtype=np.float32),
                np.tanh(self.np_rng.standard_normal((n, values), dtype=np.float32)),
            )

        return evaluate

    def new_state(self) -> Any:
        game = self.rng.choice(GAMES)
        return new_state(game, self.rng.choice(FENS[game]))

    def pick(self, pool: list) -> Any:
        return self.rng.choice(pool) if pool else None

    def buffer(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        """The right buffer most of the time, else a wrong dtype, size or layout."""
        roll = self.rng.random()
        if roll < 0.7:
            return np.zeros(shape, dtype)
        if roll < 0.8:
            return np.zeros(shape, self.rng.choice(BAD_DTYPES))
        if roll < 0.9:
            return np.zeros((max(1, int(np.prod(shape)) + self.rng.choice((-1, 1))),), dtype)
        wide = np.zeros((*shape[:-1], shape[-1] * 2), dtype)
        return wide[..., ::2]

    def collect_garbage(self) -> None:
        """gc.collect(): the young generation each time, everything now and then (a full pass
        costs tens of milliseconds with torch loaded)."""
        gc.collect(2 if self.rng.random() < 0.01 else 0)

    # -- the kinds of call -----------------------------------------------------------------

    def create(self) -> None:
        if len(self.states) < 12:
            self.states.append(self.new_state())

    def apply(self) -> None:
        state = self.pick(self.states)
        if state is None:
            return
        before = state.to_text()
        legal = state.legal_actions()
        if len(legal) and self.rng.random() < 0.9:
            action = int(self.rng.choice(legal))
        else:
            action = self.rng.randrange(-5, 20000)
        try:
            state.apply(action)
        except CLEAR:
            assert state.to_text() == before, "a refused apply changed the game"
            raise

    def undo(self) -> None:
        state = self.pick(self.states)
        if state is None:
            return
        before = state.to_text()
        try:
            state.undo()
        except CLEAR:
            assert state.to_text() == before, "a refused undo changed the game"
            raise

    def copy(self) -> None:
        state = self.pick(self.states)
        if state is not None and len(self.states) < 12:
            self.states.append(state.copy())

    def observe(self) -> None:
        state = self.pick(self.states)
        if state is None:
            return
        game = state._game
        if self.rng.random() < 0.5:
            game.observation(self.rng.randrange(-1, 5), self.buffer(state.observation_shape, np.float32))
        else:
            game.legal_mask_bool(self.buffer((state.num_actions,), np.bool_))

    def tree(self) -> None:
        state = self.pick(self.states)
        if state is not None and len(self.trees) < 10:
            self.trees.append(SearchTree(state))

    def search(self) -> None:
        if not self.trees:
            return
        tree = self.rng.choice(self.trees)
        game = tree.state.game_name
        same = [t for t in self.trees if t.state.game_name == game]
        chosen = self.rng.sample(same, self.rng.randint(1, min(3, len(same))))
        if self.rng.random() < 0.9:  # mostly live games: one that is over refuses the whole call
            chosen = [t for t in chosen if not t.state.is_terminal()] or chosen
        before = [t.state.to_text() for t in chosen]
        config = MCTSConfig(
            simulations=self.rng.choice((1, 4, 8, 16)),
            leaves_per_tree=self.rng.choice((1, 4, 8)),
            gumbel=self.rng.random() < 0.3,
            dirichlet_fraction=self.rng.choice((0.0, 0.25)),
            threads=self.rng.choice((1, 2)),
            cache_mb=self.rng.choice((0.0, 1.0)),
            planes=self.rng.choice(("float32", "uint8")),
        )
        evaluate = self.evaluator(game)

        def meddling(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """The evaluator, which now and then drops a searched tree or moves a searched game."""
            if self.rng.random() < 0.3 and self.trees:
                self.counts["search.del_mid_search"] += 1
                self.trees.remove(self.rng.choice(self.trees))
                self.collect_garbage()
            target = self.rng.choice(chosen).state
            legal = target.legal_actions()
            if self.rng.random() < 0.3 and len(legal):
                self.counts["search.apply_mid_search"] += 1
                try:
                    target.apply(int(legal[0]))
                except InUseError:
                    pass
                else:
                    raise AssertionError("a searched game took a move mid-search")
            return evaluate(planes)

        mcts = MCTS(meddling, tree.state.num_players, config)
        self.mcts[game] = mcts
        temperature = [self.rng.choice((0.0, 1.0)) for _ in chosen] if self.rng.random() < 0.5 else 1.0
        try:
            output = mcts.policy(chosen, np.random.default_rng(self.rng.randrange(99)), temperature=temperature)
        finally:
            assert [t.state.to_text() for t in chosen] == before, "a search changed a game"
        for action, tree in zip(output.action, chosen):
            assert action in tree.state.legal_actions(), "the search chose an illegal move"

    def choose(self) -> None:
        """A move chosen again from a tree's statistics: a policy call with no (or one) simulation."""
        tree = self.pick(self.trees)
        if tree is None or tree.state.game_name not in self.mcts:
            return
        game = tree.state.game_name  # the last search's settings, without its meddling evaluator
        mcts = MCTS(self.evaluator(game), tree.state.num_players, self.mcts[game].config)
        output = mcts.policy(
            [tree],
            np.random.default_rng(self.rng.randrange(99)),
            temperature=self.rng.choice((0.0, 1.0)),
            simulations=0 if self.rng.random() < 0.7 else 1,
        )
        assert output.action[0] in tree.state.legal_actions(), "the search chose an illegal move"
        assert len(output.legal_actions[0]) == len(output.action_weights[0]) == len(output.visit_counts[0])

    def advance(self) -> None:
        tree = self.pick(self.trees)
        if tree is None:
            return
        legal = tree.state.legal_actions()
        action = int(self.rng.choice(legal)) if len(legal) and self.rng.random() < 0.9 else self.rng.randrange(20000)
        tree.advance(action)

    def raw_wave(self) -> None:
        """One step of a raw native search, in the right order or not."""
        if len(self.raw) < 4 and (not self.raw or self.rng.random() < 0.1):
            state = self.pick(self.states)
            if state is None:
                return
            mcts = MCTS(self.evaluator(state.game_name), state.num_players, MCTSConfig(threads=self.rng.choice((1, 2))))
            same = [state] + [s for s in self.states if s.game_name == state.game_name and s is not state]
            trees = [SearchTree(s) for s in same[: self.rng.randint(1, 3)]]
            self.raw.append(
                {
                    "search": mcts._native_search(state),
                    "trees": trees,
                    "state": state,
                    "evaluate": mcts.evaluate,
                    "rows": 0,
                }
            )
            return
        op = self.rng.choice(RAW_STEPS)
        held = [e for e in self.raw if any(t._native.in_search for t in e["trees"])]
        entry = self.pick(held) if op == "del" and held else self.pick(self.raw)  # deletions mostly mid-search
        if entry is None:
            return
        search, trees, state = entry["search"], entry["trees"], entry["state"]
        handles = [t._native for t in trees]
        rows = max(1, len(trees) * 8 + self.rng.choice((0, 0, 0, -3)))
        planes = np.zeros((rows, *state.observation_shape), self.rng.choice((np.float32, np.uint8)))
        self.counts[f"raw_wave.{op}"] += 1
        self._last_op = op
        if op == "expand":
            entry["rows"] = search.expand_roots(handles, state.num_actions, planes)
        elif op == "begin":
            search.begin(handles, self.rng.choice((0, 8, 32)))
        elif op == "collect":
            entry["rows"] = search.collect(planes)
        elif op == "receive":
            logits, values = entry["evaluate"](np.zeros((max(entry["rows"], 0), 1)))
            if self.rng.random() < 0.1:
                logits = logits[:, :-1].copy()
            if self.rng.random() < 0.05 and logits.size:
                logits[0, :] = np.nan
            search.receive(np.ascontiguousarray(logits), np.ascontiguousarray(values))
        elif op == "abort":
            search.abort()
        elif op == "choose" and self.rng.random() < 0.5:
            search.choose(self.rng.choice(handles), self.rng.random() < 0.5)
        elif op == "choose":  # all the trees' answers at once, sometimes with a flag too few or too many
            chosen = self.rng.sample(handles, self.rng.randint(0, len(handles)))
            flags = [self.rng.random() < 0.5 for _ in range(len(chosen) + self.rng.choice((-1, 0, 0, 0, 1)))]
            search.answers(chosen, flags, self.rng.random() < 0.5)
        elif op == "noise":
            handle = self.rng.choice(handles)
            size = max(handle.root_size, 0)
            search.mix_noise(handle, self.np_rng.dirichlet(np.ones(size)) if size else np.zeros(0), 0.25)
        else:  # drop a tree or the whole search, mid-wave or not
            if any(handle.in_search for handle in handles):
                self.counts["raw_wave.del_mid_search"] += 1
            if len(trees) > 1 and self.rng.random() < 0.7:
                trees.pop(self.rng.randrange(len(trees)))
            else:
                self.raw.remove(entry)
            del search, handles
            self.collect_garbage()

    def delete(self) -> None:
        pools = [p for p in (self.states, self.trees, self.envs) if p]
        if pools:
            pool = self.rng.choice(pools)
            pool.pop(self.rng.randrange(len(pool)))
            self.collect_garbage()

    def vector(self) -> None:
        if len(self.envs) < 3 and (not self.envs or self.rng.random() < 0.05):
            game = self.rng.choice(GAMES)
            self.envs.append(
                GameVectorEnv(
                    self.rng.choice((1, 4)),
                    game,
                    threads=self.rng.choice((1, 2)),
                    opponent=self.rng.choice((None, "random")),
                    agent_seat=self.rng.randrange(4 if game == "four_player" else 2),
                    max_plies=self.rng.choice((None, 1, 40)),
                    copy=self.rng.random() < 0.5,
                )
            )
            self.envs[-1].reset(seed=self.rng.randrange(100))
            return
        env = self.pick(self.envs)
        if env is None:
            return
        roll = self.rng.random()
        if roll < 0.1:
            env.reset(seed=self.rng.randrange(100))
        elif roll < 0.15:
            env.reset_done()
        elif roll < 0.2:  # the native batch with buffers that may be wrong
            env._batch.reset(0, True, self.buffer(env._obs.shape, np.float32), self.buffer(env._mask.shape, np.uint8))
        else:
            actions = env.random_actions()
            if self.rng.random() < 0.1:
                actions[self.rng.randrange(len(actions))] = self.rng.randrange(-3, 30000)
            env.step(actions)

    def threads(self) -> None:
        """Two threads on one vector env (or one MCTS): each call runs or is refused, nothing breaks."""
        env = self.pick(self.envs)
        if env is None:
            return
        refused = []

        def hammer() -> None:
            for _ in range(20):
                try:
                    env.step(env.random_actions())
                except InUseError:
                    refused.append(1)

        worker = threading.Thread(target=hammer)
        worker.start()
        for _ in range(20):
            try:
                env.step(env.random_actions())
            except InUseError:
                refused.append(1)
        worker.join()

    def perft(self) -> None:
        state = self.pick(self.states)
        if state is None:
            return
        if state.game_name == "four_player":
            from chess_envs.four_player.native import parse_board

            parse_board(state.to_text()).perft(self.rng.randrange(-1, 2))
        else:
            state._game.perft(self.rng.randrange(-1, 3))

    def mate(self) -> None:
        """The mate probe on its own: any state (held by a search or not), any depth and budget."""
        state = self.pick(self.states)
        if state is None or state.game_name == "four_player":
            return
        before = state.to_text()
        core.forced_wins(state._game, self.rng.randrange(-1, 7), self.rng.choice((-5, 0, 10, 500, 5000)))
        assert state.to_text() == before, "the probe leaves the game as it found it"

    def text(self) -> None:
        game = self.rng.choice(GAMES)
        base = self.pick(self.states)
        text = base.to_text() if base is not None and base.game_name == game else new_state(game).to_text()
        chars = list(text)
        for _ in range(self.rng.randint(0, 3)):
            chars[self.rng.randrange(len(chars))] = self.rng.choice("pnbrqkPNBRQK0123456789/ -wbyrgx")
        new_state(game, "".join(chars))

    # Kind -> weight: the costly kinds (a search, a thread pair, a raw wave) are drawn less often,
    # so that ten million calls give every kind well over 100,000.
    WEIGHTS = {
        "create": 6,
        "apply": 20,
        "undo": 12,
        "copy": 4,
        "observe": 10,
        "tree": 4,
        "search": 1.6,
        "choose": 6,
        "advance": 8,
        "raw_wave": 15,
        "delete": 2,
        "vector": 4,
        "threads": 1.2,
        "perft": 3,
        "text": 3,
        "mate": 2,
    }
    KINDS = tuple(WEIGHTS)

    def run(self, calls: int, report_every: float = 0.0) -> None:
        started = last = time.monotonic()
        kinds = self.rng.choices(self.KINDS, weights=list(self.WEIGHTS.values()), k=calls)
        for i, kind in enumerate(kinds):
            self.counts[kind] += 1
            try:
                getattr(self, kind)()
            except CLEAR:
                self.failures[kind] += 1
                if kind == "raw_wave":
                    self.failures["raw_wave." + self._last_op] += 1
            if report_every and time.monotonic() - last > report_every:
                last = time.monotonic()
                print(f"{i + 1:,} calls, {last - started:.0f} s", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    harness = Harness(args.seed)
    started = time.monotonic()
    harness.run(args.calls, report_every=60)
    print(f"{args.calls:,} calls in {time.monotonic() - started:.0f} s, seed {args.seed}")
    print(f"{'kind':<20} {'calls':>12} {'refused':>12}")
    for kind in sorted(harness.counts):
        print(f"{kind:<20} {harness.counts[kind]:>12,} {harness.failures[kind]:>12,}")


if __name__ == "__main__":
    main()
