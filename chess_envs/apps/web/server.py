"""``chess-envs serve``: a local web app to play the three games against the agents the server was
started with, and to watch agents play each other (Starlette on uvicorn, one WebSocket per page).

Messages are JSON objects with a ``type``: the browser sends ``new`` (game, seats, options, FEN),
``move`` (an action index), ``takeback``, ``resume`` (a session id, after a reload), ``pgn``,
``watch`` (a tournament offered, by name) and ``replay`` (one of its games by id: a finished game
at a ply, or a game being played, whose new moves are then sent as they come); the server answers
``hello`` (games and the agents offered for each), ``state``, ``pgn``, ``tournament`` (its
finished games and those being played) and ``error``. Every message is checked before it
changes anything: a bad one gets an ``error`` reply.
Requests whose ``Host`` or ``Origin`` is not this server are refused (no page of another site,
and no DNS-rebinding name, drives it); off loopback a token is required. Agent moves run on worker
threads, searches at most ``searches`` at once (an agent that does not search, like greedy, needs
no slot), each on a copy of its agent no other search is using (so two games against one network
are answered together), and are stopped by a takeback, a new game or a disconnect.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import ipaddress
import json
import secrets
import sys
import time
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from chess_envs.agents.base import check_game_options
from chess_envs.agents.cards import shipped_networks
from chess_envs.agents.engine import _find_binary
from chess_envs.agents.shipped import shipped_agent
from chess_envs.apps.web.sessions import HUMAN, AgentPool, Session, Sessions, analysis_of
from chess_envs.arena.game import GameRecord, TimeControl
from chess_envs.arena.results import read_live, read_live_game, read_results
from chess_envs.arena.tournament import CONFIG_FILE, RESULTS_FILE
from chess_envs.registry import game_names, get_game

STATIC = Path(__file__).resolve().parent / "static"
MAX_MESSAGE = 4096
"""bytes: anything longer is refused unread"""
MESSAGE_TYPES = {"new", "move", "takeback", "resume", "pgn", "watch", "replay"}
FOLLOW_INTERVAL = 0.5
"""seconds between two looks at a followed tournament game's live file"""


class Refused(ValueError):
    """A message that is answered with an error and changes nothing."""


class WebApp:
    """The server's state: the agents offered, the sessions, the search slots and who may connect."""

    def __init__(
        self,
        specs: list[str],
        host: str,
        port: int,
        token: str | None,
        searches: int = 2,
        move_delay: float = 0.0,
        tournaments: list[Path] | None = None,
    ) -> None:
        self.pool = AgentPool(specs, game_names(), searches)
        self.tournaments = {folder.name: folder for folder in tournaments or []}
        """tournament folders offered to watch, by folder name (the browser never sends a path)"""
        self.sessions = Sessions()
        self.searches = asyncio.Semaphore(searches)
        self.token = token
        self.move_delay = move_delay
        """seconds between agent moves in a game without humans, so people can watch it"""
        names = {host, "localhost", "127.0.0.1", "[::1]"} if _is_loopback(host) else {host}
        self.hosts: set[str] | None = {f"{name}:{port}" for name in names}
        """the Host headers accepted; None on a wildcard address (any name; the token guards it)"""
        if host in ("0.0.0.0", "::", "[::]"):
            self.hosts = None

    # -- who may connect ------------------------------------------------------------------

    def allowed(self, headers: Any, query: Any, token: bool = True) -> str | None:
        """None when the request may go on, else why not (the page and its files, the same for
        everyone, need no token; the WebSocket that plays does)."""
        host = headers.get("host", "")
        if self.hosts is not None and host not in self.hosts:
            return "unknown Host"
        origin = headers.get("origin")
        if origin is not None and origin != f"http://{host}" and origin != f"https://{host}":
            return "foreign Origin"  # pages of this server only
        if token and self.token is not None and not secrets.compare_digest(query.get("token", ""), self.token):
            return "a token is required"
        return None

    # -- messages -------------------------------------------------------------------------

    def hello(self) -> dict[str, Any]:
        games = {}
        for name in game_names():
            record = get_game(name)
            games[name] = {
                "players": record.num_players,
                "agents": self.pool.playable[name],
                "plays_only": self.pool.plays_only[name],
                "options": {o.name: list(o.choices) for o in record.options},
            }
        return {"type": "hello", "games": games, "tournaments": sorted(self.tournaments)}

    def tournament(self, message: dict[str, Any]) -> tuple[Path, list[GameRecord], dict[str, Any]]:
        """The offered tournament a message names: its folder, finished games so far and game options."""
        name = message.get("tournament")
        if not isinstance(name, str) or name not in self.tournaments:
            raise Refused(f"{str(name)[:60]!r} is not a tournament this server shows")
        folder = self.tournaments[name]
        with warnings.catch_warnings():  # a line being written now is read next time
            warnings.simplefilter("ignore")
            records = list(read_results(folder / RESULTS_FILE).values())
        path = folder / CONFIG_FILE
        config = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        return folder, records, config.get("options") or {}

    def new_session(self, message: dict[str, Any]) -> Session:
        game = message.get("game")
        if game not in game_names():
            raise Refused(f"unknown game {str(game)[:40]!r}")
        record = get_game(game)
        seats = message.get("seats")
        if not isinstance(seats, list) or len(seats) != record.num_players:
            raise Refused(f"{game} needs a list of {record.num_players} seats")
        for seat in seats:
            if seat != HUMAN and seat not in self.pool.playable[game]:
                raise Refused(f"{str(seat)[:60]!r} is not an agent this server offers for {game}")
        options = message.get("options") or {}
        if not isinstance(options, dict) or not all(isinstance(v, str) for v in options.values()):
            raise Refused("options are an object of strings")
        fen = message.get("fen")
        if fen is not None and (not isinstance(fen, str) or len(fen) > 400):
            raise Refused("fen is a position text")
        clock = message.get("clock")
        if clock is not None and (not isinstance(clock, str) or len(clock) > 20):
            raise Refused("clock is a time control like 5+3")
        try:
            for seat in seats:
                check_game_options(self.pool.plays_only[game].get(seat, {}), seat, game, options)
            control = TimeControl.parse(clock) if clock else None
            return self.sessions.new(game, list(seats), options, fen or None, control)
        except ValueError as error:
            raise Refused(str(error)) from None


def _is_loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse(raw: str) -> dict[str, Any]:
    """A message checked for size, JSON and type; Refused otherwise."""
    if len(raw) > MAX_MESSAGE:
        raise Refused(f"message longer than {MAX_MESSAGE} bytes")
    try:
        message = json.loads(raw)
    except ValueError:
        raise Refused("not JSON") from None
    if not isinstance(message, dict) or message.get("type") not in MESSAGE_TYPES:
        raise Refused(f"a message is an object with a type among {sorted(MESSAGE_TYPES)}")
    return message


class Connection:
    """One page's WebSocket: its session and the agent moves running for it."""

    def __init__(self, app: WebApp, socket: WebSocket) -> None:
        self.app, self.socket = app, socket
        self.session: Session | None = None
        self.playing: asyncio.Task | None = None
        self.playing_for: Session | None = None
        self.following: asyncio.Task | None = None
        """the task sending a followed tournament game's new moves (kept so it is not collected)"""

    async def send(self, message: dict[str, Any]) -> None:
        await self.socket.send_text(json.dumps(message))

    async def handle(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "watch":
            folder, records, _ = self.app.tournament(message)
            games = [{"id": r.id, "players": r.players, "scores": r.scores, "termination": r.termination,
                      "plies": len(r.moves)} for r in records]  # fmt: skip
            finished = {r.id for r in records}
            live = [{"id": r.id, "players": r.players, "plies": len(r.moves)}
                    for r in read_live(folder).values() if r.id not in finished]  # fmt: skip
            await self.send({"type": "tournament", "name": folder.name, "games": games, "live": live})
            return
        if kind in ("new", "replay"):  # checked in full before the game shown so far is dropped
            shown, followed = (self.app.new_session(message), None) if kind == "new" else self.replay(message)
            if self.session is not None:
                self.app.sessions.drop(self.session)
            self.session = shown
            if followed is not None:
                self.following = asyncio.create_task(self.follow(*followed, shown))
        elif kind == "resume":
            found = self.app.sessions.get(str(message.get("session", ""))[:64])
            if found is None:
                raise Refused("no such game (it may have expired)")
            self.session = found
        else:
            session = self.session
            if session is None:
                raise Refused("start a game first")
            if kind == "move" and session.replay:
                raise Refused("this is a finished game being replayed")
            if kind == "move":
                action = message.get("action")
                if not isinstance(action, int) or isinstance(action, bool):
                    raise Refused("move needs an integer action")
                if message.get("ply", len(session.actions)) != len(session.actions):
                    raise Refused("that move was for another position")
                if not session.human_to_move():
                    raise Refused("it is not your move")
                try:
                    session.play(action)
                except ValueError as error:
                    raise Refused(str(error)) from None
            elif kind == "takeback":
                session.takeback()
            elif kind == "pgn":
                await self.send({"type": "pgn", "text": session.pgn(), "game": session.game})
                return
        if self.session is not None:
            await self.send(self.session.view(self.app.pool))
        self.start_agents()

    def replay(self, message: dict[str, Any]) -> tuple[Session, tuple[Path, str] | None]:
        """The tournament game a ``replay`` message names by id: a finished one after ``ply`` plies
        (all by default), or one being played, to follow (its tournament's folder and its id)."""
        folder, records, options = self.app.tournament(message)
        game_id, plies = message.get("id"), message.get("ply", 10**6)
        if not isinstance(game_id, str) or not isinstance(plies, int) or isinstance(plies, bool):
            raise Refused("replay needs a game id of the tournament and an integer ply")
        ended = {r.id: r for r in records}.get(game_id)
        if ended is not None:
            return self.app.sessions.replay(ended, options, max(0, plies)), None
        playing = read_live(folder).get(game_id)
        if playing is None:
            raise Refused(f"{game_id[:40]!r} is not a game of that tournament")
        return self.app.sessions.replay(playing, options, 10**6, live=True), (folder, game_id)

    def start_agents(self) -> None:
        session = self.session
        if session is None or not session.agent_to_move():
            return
        # A task still playing for this session plays on; one for an earlier game (its search
        # waiting for a slot or stopping) must not keep this game's agents from moving.
        if self.playing is None or self.playing.done() or self.playing_for is not session:
            self.playing, self.playing_for = asyncio.create_task(self.play_agents(session)), session
            self.playing.add_done_callback(self._report_failure)

    def _report_failure(self, task: asyncio.Task) -> None:
        """An agent that failed: the page is told (the game stays as it was), the server goes on."""
        if task.cancelled() or task.exception() is None:
            return
        error = task.exception()
        print(f"agent move failed: {error!r}", file=sys.stderr, flush=True)
        asyncio.ensure_future(self._try_send({"type": "error", "error": f"the agent failed: {error}"}))

    async def _try_send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):
            await self.send(message)

    async def follow(self, folder: Path, game_id: str, session: Session) -> None:
        """Send ``session``, tournament game ``game_id`` being played, each time it has new moves,
        until it ends (its result is in the results file) or this page shows something else."""
        while self.session is session and session.live:
            await asyncio.sleep(FOLLOW_INTERVAL)
            session.touched = time.monotonic()  # watching is not idling
            record = read_live_game(folder, game_id)
            if record is None:  # finished (or its tournament was stopped: the game stays as it was)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    record = read_results(folder / RESULTS_FILE).get(game_id)
                session.live = False
            if self.session is session and (record is None or session.catch_up(record) or not session.live):
                await self._try_send(session.view(self.app.pool))  # the page may have gone away

    async def play_agents(self, session: Session) -> None:
        """Agent seats move until a human is to move or the game ends; a takeback, a new game or a
        disconnect (the session's generation changes) stops the search and drops its move."""
        while (name := session.agent_to_move()) is not None and self.session is session:
            generation = session.generation
            state = session.state.copy()
            slot = self.app.searches if self.app.pool.searches(name, session.game) else contextlib.nullcontext()
            async with slot:
                stop = functools.partial(_changed, session, generation)
                action, thought = await asyncio.to_thread(self.app.pool.move, name, state, stop, session.budget())
            if session.generation != generation or self.session is not session:
                return
            if thought is not None:
                session.analysis = analysis_of(state, thought)
            session.play(action)
            await self._try_send(session.view(self.app.pool))  # the page may have gone: the game stays for a reload
            if HUMAN not in session.seats and self.app.move_delay:
                await asyncio.sleep(self.app.move_delay)


def _changed(session: Session, generation: int) -> bool:
    return session.generation != generation


def create_app(
    specs: list[str], host: str = "127.0.0.1", port: int = 8000, token: str | None = None, searches: int = 2,
    move_delay: float = 0.0, tournaments: list[Path] | None = None,
) -> Starlette:  # fmt: skip
    """The Starlette application serving the page and its WebSocket."""
    web = WebApp(specs, host, port, token, searches, move_delay, tournaments)

    def refusal(request: Request) -> Response | None:
        """A 403 for an HTTP request :meth:`WebApp.allowed` refuses (the page and its files need no token)."""
        why = web.allowed(request.headers, request.query_params, token=False)
        return PlainTextResponse(why, status_code=403) if why else None

    async def index(request: Request) -> Response:
        return refusal(request) or FileResponse(STATIC / "index.html")

    async def socket(websocket: WebSocket) -> None:
        if web.allowed(websocket.headers, websocket.query_params) is not None:
            await websocket.close(code=1008)
            return
        await websocket.accept()
        connection = Connection(web, websocket)
        await connection.send(web.hello())
        try:
            while True:
                raw = await websocket.receive_text()
                try:
                    await connection.handle(parse(raw))
                except Refused as error:
                    await connection.send({"type": "error", "error": str(error)})
        except WebSocketDisconnect:
            pass
        finally:
            if connection.session is not None:
                connection.session.generation += 1  # stop its search; the game stays for a reload
            connection.session = None

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        """The agents (and their engine processes) are closed when the app stops."""
        try:
            yield
        finally:
            web.pool.close()

    class GuardedStatic(StaticFiles):
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await (refusal(Request(scope)) or super().__call__)(scope, receive, send)

    app = Starlette(
        routes=[
            Route("/", index),
            WebSocketRoute("/ws", socket),
            Mount("/static", GuardedStatic(directory=STATIC)),
        ],
        lifespan=lifespan,
    )
    app.state.web = web
    return app


def default_agents() -> list[str]:
    """random, greedy, the shipped networks (a mode's own among them) and the engines that are installed."""
    specs = ["random", "greedy"] + [shipped_agent(name, sims=200) for name in shipped_networks()]
    for engine in ("stockfish", "fairy-stockfish"):
        with contextlib.suppress(Exception):
            _find_binary(engine, engine)
            specs.append(f"{engine}?skill=5&movetime=200")
    return specs


def parser() -> argparse.ArgumentParser:
    """``chess-envs serve``'s command line."""
    line = argparse.ArgumentParser(prog="chess-envs serve", description=__doc__.split("\n\n")[0])
    line.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback only)")
    line.add_argument("--port", type=int, default=8000)
    line.add_argument("--agents", nargs="+", help="agent specs offered to the browser (default: shipped networks, "
                        "random, greedy, installed engines)")  # fmt: skip
    line.add_argument("--searches", type=int, default=2, help="agent moves computed at once (agents are copied)")
    line.add_argument("--token", help="required in the page's URL (?token=...); made up when --host is not loopback")
    line.add_argument("--move-delay", type=float, default=0.5, help="seconds between moves of agent-only games")
    line.add_argument(
        "--tournament",
        type=Path,
        action="append",
        default=[],
        help="a tournament folder (chess-envs tournament --out) to watch: games being played, finished games",
    )
    return line


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    command = parser()
    args = command.parse_args(argv)
    for folder in args.tournament:
        if not (folder / CONFIG_FILE).is_file():
            command.error(f"{folder} is not a tournament folder (no {CONFIG_FILE})")
    token = args.token or (None if _is_loopback(args.host) else secrets.token_urlsafe(16))
    app = create_app(
        args.agents or default_agents(), args.host, args.port, token, args.searches, args.move_delay, args.tournament
    )
    print(f"open http://{args.host}:{args.port}/" + (f"?token={token}" if token else ""), flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", ws_max_size=MAX_MESSAGE * 4)


if __name__ == "__main__":
    main()
