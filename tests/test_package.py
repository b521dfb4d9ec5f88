"""The package as a user installs it: an sdist and a wheel built from the tracked files, the wheel
installed into fresh virtual environments, once without torch (the environments alone) and
once with torch and the ``[agents]`` extra (the shipped networks play, as package data), to which
the ``[web]`` extra is then added (the app serves its page from package data and a network replies;
``[web]`` includes ``[agents]``, so a second torch install would only repeat this one)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
import venv
import zipfile
from pathlib import Path
from urllib.request import urlopen

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def run(command: list[str], **options) -> subprocess.CompletedProcess:
    """Run ``command``; its output is in the assertion message when it fails."""
    result = subprocess.run(command, capture_output=True, text=True, timeout=1200, **options)
    output = f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    assert result.returncode == 0, f"{command} exited {result.returncode}:\n{output}"
    return result


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The sdist and the wheel, built by ``python -m build`` (the wheel from the sdist)."""
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)])
    return out


def fresh_venv(folder: Path) -> Path:
    """A new virtual environment with pip; its python. Installs into it pass ``--no-compile``: pip
    would byte-compile every module (torch's alone: 25 of 38 s) where the test imports a few, which
    its processes compile once and cache (see :func:`outside`)."""
    venv.EnvBuilder(with_pip=True).create(folder)
    return folder / "bin" / "python"


def outside(tmp_path: Path) -> dict:
    """Run from a folder outside the checkout, so nothing is imported from it, with bytecode caching
    on (``PYTHONDONTWRITEBYTECODE`` would have every process compile torch's modules again)."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return {"cwd": tmp_path, "env": {**env, "PYTHONPATH": ""}}


def test_an_sdist_and_a_wheel_build(dist) -> None:
    [sdist] = dist.glob("*.tar.gz")
    [wheel] = dist.glob("*.whl")
    assert sdist.name.startswith("chess_envs-") and wheel.name.startswith("chess_envs-")
    listing = run([sys.executable, "-m", "zipfile", "-l", str(wheel)]).stdout
    for name in ("chess", "los_alamos", "four_player"):
        assert f"chess_envs/agents/networks/{name}.pt" in listing, "the shipped networks are package data"
    assert "chess_envs/_core.pyi" in listing and "chess_envs/py.typed" in listing, "the native module's types"
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"chess_envs"}, "one installed name"


def test_the_environments_install_and_run_without_torch(dist, tmp_path) -> None:
    python = fresh_venv(tmp_path / "core")
    [wheel] = dist.glob("*.whl")
    run([str(python), "-m", "pip", "install", "-q", "--no-compile", str(wheel)], **outside(tmp_path))
    script = textwrap.dedent(
        """
        import importlib.util
        import gymnasium as gym
        import numpy as np
        import chess_envs
        assert importlib.util.find_spec("torch") is None, "the core install must not bring torch"
        for env_id in ("Chess-v0", "LosAlamos-v0", "FourPlayerChess-v0"):
            env = gym.make(env_id)
            obs, info = env.reset(seed=0)
            rng = np.random.default_rng(0)
            for _ in range(20):
                obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                if terminated or truncated:
                    obs, info = env.reset()
        vec = gym.make_vec("Chess-v0", num_envs=4, vectorization_mode="vector_entry_point")
        obs, info = vec.reset(seed=0)
        masks = obs["action_mask"]
        actions = [int(np.flatnonzero(mask)[0]) for mask in masks]
        obs, rewards, terminated, truncated, info = vec.step(np.array(actions))
        assert obs["observation"].shape == (4, 119, 8, 8)
        print("core ok")
        """
    )
    assert "core ok" in run([str(python), "-c", script], **outside(tmp_path)).stdout
    command = str(python.parent / "chess-envs")
    assert "depth 2: 400" in run([command, "perft", "--game", "chess", "--depth", "2"], **outside(tmp_path)).stdout
    refused = subprocess.run([command, "train"], capture_output=True, text=True, **outside(tmp_path))
    assert refused.returncode == 2 and "needs the [train] extra" in refused.stderr
    refused = subprocess.run([command, "serve"], capture_output=True, text=True, **outside(tmp_path))
    assert refused.returncode == 2 and "needs the [web] extra" in refused.stderr
    network = subprocess.run(
        [str(python), "-c", "from chess_envs.agents import make_agent; make_agent('alphazero', 'chess')"],
        capture_output=True,
        text=True,
        **outside(tmp_path),
    )
    assert network.returncode != 0 and "needs the [agents] extra (torch is not installed)" in network.stderr


@pytest.fixture(scope="module")
def agents_python(dist, tmp_path_factory) -> Path:
    """The python of a fresh environment with torch and the wheel's ``[agents]`` extra."""
    folder = tmp_path_factory.mktemp("agents")
    python = fresh_venv(folder / "venv")
    [wheel] = dist.glob("*.whl")
    run([str(python), "-m", "pip", "install", "-q", "--no-compile", "torch==2.13.0"], **outside(folder))
    run([str(python), "-m", "pip", "install", "-q", "--no-compile", f"{wheel}[agents]"], **outside(folder))
    return python


def test_with_torch_and_the_agents_extra_the_shipped_networks_play(agents_python, tmp_path) -> None:
    python = agents_python
    uci = subprocess.run(
        [str(python.parent / "chess-envs"), "uci"],
        input="uci\nisready\nposition startpos moves e2e4\ngo nodes 64\nquit\n",
        capture_output=True,
        text=True,
        timeout=600,
        **outside(tmp_path),
    )
    lines = uci.stdout.splitlines()
    assert uci.returncode == 0, uci.stderr
    assert "id name chess-envs alphazero shipped network" in lines, lines
    assert not any(line.startswith("info string") for line in lines), "the random fallback plays"
    assert any(line.startswith("info depth") and " score cp " in line for line in lines), lines
    assert lines[-1].startswith("bestmove ")
    found = textwrap.dedent(
        """
        from chess_envs.agents.shipped import shipped_agent, shipped_checkpoint
        from chess_envs.agents import make_agent
        from chess_envs.registry import new_state
        for game in ("chess", "los_alamos", "four_player"):
            assert shipped_checkpoint(game).is_file() and "site-packages" in str(shipped_checkpoint(game))
            agent = make_agent(shipped_agent(game, sims=8), game)
            state = new_state(game)
            assert agent.select_action(state) in state.legal_actions()
        teams = make_agent(shipped_agent("four_player_teams", sims=8), "four_player")
        state = new_state("four_player", mode="teams")
        assert teams.select_action(state) in state.legal_actions()
        print("agents ok")
        """
    )
    assert "agents ok" in run([str(python), "-c", found], **outside(tmp_path)).stdout
    play = subprocess.run(
        [str(python.parent / "chess-envs"), "play", "--game", "los_alamos", "--seat", "1"],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=600,
        **outside(tmp_path),
    )
    assert play.returncode == 0 and "alphazero:@los_alamos plays" in play.stdout, play.stdout + play.stderr


def test_with_the_web_extra_the_installed_app_serves_its_page_and_plays(dist, agents_python, tmp_path) -> None:
    websockets = pytest.importorskip("websockets")
    python = agents_python
    [wheel] = dist.glob("*.whl")
    run([str(python), "-m", "pip", "install", "-q", "--no-compile", f"{wheel}[web]"], **outside(tmp_path))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [str(python.parent / "chess-envs"), "serve", "--port", str(port), "--agents", "alphazero:@chess?sims=8"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **outside(tmp_path))
    try:
        base = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 120
        while True:  # the page and its assets come from the installed package data
            try:
                page = urlopen(base, timeout=5).read().decode()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.5)
        assert "app.js" in page and "style.css" in page
        for asset in ("static/app.js", "static/style.css"):
            assert urlopen(base + asset, timeout=5).status == 200

        async def play() -> dict:
            async with websockets.connect(f"ws://127.0.0.1:{port}/ws") as connection:
                hello = json.loads(await connection.recv())
                assert hello["games"]["chess"]["agents"] == ["alphazero:@chess?sims=8"]
                new = {"type": "new", "game": "chess", "seats": ["human", "alphazero:@chess?sims=8"]}
                await connection.send(json.dumps(new))
                state = json.loads(await connection.recv())
                await connection.send(json.dumps({"type": "move", "action": state["legal"][0]["action"], "ply": 0}))
                while state["ply"] < 2:  # the network's reply
                    state = json.loads(await asyncio.wait_for(connection.recv(), 120))
                    assert state["type"] != "error", state
                return state

        assert asyncio.run(play())["ply"] == 2
    finally:
        server.terminate()
        server.wait(timeout=30)


USER_PACKAGES = ("agents", "train", "evaluate", "search", "arena", "apps")


def test_a_user_folder_with_packages_of_our_old_names_keeps_its_own(agents_python, tmp_path) -> None:
    """The wheel installs one name: a user's own ``agents``, ``train``, ... stay theirs, and the
    command line works from their folder, also from a Python whose ``sys.path`` begins with it."""
    python, user = agents_python, tmp_path / "project"
    for name in USER_PACKAGES:
        (user / name).mkdir(parents=True)
        (user / name / "__init__.py").write_text(f"WHO = 'user: {name}'\n")
    mine = "import " + ", ".join(USER_PACKAGES) + "; print(" + ", ".join(f"{n}.WHO" for n in USER_PACKAGES) + ")"
    env = outside(user)
    assert run([str(python), "-c", mine], **env).stdout.split().count("user:") == len(USER_PACKAGES)
    spec = "alphazero:@los_alamos?sims=4"
    tournament = ["tournament", "--game", "los_alamos", "--agents", "random", spec, "--games-per-pair", "2", "--quiet"]
    run([str(python.parent / "chess-envs"), *tournament, "--out", "t1"], **env)
    # sys.path[0] is the user's folder: python -m, and python -c with the command's main.
    run([str(python), "-m", "chess_envs.apps.command", *tournament, "--out", "t2"], **env)
    script = f"import sys; from chess_envs.apps.command import main; {mine}; main(sys.argv[1:])"
    run(
        [str(python), "-c", script, *tournament, "--out", "t3"],
        **{**env, "env": {**env["env"], "PYTHONPATH": str(user)}},
    )
    for out in ("t1", "t2", "t3"):
        assert len((user / out / "games.jsonl").read_text().splitlines()) == 2
    for command in ([str(python.parent / "chess-envs"), "uci"], [str(python), "-m", "chess_envs.apps.uci"]):
        uci = subprocess.run(command, input="uci\nisready\nposition startpos\ngo nodes 16\nquit\n",
                             capture_output=True, text=True, timeout=600, **env)  # fmt: skip
        assert uci.returncode == 0 and uci.stdout.splitlines()[-1].startswith("bestmove "), uci.stdout + uci.stderr
