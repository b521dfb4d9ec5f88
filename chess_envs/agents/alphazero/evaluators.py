"""The evaluators a search calls, and the one factory that builds them from an agent's options.

Planes ``[B, C, H, W]`` (float32, or uint8 of ``quantize_planes``) -> (logits ``[B, num_actions]``,
values ``[B, value_size]``): a network through torch or OpenVINO (:class:`NetworkEvaluator`), an
ONNX file through ONNX Runtime, a policy temperature over either, four-player material blended in.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable

import numpy as np
import torch

from chess_envs.agents.alphazero.checkpoint import load_network
from chess_envs.agents.alphazero.network import AlphaZeroNet, fused_for_inference, team_values
from chess_envs.agents.alphazero.onnx import OnnxEvaluator
from chess_envs.agents.alphazero.openvino_net import check_precision, compile_network
from chess_envs.agents.four_player.material import BlendedEvaluator, NetworkLike, evaluates


class NetworkEvaluator:
    """Planes ``[B, C, H, W]`` (numpy float32, or uint8 of ``quantize_planes``) -> (logits, values)
    as numpy, one forward pass per call.

    The pass runs on a copy of the network with BatchNorm folded into the convolutions
    (:func:`~chess_envs.agents.alphazero.network.fused_for_inference`) in channels-last memory format
    (both measured faster in
    benchmarks/inference_speed.py), rebuilt whenever the network's weights have changed since
    (an optimizer step or ``load_state_dict``), so the caller's network is never switched to
    eval mode or read stale. On CUDA the pass runs in float16 autocast; the same code runs on the CPU.
    With ``runtime="openvino"`` (CPU only) the rebuilt copy is compiled by OpenVINO at float32
    (:mod:`chess_envs.agents.alphazero.openvino_net`): the same outputs, faster on a CPU; or at
    ``precision="bf16"``: faster again where the processor has bfloat16 arithmetic, outputs a little off.
    """

    def __init__(
        self, network: AlphaZeroNet, device: torch.device, runtime: str = "torch", precision: str = "f32"
    ) -> None:
        if runtime not in RUNTIMES:
            raise ValueError(f"runtime must be one of {', '.join(RUNTIMES)}, got {runtime!r}")
        if runtime == "openvino" and device.type != "cpu":
            raise ValueError(f'runtime "openvino" runs on the CPU, not on {device}')
        check_precision(precision)
        if precision != "f32" and runtime != "openvino":
            raise ValueError(f"precision={precision} runs on OpenVINO, not on {runtime}")
        self.network = network
        self.device = device
        self.runtime = runtime
        self.precision = precision
        self._fused: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None
        self._version = -1
        self._tensors = [*network.parameters(), *network.buffers()]
        """walked once: gathering them from the modules took a tenth of a small network's call"""
        self.seconds = 0.0
        """wall time spent in calls so far (the network's share of a search)"""
        self.teams = False
        """read a four-player network's per-seat values for Teams
        (:func:`~chess_envs.agents.alphazero.network.team_values`)"""

    def _weights_version(self) -> int:
        """Changes whenever a weight or buffer is written in place (PyTorch counts those writes), as an
        optimizer step and ``load_state_dict`` do."""
        return sum(t._version for t in self._tensors)

    @torch.inference_mode()
    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        start = time.perf_counter()
        version = self._weights_version()
        if self._fused is None or version != self._version:
            self._fused, self._version = self._compiled(), version
        out = self._fused(planes)
        if self.teams:
            out = out[0], team_values(out[1], self.network.config.teams)
        self.seconds += time.perf_counter() - start
        return out

    def _compiled(self) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """The current weights' forward pass: a fused channels-last copy, or its OpenVINO build
        (fed by numpy alone: a torch op between its calls would leave torch's threads spinning)."""
        if self.runtime == "openvino":
            forward = compile_network(self.network, torch.get_num_threads(), self.precision)

            def run_openvino(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                if planes.dtype == np.uint8:  # quantize_planes: 1/255 steps
                    return forward(np.multiply(planes, np.float32(1 / 255), dtype=np.float32))
                return forward(planes)

            return run_openvino
        fused = fused_for_inference(self.network).to(memory_format=torch.channels_last)  # type: ignore[call-overload]

        def run(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            if planes.dtype == np.uint8:  # quantize_planes: 1/255 steps, as the replay buffer hands them to learning
                batch = torch.from_numpy(np.ascontiguousarray(planes)).to(self.device).float().div_(255.0)
            else:
                batch = torch.from_numpy(np.ascontiguousarray(planes, dtype=np.float32)).to(self.device)
            with torch.autocast(self.device.type, dtype=torch.float16, enabled=self.device.type == "cuda"):
                logits, values = fused(batch.contiguous(memory_format=torch.channels_last))
            return logits.float().cpu().numpy(), values.float().cpu().numpy()

        return run


RUNTIMES = ("torch", "openvino")
"""what runs the network's forward pass in search: PyTorch (any device) or OpenVINO (CPU)"""


class PolicyTemperature:
    """A network evaluator whose logits ``[B, A]`` are divided by ``temperature``: the search's
    priors become softmax(logits / T) over the legal moves, so T > 1 spreads a sharp policy over
    more moves (Leela Chess Zero's policy softmax temperature)."""

    def __init__(self, network: NetworkLike, temperature: float) -> None:
        if not temperature > 0.0:
            raise ValueError(f"the policy temperature must be positive, got {temperature}")
        self.network, self.scale = network, np.float32(1.0 / temperature)

    @property
    def seconds(self) -> float:
        return self.network.seconds

    @property
    def teams(self) -> bool:
        return self.network.teams

    @teams.setter
    def teams(self, teams: bool) -> None:
        self.network.teams = teams

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, values = self.network(planes)
        return logits * self.scale, values


Evaluators = NetworkEvaluator | OnnxEvaluator | BlendedEvaluator | PolicyTemperature


def learned_as_teams(evaluator: Evaluators) -> bool:
    """Whether the network under ``evaluator``'s wrappers learned four-player Teams values."""
    inner = evaluator
    while isinstance(inner, BlendedEvaluator | PolicyTemperature):
        inner = inner.network  # type: ignore[assignment]
    return bool(inner.network.config.teams if isinstance(inner, NetworkEvaluator) else inner.config.teams)


def make_evaluator(
    game: str,
    path: str | None,
    network: AlphaZeroNet | None,
    device: torch.device,
    runtime: str,
    precision: str,
    material: float,
    policy_temp: float,
) -> Evaluators:
    """The evaluator an agent's options describe: the network of ``network`` or ``path`` (an ``.onnx``
    file runs on ONNX Runtime) on ``runtime`` (``auto``: OpenVINO on a CPU where it is installed),
    four-player ``material`` blended into its values, its logits divided by ``policy_temp``."""
    evaluator: Evaluators
    if network is None and path is not None and str(path).endswith(".onnx"):
        if runtime == "openvino" or precision != "f32":
            setting = "runtime=openvino" if runtime == "openvino" else f"precision={precision}"
            raise ValueError(f"{setting} is for checkpoints; an .onnx file runs on ONNX Runtime")
        evaluator = OnnxEvaluator(path, game)  # ONNX Runtime on the CPU
    else:
        if network is None:
            if path is None:
                raise ValueError("the alphazero agent needs a checkpoint: alphazero:PATH?sims=N")
            network, _ = load_network(path, game, device)
        if runtime == "auto":
            installed = importlib.util.find_spec("openvino") is not None
            on_openvino = precision != "f32"
            runtime = "openvino" if device.type == "cpu" and (installed or on_openvino) else "torch"
        evaluator = NetworkEvaluator(network, device, runtime, precision)
    if material:
        if not evaluates(game):
            raise ValueError(f"material blends four-player values; {game!r} has no material evaluator")
        evaluator = BlendedEvaluator(evaluator, material)
    if policy_temp != 1.0:
        evaluator = PolicyTemperature(evaluator, policy_temp)
    return evaluator
