"""The network on OpenVINO (``runtime=openvino``): torch's outputs, rebuilt when the weights change,
the same moves, and settings it cannot honour refused."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from chess_envs.agents import make_agent
from chess_envs.agents.alphazero.checkpoint import load_checkpoint, load_network
from chess_envs.agents.alphazero.evaluators import NetworkEvaluator
from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig
from chess_envs.agents.alphazero.onnx import export_onnx
from chess_envs.arena.game import read_openings
from chess_envs.registry import new_state
from chess_envs.train.alphazero import main as train_main

if not os.environ.get("CI") and importlib.util.find_spec("openvino") is None:  # CI installs it: never skip there
    pytest.skip("needs OpenVINO", allow_module_level=True)

CPU = torch.device("cpu")


def planes_of(shape: tuple[int, ...], batch: int, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).random((batch, *shape)) < 0.2).astype(np.float32)


@pytest.mark.parametrize("game", ["los_alamos", "chess", "four_player"])
def test_openvino_outputs_equal_torchs_on_the_shipped_networks(game) -> None:
    network, _ = load_network(f"@{game}", game)
    planes = planes_of(new_state(game).observation_shape, 33)
    logits, values = NetworkEvaluator(network, CPU, "openvino")(planes)
    expected_logits, expected_values = NetworkEvaluator(network, CPU)(planes)
    assert logits.shape == expected_logits.shape and values.shape == expected_values.shape
    assert np.abs(logits - expected_logits).max() < 1e-4 and np.abs(values - expected_values).max() < 1e-5


def test_a_gelu_network_with_a_linear_policy_head_and_uint8_planes_matches_too() -> None:
    config = NetworkConfig(7, 5, 5, num_actions=33, value_size=3, filters=8, blocks=2, value_hidden=8)
    network = AlphaZeroNet(config).eval()  # GELU, and 33 actions are no multiple of 25 squares: a linear head
    planes = (planes_of((7, 5, 5), 9) * 255).astype(np.uint8)
    expected_outputs = NetworkEvaluator(network, CPU)(planes)
    for got, expected in zip(NetworkEvaluator(network, CPU, "openvino")(planes), expected_outputs):
        assert got.shape == expected.shape and np.abs(got - expected).max() < 1e-5


def softmax(logits: np.ndarray) -> np.ndarray:
    exp = np.exp(logits - logits.max())
    return exp / exp.sum()


def test_bfloat16_stays_close_to_float32_and_an_agent_plays_on_it() -> None:
    network, _ = load_network("@four_player", "four_player")
    states = [new_state("four_player", text) for text in read_openings("@four_player", "four_player")[:32]]
    planes = np.stack([state.observation() for state in states]).astype(np.float32)
    logits, values = NetworkEvaluator(network, CPU, "openvino", "bf16")(planes)
    expected_logits, expected_values = NetworkEvaluator(network, CPU, "openvino")(planes)
    assert logits.dtype == np.float32 and logits.shape == expected_logits.shape
    for state, row, expected in zip(states, logits, expected_logits):
        legal = state.legal_actions()
        policy, expected_policy = softmax(row[legal]), softmax(expected[legal])
        assert np.abs(policy - expected_policy).max() < 0.05
    assert np.abs(values - expected_values).max() < 0.05
    agent = make_agent("alphazero:@four_player?sims=16&precision=bf16&material=0.75", "four_player")
    assert agent.network_evaluator.network.precision == "bf16"
    state = new_state("four_player")
    for _ in range(8):
        move = agent.select_action(state)
        assert state.legal_action_mask()[move]
        state.apply(move)


def test_new_weights_are_compiled_before_the_next_call() -> None:
    network, _ = load_network("@los_alamos", "los_alamos")
    planes = planes_of(new_state("los_alamos").observation_shape, 8)
    evaluator = NetworkEvaluator(network, CPU, "openvino")
    before = evaluator(planes)[1]
    with torch.no_grad():
        network.value[-2].bias.add_(0.5)  # an in-place write, as an optimizer step makes
    after = evaluator(planes)[1]
    assert np.abs(after - before).max() > 1e-3
    assert np.abs(after - NetworkEvaluator(network, CPU)(planes)[1]).max() < 1e-5
    network.load_state_dict(load_network("@los_alamos", "los_alamos")[0].state_dict())
    assert np.abs(evaluator(planes)[1] - before).max() < 1e-5


def test_an_agent_on_a_cpu_runs_openvino_by_default_and_plays_the_torch_agents_moves() -> None:
    torch_agent = make_agent("alphazero:@los_alamos?sims=32&runtime=torch", "los_alamos")
    openvino_agent = make_agent("alphazero:@los_alamos?sims=32&device=cpu", "los_alamos")
    assert openvino_agent.evaluator.runtime == "openvino" and torch_agent.evaluator.runtime == "torch"
    state = new_state("los_alamos")
    for _ in range(12):
        move = torch_agent.select_action(state)
        assert openvino_agent.select_action(state) == move
        state.apply(move)
        if state.is_terminal():
            break


def test_settings_openvino_cannot_honour_are_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="option runtime must be one of auto, torch, openvino; got 'tensorrt'"):
        make_agent("alphazero:@los_alamos?runtime=tensorrt", "los_alamos")
    with pytest.raises(ValueError, match="runtime must be one of torch, openvino, got 'auto'"):
        NetworkEvaluator(load_network("@los_alamos", "los_alamos")[0], CPU, "auto")
    export_onnx("@los_alamos", tmp_path / "la.onnx")
    with pytest.raises(ValueError, match="runtime=openvino is for checkpoints"):
        make_agent(f"alphazero:{tmp_path / 'la.onnx'}?runtime=openvino", "los_alamos")
    with pytest.raises(ValueError, match="precision=bf16 is for checkpoints"):
        make_agent(f"alphazero:{tmp_path / 'la.onnx'}?precision=bf16", "los_alamos")
    with pytest.raises(ValueError, match="precision=bf16 runs on OpenVINO, not on torch"):
        make_agent("alphazero:@los_alamos?precision=bf16&runtime=torch", "los_alamos")
    with pytest.raises(ValueError, match="option precision must be one of f32, bf16; got 'fp8'"):
        make_agent("alphazero:@los_alamos?precision=fp8", "los_alamos")
    network, _ = load_network("@los_alamos", "los_alamos")
    with pytest.raises(ValueError, match='runtime "openvino" runs on the CPU'):
        NetworkEvaluator(network, torch.device("meta"), "openvino")
    with pytest.raises(SystemExit):
        train_main(["--preset", "smoke", "--runs-dir", str(tmp_path), "--inference", "tensorrt"])


def test_self_play_on_openvino_trains(tmp_path) -> None:
    path = train_main(["--preset", "smoke", "--runs-dir", str(tmp_path), "--progress", "false",
                       "--inference", "openvino", "--device", "cpu"])  # fmt: skip
    counters = load_checkpoint(path, "los_alamos")["counters"]
    assert counters["games"] > 0 and counters["learner_steps"] > 0


def test_loading_an_agent_on_openvino_sends_no_telemetry(tmp_path: Path) -> None:
    """``import openvino`` reports itself to Google Analytics unless the user opted out (a client id
    and usage counts in ``~/intel``, a child process posting them); an agent imports it without."""
    script = (
        "import sys\n"
        "from chess_envs.agents import make_agent\n"
        "from chess_envs.registry import new_state\n"
        "agent = make_agent('alphazero:@los_alamos?sims=8&runtime=openvino', 'los_alamos')\n"
        "agent.select_action(new_state('los_alamos'))\n"
        "import openvino.tools.ovc.telemetry_utils as used\n"
        "print(used.tm.__name__, 'openvino_telemetry' in sys.modules)\n"
    )
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "TF_BUILD", "JENKINS_URL")}
    env["HOME"] = str(tmp_path)  # where openvino-telemetry keeps its client id and counts
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[2], env=env, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["openvino.tools.ovc.telemetry_stub", "False"]
    assert list(tmp_path.iterdir()) == [], "openvino-telemetry wrote its files: it ran"


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2, reason="needs 2 cores")
def test_an_inference_leaves_its_thread_free_to_run_on_any_core() -> None:
    """OpenVINO's CPU plugin pins the calling thread to a core for each inference unless told not
    to, the same core in every process: two tournament workers then shared one core of two."""
    network, _ = load_network("@los_alamos", "los_alamos")
    forward = NetworkEvaluator(network, CPU, "openvino")
    planes = planes_of(new_state("los_alamos").observation_shape, 64)
    cores, seen, done = os.sched_getaffinity(0), [], threading.Event()
    thread_id: list[int] = []

    def infer() -> None:
        thread_id.append(threading.get_native_id())
        while not done.is_set():
            forward(planes)

    worker = threading.Thread(target=infer)
    worker.start()
    try:
        while not thread_id:
            time.sleep(0.001)
        for _ in range(100):
            seen.append(os.sched_getaffinity(thread_id[0]))
            time.sleep(0.005)
    finally:
        done.set()
        worker.join()
    assert all(cores_seen == cores for cores_seen in seen), f"pinned: {[sorted(s) for s in seen if s != cores][:3]}"


def test_two_agents_dropped_in_the_order_made_leave_ctrl_c_and_sigterm_working() -> None:
    """Each OpenVINO Core's CPU plugin swaps in an alternate signal stack for the thread that loads it
    and, once dropped, restores the old one only if its own is still current: two Cores dropped in
    the order made left the main thread's on freed memory, and the next handled signal crashed the
    process (a segmentation fault where Ctrl-C or SIGTERM should save and stop). Run in a process
    of its own: a failure kills that process, not the test's."""
    script = (
        "import gc, signal\n"
        "from chess_envs.agents import make_agent\n"
        "from chess_envs.registry import new_state\n"
        "state = new_state('los_alamos')\n"
        "first = make_agent('alphazero:@los_alamos?sims=8&runtime=openvino', 'los_alamos')\n"
        "second = make_agent('alphazero:@los_alamos?sims=8&runtime=openvino', 'los_alamos')\n"
        "first.select_action(state), second.select_action(state)\n"
        "del first; gc.collect()\n"
        "del second; gc.collect()\n"
        "signal.signal(signal.SIGTERM, lambda *_: print('SIGTERM handled'))\n"
        "signal.raise_signal(signal.SIGTERM)\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)  # also where the tests run in the background\n"
        "try:\n"
        "    signal.raise_signal(signal.SIGINT)\n"
        "except KeyboardInterrupt:\n"
        "    print('Ctrl-C handled')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr[-2000:]}"
    assert result.stdout.split("\n")[:2] == ["SIGTERM handled", "Ctrl-C handled"]
