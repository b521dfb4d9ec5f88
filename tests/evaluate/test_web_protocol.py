"""The web app's WebSocket against hostile input, on a real server: every bad message gets an error
reply and changes nothing, foreign pages and hosts are refused, nothing the browser sends runs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from urllib.request import Request, urlopen

import pytest

pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets")

import chess_envs.apps.web.sessions as sessions  # noqa: E402
from tests.evaluate.web_server import game_in_play, serve  # noqa: E402

AGENTS = ["random?seed=1", "greedy?seed=1"]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(AGENTS) as address:
        yield address


def socket_url(url: str, query: str = "") -> str:
    return url.replace("http://", "ws://") + "ws" + query


async def exchange(url: str, messages: list[str]) -> list[dict]:
    """Send each message and collect the one reply it gets."""
    replies = []
    async with websockets.connect(socket_url(url), max_size=2**20) as socket:
        hello = json.loads(await socket.recv())
        assert hello["type"] == "hello" and hello["games"]["chess"]["agents"] == AGENTS
        for message in messages:
            await socket.send(message)
            replies.append(json.loads(await asyncio.wait_for(socket.recv(), 30)))
    return replies


def test_hostile_messages_get_an_error_and_change_nothing(url, monkeypatch) -> None:
    built = []
    monkeypatch.setattr(sessions, "make_agent", lambda *args: built.append(args))  # nothing may build an agent
    new = {"type": "new", "game": "chess", "seats": ["human", "greedy?seed=1"]}
    hostile = [
        "{not json",
        json.dumps([1, 2, 3]),
        json.dumps({"type": "format_disk"}),
        json.dumps({"type": "move", "action": 1}),  # no game yet
        json.dumps({**new, "seats": ["human", "stockfish?binary=/bin/sh"]}),
        json.dumps({**new, "seats": ["human", "alphazero:/etc/passwd"]}),
        json.dumps({**new, "seats": ["human", "../../agents/networks/chess.pt"]}),
        json.dumps({**new, "seats": ["human"]}),
        json.dumps({**new, "game": "shogi"}),
        json.dumps({**new, "fen": "not a position"}),
        json.dumps({**new, "options": {"mode": "teams"}}),
        json.dumps({"type": "new", "game": "chess", "seats": ["human", "greedy?seed=1"], "pad": "x" * 10_000}),
    ]
    replies = asyncio.run(exchange(url, hostile))
    assert all(reply["type"] == "error" for reply in replies), replies
    assert "not an agent this server offers" in replies[4]["error"] and "longer than" in replies[-1]["error"]
    assert built == []
    moves = [{"action": 10**9, "ply": 0}, {"action": -1, "ply": 0}, {"action": "e2e4"}, {"action": True, "ply": 0},
             {"action": 0, "ply": 5}]  # fmt: skip
    after = [json.dumps(new)] + [json.dumps({"type": "move", **move}) for move in moves]
    replies = asyncio.run(exchange(url, after))
    assert replies[0]["type"] == "state" and all(r["type"] == "error" for r in replies[1:]), replies
    legal = replies[0]["legal"][0]["action"]
    replies = asyncio.run(exchange(url, [json.dumps(new), json.dumps({"type": "move", "action": legal, "ply": 0})]))
    assert replies[1]["type"] == "state" and replies[1]["ply"] >= 1  # the server keeps serving


def test_foreign_origins_and_hosts_are_refused(url) -> None:
    async def connect(**headers) -> None:
        async with websockets.connect(socket_url(url), **headers) as socket:
            await socket.recv()

    with pytest.raises(websockets.exceptions.InvalidStatus):
        asyncio.run(connect(origin="http://evil.example"))
    with pytest.raises(websockets.exceptions.InvalidStatus):
        asyncio.run(connect(additional_headers={"Host": "rebound.example:80"}))
    asyncio.run(connect(origin=url.rstrip("/")))  # the page's own origin is welcome
    with pytest.raises(Exception, match="403"):
        urlopen(Request(url, headers={"Host": "rebound.example"}), timeout=10)
    assert b"chess-envs" in urlopen(url, timeout=10).read()


def test_one_client_cannot_see_another_clients_game(url) -> None:
    async def scenario() -> tuple[dict, dict]:
        async with websockets.connect(socket_url(url)) as first, websockets.connect(socket_url(url)) as second:
            await first.recv(), await second.recv()
            await first.send(json.dumps({"type": "new", "game": "los_alamos", "seats": ["human", "random?seed=1"]}))
            state = json.loads(await first.recv())
            await second.send(json.dumps({"type": "move", "action": state["legal"][0]["action"], "ply": 0}))
            intrusion = json.loads(await second.recv())
            await second.send(json.dumps({"type": "resume", "session": "0" * 32}))
            return intrusion, json.loads(await second.recv())

    intrusion, guess = asyncio.run(scenario())
    assert intrusion == {"type": "error", "error": "start a game first"}
    assert guess["type"] == "error" and "no such game" in guess["error"]


def test_off_loopback_a_token_is_required() -> None:
    with serve(AGENTS, token="sesame") as address:

        async def hello(query: str) -> str:
            async with websockets.connect(socket_url(address, query)) as socket:
                return json.loads(await socket.recv())["type"]

        with pytest.raises(websockets.exceptions.InvalidStatus):
            asyncio.run(hello(""))
        with pytest.raises(websockets.exceptions.InvalidStatus):
            asyncio.run(hello("?token=wrong"))
        assert asyncio.run(hello("?token=sesame")) == "hello"


def test_clocks_run_for_the_side_to_move_and_a_late_move_loses_on_time(url) -> None:
    async def scenario() -> tuple[dict, dict, dict]:
        async with websockets.connect(socket_url(url)) as socket:
            await socket.recv()
            new = {"type": "new", "game": "los_alamos", "seats": ["human", "greedy?seed=1"], "clock": "1+0.5"}
            await socket.send(json.dumps(new))
            first = json.loads(await socket.recv())
            await socket.send(json.dumps({"type": "move", "action": first["legal"][0]["action"], "ply": 0}))
            mine = json.loads(await socket.recv())
            while (reply := json.loads(await socket.recv()))["human_to_move"] is False and reply["result"] is None:
                pass
            await asyncio.sleep(1.6)  # the rest of our second and the increment run out
            await socket.send(json.dumps({"type": "move", "action": reply["legal"][0]["action"], "ply": reply["ply"]}))
            return first, mine, json.loads(await socket.recv())

    first, mine, late = asyncio.run(scenario())
    assert first["clocks"] == [1.0, 1.0]
    assert 1.0 < mine["clocks"][0] <= 1.5 and mine["clocks"][1] <= 1.0  # the increment added after our move
    assert late["result"] == {"termination": "time", "scores": [0.0, 1.0]} and late["clocks"][0] == 0.0
    bad = asyncio.run(exchange(url, [json.dumps({"type": "new", "game": "chess", "seats": ["human", "random?seed=1"],
                                                 "clock": "soon"})]))  # fmt: skip
    assert bad[0]["type"] == "error" and "time control" in bad[0]["error"]


def test_a_tournament_folder_is_watched_and_its_games_replayed_by_name_only(tmp_path) -> None:
    from chess_envs.arena.game import random_openings
    from chess_envs.arena.tournament import TournamentConfig, run_tournament

    folder = tmp_path / "la-cup"
    openings = random_openings("los_alamos", 1, 4, seed=0)
    run_tournament(TournamentConfig("los_alamos", AGENTS, 2, openings), folder, progress=False)
    assert not (folder / "live").exists()  # every game finished: none shown as playing
    with serve(AGENTS, tournaments=[folder]) as address:

        async def scenario() -> list[dict]:
            async with websockets.connect(socket_url(address)) as socket:
                hello = json.loads(await socket.recv())
                assert hello["tournaments"] == ["la-cup"]
                await socket.send(json.dumps({"type": "watch", "tournament": "la-cup"}))
                listing = json.loads(await socket.recv())
                first = listing["games"][0]["id"]
                replies = [listing]
                for message in ({"type": "replay", "tournament": "la-cup", "id": first},
                                {"type": "replay", "tournament": "la-cup", "id": first, "ply": 3},
                                {"type": "move", "action": 0},
                                {"type": "watch", "tournament": str(folder)},
                                {"type": "watch", "tournament": []},
                                {"type": "replay", "tournament": "la-cup", "id": "../games"},
                                {"type": "replay", "tournament": "la-cup", "id": first, "ply": "3"},
                                {"type": "pgn"}):  # fmt: skip
                    await socket.send(json.dumps(message))
                    replies.append(json.loads(await socket.recv()))
                return replies

        listing, final, third, move, path, unhashable, missing, bad_ply, still = asyncio.run(scenario())
    assert [game["plies"] for game in listing["games"]] and len(listing["games"]) == 2 and listing["live"] == []
    assert final["replay"] and final["ply"] == listing["games"][0]["plies"] and final["result"] is not None
    assert final["result"]["termination"] == listing["games"][0]["termination"]
    assert third["ply"] == 3 and third["result"] is None and third["legal"] == []
    assert move["type"] == path["type"] == unhashable["type"] == missing["type"] == bad_ply["type"] == "error"
    assert still["type"] == "pgn" and still["text"].count(".") >= 1  # a refused replay kept the game shown


def test_a_game_being_played_is_followed_move_by_move_until_its_result(tmp_path) -> None:
    """A tournament's live file (as its worker writes it) is followed: each new move is sent, and
    the recorded result once the game's line is in the results file."""
    from chess_envs.arena.results import ResultsWriter, live_path
    from chess_envs.arena.tournament import RESULTS_FILE

    folder, record, at = game_in_play(tmp_path, AGENTS)
    with serve(AGENTS, tournaments=[folder]) as address:

        async def scenario() -> list[dict]:
            async with websockets.connect(socket_url(address)) as socket:
                await socket.recv()  # hello
                await socket.send(json.dumps({"type": "watch", "tournament": "cup"}))
                listing = json.loads(await socket.recv())
                await socket.send(json.dumps({"type": "replay", "tournament": "cup", "id": record.id}))
                seen = [listing, json.loads(await socket.recv())]
                at(5)
                seen.append(json.loads(await asyncio.wait_for(socket.recv(), 10)))
                with ResultsWriter(folder / RESULTS_FILE) as writer:  # the game ends: its line, then no live file
                    writer.append(record)
                live_path(folder, record.id).unlink()
                seen.append(json.loads(await asyncio.wait_for(socket.recv(), 10)))
                await socket.send(json.dumps({"type": "watch", "tournament": "cup"}))
                seen.append(json.loads(await socket.recv()))
                return seen

        listing, first, later, ended, after = asyncio.run(scenario())
    assert listing["games"] == [] and listing["live"] == [{"id": record.id, "players": record.players, "plies": 2}]
    assert first["live"] and first["ply"] == 2 and first["result"] is None and first["legal"] == []
    assert later["live"] and later["ply"] == 5
    assert not ended["live"] and ended["ply"] == len(record.moves)
    assert ended["result"] == {"termination": record.termination, "scores": record.scores}
    assert after["live"] == [] and [g["id"] for g in after["games"]] == [record.id]


def test_on_a_wildcard_address_any_host_name_is_served_same_origin_only_and_with_the_token() -> None:
    from chess_envs.apps.web.server import WebApp

    web = WebApp(["random"], "0.0.0.0", 8000, token="sesame")
    page = {"host": "192.168.1.5:8000"}
    assert web.allowed(page, {}, token=False) is None
    assert web.allowed(page, {}) == "a token is required"
    assert web.allowed({**page, "origin": "http://192.168.1.5:8000"}, {"token": "sesame"}) is None
    assert web.allowed({**page, "origin": "http://evil.example"}, {"token": "sesame"}) == "foreign Origin"
    loopback = WebApp(["random"], "127.0.0.1", 8000, token=None)
    assert loopback.allowed({"host": "evil.example:8000"}, {}) == "unknown Host"
    assert loopback.allowed({"host": "localhost:8000", "origin": "http://localhost:8000"}, {}) is None


def register_first_move_agent(name: str, before_each_move: Callable[[], object]) -> None:
    """Register agent ``name``: it calls ``before_each_move()``, then plays the first legal move."""
    from chess_envs.agents.base import AgentBase, register_agent

    @register_agent(name)
    class FirstMove(AgentBase):
        def __init__(self, game: str, path: str | None = None) -> None:
            self.name = name

        def reset(self, seed: int | None = None) -> None:
            """Nothing carried between games."""

        def select_action(self, state) -> int:
            before_each_move()
            return int(state.legal_actions()[0])


def test_a_new_game_started_while_the_agent_thinks_gets_its_own_agent_moves() -> None:
    import time

    register_first_move_agent("sleepy", lambda: time.sleep(1.0))  # a second a move, no core used
    with serve(["sleepy"]) as address:

        async def scenario() -> dict:
            async with websockets.connect(socket_url(address)) as socket:
                await socket.recv()
                await socket.send(json.dumps({"type": "new", "game": "los_alamos", "seats": ["sleepy", "human"]}))
                await socket.recv()  # the agent is thinking about its first move
                await socket.send(json.dumps({"type": "new", "game": "los_alamos", "seats": ["human", "sleepy"]}))
                state = json.loads(await socket.recv())
                await socket.send(json.dumps({"type": "move", "action": state["legal"][0]["action"], "ply": 0}))
                await socket.recv()  # our move
                return json.loads(await asyncio.wait_for(socket.recv(), 10))  # the agent's answer

        answer = asyncio.run(scenario())
    assert answer["type"] == "state" and answer["ply"] == 2 and answer["human_to_move"]


def test_two_games_against_one_agent_are_answered_at_the_same_time() -> None:
    import threading

    # moves only once two of its moves are being computed at once (one copy per game, or it fails)
    register_first_move_agent("meeting", threading.Barrier(2, timeout=20).wait)
    with serve(["meeting"], searches=2) as address:

        async def game() -> dict:
            async with websockets.connect(socket_url(address)) as socket:
                await socket.recv()
                await socket.send(json.dumps({"type": "new", "game": "los_alamos", "seats": ["meeting", "human"]}))
                await socket.recv()  # the agent is thinking about its first move
                return json.loads(await asyncio.wait_for(socket.recv(), 30))

        async def both() -> list[dict]:
            return list(await asyncio.gather(game(), game()))

        answers = asyncio.run(both())
    assert all(answer["type"] == "state" and answer["ply"] == 1 for answer in answers), answers


def test_an_agent_is_copied_for_searches_at_once_and_a_third_waits_for_a_copy_back() -> None:
    import threading

    offered = sessions.AgentPool(["greedy?seed=1"], ["los_alamos"], copies=2).agents["greedy?seed=1"]
    got: list[object] = []
    entered = threading.Event()

    def third() -> None:
        with offered.copy("los_alamos") as agent:
            got.append(agent)
            entered.set()

    with offered.copy("los_alamos") as first:
        with offered.copy("los_alamos") as second:
            assert first is not second and len(offered.built["los_alamos"]) == 2
            waiter = threading.Thread(target=third)
            waiter.start()
            assert not entered.wait(0.2), "no third copy is built"
        assert entered.wait(10) and got == [second]
    waiter.join()
    with pytest.raises(ValueError, match="at least one copy"):
        sessions.AgentPool(["greedy"], ["los_alamos"], copies=0)


def test_an_agent_that_plays_teams_only_is_refused_a_free_for_all_seat() -> None:
    teams = "alphazero:@four_player_teams?sims=8"
    new = {"type": "new", "game": "four_player", "seats": ["human", teams, "random?seed=1", "random?seed=1"]}
    with serve(["random?seed=1", teams]) as address:

        async def talk() -> list[dict]:
            async with websockets.connect(socket_url(address), max_size=2**20) as socket:
                hello = json.loads(await socket.recv())
                assert hello["games"]["four_player"]["plays_only"] == {teams: {"mode": "teams"}}
                replies = []
                for options in ({}, {"mode": "ffa"}, {"mode": "teams"}):
                    await socket.send(json.dumps({**new, "options": options}))
                    replies.append(json.loads(await asyncio.wait_for(socket.recv(), 30)))
                return replies

        default, ffa, team_game = asyncio.run(talk())
    for reply in (default, ffa):
        assert reply["type"] == "error" and "plays only with mode=teams, not mode=ffa" in reply["error"], reply
    assert team_game["type"] == "state", team_game
