"""Model cards: one per shipped network, of one schema, read by the code for the play options and
the UCI_Elo levels; every link in a card names a file of the checkout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import chess_envs.agents.cards as cards
import chess_envs.agents.shipped as shipped
from chess_envs.agents.alphazero.checkpoint import load_network
from chess_envs.agents.cards import ModelCardError, load_card, shipped_networks
from chess_envs.agents.shipped import play_options, shipped_agent, shipped_checkpoint, shipped_name
from chess_envs.agents.strength import load_levels
from chess_envs.arena.ratings import elo_of_score
from tools import card_curves

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("chess", "four_player", "four_player_teams", "los_alamos")


def test_the_shipped_networks_are_these() -> None:
    assert cards.shipped_networks() == list(NAMES)


@pytest.mark.parametrize("game", NAMES)
def test_every_shipped_network_has_a_card_of_the_schema(game: str) -> None:
    card = load_card(game)
    assert card is not None and card["network"] == shipped_checkpoint(game).name
    network = load_network(shipped_checkpoint(game), card["game"])[0]
    assert network.config.teams == game.endswith("_teams")
    shape = network.config
    architecture = card["architecture"]
    assert (architecture["filters"], architecture["blocks"]) == (shape.filters, shape.blocks)
    assert architecture["parameters"] == sum(p.numel() for p in network.parameters())
    for rating in card["ratings"]:
        assert 0 <= rating["score"] <= 1 and rating["games"] > 0
        assert not rating["interval"] or rating["interval"][0] <= rating["score"] <= rating["interval"][1]
        assert rating["wall_minutes"] is None or rating["wall_minutes"] > 0
    for page in card["experiments"]:
        assert (ROOT / page).is_file(), page
    assert shipped_agent(game).startswith(f"alphazero:@{game}")
    assert all(f"{name}={value}" in shipped_agent(game) for name, value in play_options(game).items())


def test_the_code_reads_play_options_and_levels_from_the_card(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    card = load_card("chess")
    assert card is not None
    levels = {"levels": [{"simulations": 5, "temperature": 0, "elo": 1}]}
    edited = {**card, "play_options": {"sims": "77"}, "uci_elo": levels}
    (tmp_path / "chess.card.json").write_text(json.dumps(edited))
    monkeypatch.setattr(cards, "FOLDER", tmp_path)
    assert shipped_agent("chess") == "alphazero:@chess?sims=77"
    assert [(level.simulations, level.elo) for level in load_levels("chess")] == [(5, 1.0)]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda card: card.pop("weaknesses"), "missing \\['weaknesses'\\]"),
        (lambda card: card.update(extra=1), "unknown \\['extra'\\]"),
        (lambda card: card["architecture"].update(blocks="six"), "architecture.blocks must be int"),
        (lambda card: card["ratings"][0].update(score=None), "ratings\\[0\\].score must be float"),
        (lambda card: card["ratings"][0].update(wall_minutes="18"), "ratings\\[0\\].wall_minutes must be float"),
        (lambda card: card["ratings"][0].pop("wall_minutes"), "ratings\\[0\\]: missing \\['wall_minutes'\\]"),
        (lambda card: card.update(game="los_alamos"), "card of 'los_alamos'"),
    ],
)
def test_a_bad_card_is_refused_naming_what_is_wrong(monkeypatch, tmp_path: Path, change, message: str) -> None:
    card = json.loads((cards.FOLDER / "chess.card.json").read_text())
    change(card)
    (tmp_path / "chess.card.json").write_text(json.dumps(card))
    monkeypatch.setattr(cards, "FOLDER", tmp_path)
    with pytest.raises(ModelCardError, match=message):
        load_card("chess")
    (tmp_path / "chess.card.json").write_text("{not json")
    with pytest.raises(ModelCardError, match="not readable JSON"):
        load_card("chess")


def test_a_mode_plays_its_own_network_where_one_is_shipped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(shipped, "FOLDER", tmp_path)
    assert shipped_name("four_player", {"mode": "teams"}) == "four_player"  # none shipped: the game's
    (tmp_path / "four_player_teams.pt").write_bytes(b"")
    assert shipped_name("four_player", {"mode": "teams"}) == "four_player_teams"
    assert shipped_name("four_player", {"mode": "ffa"}) == shipped_name("four_player") == "four_player"
    card = json.loads((cards.FOLDER / "four_player.card.json").read_text())
    monkeypatch.setattr(cards, "FOLDER", tmp_path)
    (tmp_path / "four_player_teams.card.json").write_text(json.dumps(card))  # still naming four_player.pt
    with pytest.raises(ModelCardError, match="not a .* of the network four_player_teams.pt"):
        load_card("four_player_teams")
    (tmp_path / "four_player_teams.card.json").write_text(json.dumps({**card, "network": "four_player_teams.pt"}))
    assert load_card("four_player_teams") is not None and cards.shipped_networks() == ["four_player_teams"]


def test_every_learning_curve_is_drawn_from_the_cards(tmp_path: Path) -> None:
    out = tmp_path / "curves.png"
    drawn = card_curves.draw(out)
    assert drawn == [name for name in shipped_networks() if load_card(name)["learning_curve"]]
    assert "chess" in drawn and out.read_bytes().startswith(b"\x89PNG")


def test_a_score_becomes_elo_on_elo_s_curve() -> None:
    assert elo_of_score(0.5) == 0 and elo_of_score(0.76) == pytest.approx(200, abs=1)
    assert elo_of_score(1.0) == pytest.approx(1200, abs=1) and elo_of_score(0.0) == -elo_of_score(1.0)
    with pytest.raises(ValueError, match="from 0 to 1"):
        elo_of_score(1.5)
