"""The shipped networks choose the recorded moves (``tests/data/shipped_moves.json``, written by
``python -m tests.agents.shipped_moves`` before the search API was rebuilt; four-player's again when
its shipped agent began to blend in the material values, 24 of 120 moves changed, and when new
four-player networks were shipped, 51 and then 57 of 120 changed; chess's when part 5 of its fresh
labels was shipped with its own search settings, 138 of 200 changed, part 6, 60 of 200, and the
network grown to ten blocks, 44 of 200): at temperature 0 and without root noise, the same positions
give the same moves."""

from __future__ import annotations

import json

import pytest

from tests.agents.shipped_moves import DATA, chosen_moves

RECORD = json.loads(DATA.read_text())


@pytest.mark.parametrize("game", sorted(RECORD["positions"]))
def test_shipped_network_plays_the_recorded_moves(game: str) -> None:
    texts, expected = zip(*RECORD["positions"][game])
    moves = chosen_moves(game, list(texts))
    differing = [(text, want, got) for text, want, got in zip(texts, expected, moves) if want != got]
    assert not differing, f"{len(differing)} of {len(texts)} moves differ, first: {differing[:3]}"
