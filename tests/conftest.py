"""Shared fixtures (seeded random games that visit castling, en passant and promotions) and the
order of the run: the files holding a slow test first."""

from __future__ import annotations

import ctypes
import random
import signal
import sys
from collections.abc import Iterator

import chess
import pytest

from chess_envs.standard import ChessState


def random_positions(count: int, seed: int, **options) -> list[ChessState]:
    """``count`` states from seeded random games (both colours to move, early and late plies).

    Moves are uniform at random except that castling, en passant and promotions are preferred
    when available and pawn moves often, so the sample holds many of each.
    """
    rng = random.Random(seed)
    states: list[ChessState] = []
    while len(states) < count:
        state = ChessState(**options)
        while not state.is_terminal() and len(states) < count:
            states.append(state.copy())
            moves = list(state.board.legal_moves)
            board = state.board
            special = [m for m in moves if m.promotion or board.is_en_passant(m) or board.is_castling(m)]
            pawn_moves = [m for m in moves if board.pawns & chess.BB_SQUARES[m.from_square]]
            if special and rng.random() < 0.7:
                moves = special
            elif pawn_moves and rng.random() < 0.4:
                moves = pawn_moves
            move = rng.choice(moves)
            state.apply_move(move)
    return states


@pytest.fixture(scope="session")
def positions() -> list[ChessState]:
    return random_positions(2500, seed=7)


KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
STARTING_FEN = chess.STARTING_FEN


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Ctrl-C (SIGINT) raises KeyboardInterrupt in this process and in the ones it starts, even where
    the tests run in a background job, which starts with SIGINT ignored (a child inherits an ignored
    signal; a handled one is reset to the default at ``exec``, and Python then installs its own)."""
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.fixture(autouse=True)
def _signal_handlers_kept() -> Iterator[None]:
    """A test leaves the process's Ctrl-C, SIGTERM and SIGPIPE handling as it found it: the processes
    later tests start inherit an ignored SIGINT, so a leaked change made them pass or fail by test
    order, and a SIGTERM or SIGPIPE left at the default ends the test worker without a word. Nor
    may it leave the alternate signal stack the handlers run on pointing at freed memory (as two
    OpenVINO Cores did): the next signal handled in that worker would kill it."""
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE)}
    stack = alternate_signal_stack()
    yield
    changed = {signal.Signals(n).name: h for n, h in before.items() if signal.getsignal(n) != h}
    for number, handler in before.items():
        signal.signal(number, handler)
    assert not changed, f"the test changed the handlers of {sorted(changed)} and left them changed"
    now = alternate_signal_stack()
    assert now is None or now == stack or mapped(now), (
        f"the test left this thread's alternate signal stack on unmapped memory ({now[1]} bytes at "
        f"{now[0]:#x}): the next signal Python handles (Ctrl-C, SIGTERM) kills the process"
    )


class _Stack(ctypes.Structure):
    _fields_ = [("sp", ctypes.c_void_p), ("flags", ctypes.c_int), ("size", ctypes.c_size_t)]


def alternate_signal_stack() -> tuple[int, int] | None:
    """(address, size) of this thread's alternate signal stack (Linux), where Python's signal
    handlers run; None where there is none or this is not Linux."""
    if sys.platform != "linux":
        return None
    stack = _Stack()
    ctypes.CDLL(None).sigaltstack(None, ctypes.byref(stack))
    return None if stack.flags & 2 or not stack.sp else (stack.sp, stack.size)  # 2: SS_DISABLE


def mapped(stack: tuple[int, int] | None) -> bool:
    """Whether all of ``stack`` lies in one mapping of this process's memory."""
    if stack is None:
        return True
    start, size = stack
    with open("/proc/self/maps") as maps:
        spans = (line.split(maxsplit=1)[0].split("-") for line in maps)
        return any(int(low, 16) <= start and start + size <= int(high, 16) for low, high in spans)


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist's ``--dist loadfile``, hand files out in the order below, not sorted by
    how many tests each holds (xdist's default, which sent the one-test sanitizer file last)."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files holding a slow test run first (each file's tests stay together, in their order): in
    ``pytest -n 2 --dist loadfile`` the two workers start the long files at once and share out
    the many short ones after, instead of one worker ending the run alone on a long file."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)
