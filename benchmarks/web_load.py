"""Load on the web app over loopback: CLIENTS WebSocket clients for SECONDS, half playing chess
against greedy and half against the shipped chess network at 64 simulations, each playing random
legal moves from the server's own list and starting a new game when one ends. Each client follows
its game on python-chess: every move the server reports must be legal there, the position must
match and the moves offered to the human must be python-chess's legal moves.

Prints errors, moves played, the reply latency (a move sent to the agent's answer) at p50 and p95,
and the server's resident memory after the first minute, every 30 s and at the end (it should grow
< 10%). The network's evaluation cache is bounded (``--cache-mb``) but fills as the network
searches: at the default 4 MB it is full within the first minute, so what grows after it would be
a leak; at 32 MB, with the greedy clients taking most of the CPU, it was still filling at the end
(a steady +3.5 MB per 30 s that the 4 MB run does not show).

    python benchmarks/web_load.py [--clients 50] [--seconds 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import chess
import websockets

ROOT = Path(__file__).resolve().parents[1]
NETWORK = "alphazero:@chess?sims=64&cache_mb={cache_mb}"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def check(board: chess.Board, message: dict) -> str | None:
    """Replay the server's new moves on python-chess (``board`` follows the game) and compare the
    position and, when the human is to move, the offered moves: the reason it differs, or None."""
    for san in message["moves"][len(board.move_stack) :]:
        try:
            board.push_san(san)
        except ValueError:
            return f"illegal move {san} after {board.fen()}"
    if message["fen"] != board.fen():
        return f"position {message['fen']} differs from python-chess's {board.fen()}"
    if message["human_to_move"]:
        offered = {(tuple(m["from"]), tuple(m["to"]), m["promotion"]) for m in message["legal"]}
        expected = {
            ((7 - chess.square_rank(m.from_square), chess.square_file(m.from_square)),
             (7 - chess.square_rank(m.to_square), chess.square_file(m.to_square)),
             chess.piece_symbol(m.promotion).upper() if m.promotion else "")
            for m in board.legal_moves
        }  # fmt: skip
        if offered != expected:
            return f"offered moves differ from python-chess's in {board.fen()}"
    return None


async def client(url: str, opponent: str, until: float, seed: int, stats: dict) -> None:
    rng = random.Random(seed)
    async with websockets.connect(url, max_size=2**22) as ws:
        await ws.recv()  # hello
        await ws.send(json.dumps({"type": "new", "game": "chess", "seats": ["human", opponent]}))
        board = chess.Board()
        sent = None
        last = None
        while time.monotonic() < until:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 60))
            except asyncio.TimeoutError:
                stats["errors"].append(f"no reply within 60 s after {last}")
                return
            last = {k: message.get(k) for k in ("type", "ply", "human_to_move", "result", "error")}
            if message["type"] == "error":  # counted; this client stops (its game is where it was)
                stats["errors"].append(message["error"])
                return
            wrong = check(board, message)
            if wrong is not None:
                stats["errors"].append(wrong)
                return
            if message["result"] is not None:
                stats["games"] += 1
                sent = None
                board = chess.Board()
                await ws.send(json.dumps({"type": "new", "game": "chess", "seats": ["human", opponent]}))
                continue
            if not message["human_to_move"]:
                continue  # our own move echoed: the agent's answer comes next
            if sent is not None:
                stats["latency"][opponent].append(time.monotonic() - sent)
            move = rng.choice(message["legal"])
            sent = time.monotonic()
            stats["moves"] += 1
            await ws.send(json.dumps({"type": "move", "action": move["action"], "ply": message["ply"]}))


async def run(clients: int, seconds: float, port: int, server: subprocess.Popen, network: str) -> None:
    url = f"ws://127.0.0.1:{port}/ws"
    stats: dict = {"errors": [], "latency": {"greedy": [], network: []}, "moves": 0, "games": 0}
    started = time.monotonic()
    until = started + seconds
    tasks = [asyncio.create_task(client(url, "greedy" if i % 2 else network, until, i, stats)) for i in range(clients)]
    await asyncio.sleep(min(60, seconds / 2))
    first_minute = rss_mb(server.pid)
    trend = [f"{first_minute:.0f}"]
    while not all(task.done() for task in tasks):  # the resident memory every 30 s: a plateau or a slope
        await asyncio.wait(tasks, timeout=30)
        trend.append(f"{rss_mb(server.pid):.0f}")
    results = await asyncio.gather(*tasks, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    end = rss_mb(server.pid)

    def percentiles(replies: list[float]) -> str:
        ordered = sorted(replies)
        if not ordered:
            return "no replies"
        return f"p50 {ordered[len(ordered) // 2] * 1000:.0f} ms, p95 {ordered[int(len(ordered) * 0.95)] * 1000:.0f} ms"

    everyone = [t for replies in stats["latency"].values() for t in replies]
    print(
        f"{clients} clients for {time.monotonic() - started:.0f} s: {stats['moves']} moves, {stats['games']} games "
        f"finished, errors {len(stats['errors']) + len(failures)}; reply latency {percentiles(everyone)} "
        f"(greedy {percentiles(stats['latency']['greedy'])}; network {percentiles(stats['latency'][network])}); "
        f"server RSS {first_minute:.0f} MB after the first minute, {end:.0f} MB at the end "
        f"({100 * (end / first_minute - 1):+.1f}%)"
    )
    print(f"server RSS (MB) from the first minute on, every 30 s: {' '.join(trend)}")
    for error in (stats["errors"] + [repr(f) for f in failures])[:5]:
        print("  error:", error)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument(
        "--cache-mb", type=int, default=4, help="the network's evaluation cache (bounded): full within a minute at 4"
    )
    args = parser.parse_args()
    network = NETWORK.format(cache_mb=args.cache_mb)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "chess_envs.apps.arena_cli", "serve", "--port", str(port), "--agents", "greedy", network,
         "--move-delay", "0"], cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        server.stdout.readline()  # "open http://..." once it listens
        time.sleep(1.0)
        asyncio.run(run(args.clients, args.seconds, port, server, network))
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
