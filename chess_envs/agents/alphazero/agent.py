"""The AlphaZero agent (``alphazero:PATH?sims=N``) and the batched network evaluator MCTS calls."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable

import numpy as np
import torch

from chess_envs.agents.alphazero.checkpoint import load_network
from chess_envs.agents.alphazero.network import AlphaZeroNet, fused_for_inference, resolve_device
from chess_envs.agents.alphazero.onnx import OnnxEvaluator
from chess_envs.agents.alphazero.openvino_net import check_precision, compile_network
from chess_envs.agents.base import float_option, int_option, register_agent
from chess_envs.agents.four_player.material import BlendedEvaluator, MaterialEvaluator, NetworkLike, evaluates
from chess_envs.agents.search_agent import SearchAgent
from chess_envs.core import GameState
from chess_envs.search.settings import MAX_MATE_DEPTH, MCTSConfig


class NetworkEvaluator:
    """Planes ``[B, C, H, W]`` (numpy float32, or uint8 of ``quantize_planes``) -> (logits, values)
    as numpy, one forward pass per call.

    The pass runs on a copy of the network with BatchNorm folded into the convolutions
    (:func:`fused_for_inference`) in channels-last memory format (both measured faster in
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
        """read a four-player network's per-seat values for Teams (:func:`team_values`)"""

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
            out = out[0], team_values(out[1])
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


def team_values(values: np.ndarray) -> np.ndarray:
    """Per-seat values ``[B, 4]`` (relative seats: 0 the mover, 2 its partner) read for Teams: each
    seat's team's mean value less the other team's, so partners share one value and maximise it
    together (an FFA network predicts placements; in Teams only the team's result counts)."""
    lead = (values[:, 0] + values[:, 2] - values[:, 1] - values[:, 3]) / 2
    return np.stack([lead, -lead, lead, -lead], axis=1)


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


@register_agent("alphazero")
class AlphaZeroAgent(SearchAgent):
    """PUCT search guided by a trained network; deterministic at temperature 0 (the default).

    Options: ``sims`` (simulations per move, up to 100,000), ``temperature``, ``device``,
    ``gumbel``, ``seed``, ``leaves`` (per wave, up to 256), ``cache_mb`` (memory for network
    outputs of positions seen again, default 256; :meth:`reset` empties it), ``mate`` (the root's
    forced wins searched for first, up to this many moves: default 3, 0 off; its cost comes off the
    simulations, :attr:`MCTSConfig.mate_depth`); ``cpuct`` (PUCT's exploration constant c_init,
    default 1.25), ``fpu`` (an unvisited move below the root scores its parent's value less this,
    default 0.25) and ``root_fpu`` (what an unvisited root move scores, default 1.0; ``none``: as
    below the root), the search's settings of :class:`MCTSConfig`; ``policy_temp`` (the priors
    are softmax(logits / this), default 1: :class:`PolicyTemperature`); ``runtime`` (``torch``, ``openvino``: the
    same outputs, 1.15-1.75x faster moves on a CPU, :mod:`chess_envs.agents.alphazero.openvino_net`; or
    ``auto``, the default: OpenVINO on a CPU where it is installed, else torch); ``precision``
    (``f32``, the default, or ``bf16``: OpenVINO computing in bfloat16, about 1.5x the positions a
    second where the processor has it, for outputs a little off; needs OpenVINO). Four-player only:
    ``material`` (0 to 1, default 0) blends the material evaluator's values into the network's at
    every leaf (:class:`~chess_envs.agents.four_player.material.BlendedEvaluator`); ``guide`` (``all``, the
    default, or ``root``): with ``root`` the network reads the root alone, for its priors, and the
    material evaluator every other node (``material-mcts``'s uniform priors and values), so a timed
    move searches the teacher's thousands of positions from the network's choice of moves.
    """

    evaluator: NetworkEvaluator | OnnxEvaluator | BlendedEvaluator | PolicyTemperature | MaterialEvaluator

    def __init__(
        self,
        game: str,
        path: str | None = None,
        sims: int | str = 200,
        temperature: float | str = 0.0,
        device: str = "auto",
        gumbel: int | str = 0,
        seed: int | str = 0,
        network: AlphaZeroNet | None = None,
        leaves: int | str = 8,
        cache_mb: float | str = 256.0,
        mate: int | str = 3,
        runtime: str = "auto",
        precision: str = "f32",
        material: float | str = 0.0,
        guide: str = "all",
        cpuct: float | str = MCTSConfig.c_puct_init,
        fpu: float | str = MCTSConfig.fpu_reduction,
        root_fpu: float | str | None = MCTSConfig.root_fpu,
        policy_temp: float | str = 1.0,
    ) -> None:
        self.name = "alphazero"
        if runtime not in ("auto", *RUNTIMES):
            raise ValueError(f"runtime must be auto, {' or '.join(RUNTIMES)}, got {runtime!r}")
        check_precision(precision)
        on_openvino = runtime == "openvino" or precision != "f32"
        self.device = resolve_device("cpu" if on_openvino and device == "auto" else device)
        if guide not in ("all", "root"):
            raise ValueError(f"guide must be all or root, got {guide!r}")
        guided = guide == "root"
        if guided and not evaluates(game):
            raise ValueError(f"guide=root reads the leaves with the four-player material evaluator, not {game!r}'s")
        config = MCTSConfig(
            simulations=int_option(sims, "sims", minimum=1, maximum=100_000),
            gumbel=bool(int_option(gumbel, "gumbel", minimum=0, maximum=1)),
            leaves_per_tree=int_option(leaves, "leaves", minimum=1, maximum=256),
            # guided: no cache, so the root's network reading is never a leaf's material values
            cache_mb=0.0 if guided else float_option(cache_mb, "cache_mb", 0.0, 65_536.0),
            mate_depth=int_option(mate, "mate", minimum=0, maximum=MAX_MATE_DEPTH),
            c_puct_init=float_option(cpuct, "cpuct", 0.0, 100.0),
            fpu_reduction=float_option(fpu, "fpu", -2.0, 2.0),
            root_fpu=None if root_fpu in (None, "none") else float_option(root_fpu, "root_fpu", -1.0, 1.0),
            planes="uint8",
        )
        temperature = float_option(temperature, "temperature", 0.0, 100.0)
        evaluator: NetworkEvaluator | OnnxEvaluator | BlendedEvaluator | PolicyTemperature
        if network is None and path is not None and str(path).endswith(".onnx"):
            if runtime == "openvino" or precision != "f32":
                setting = "runtime=openvino" if runtime == "openvino" else f"precision={precision}"
                raise ValueError(f"{setting} is for checkpoints; an .onnx file runs on ONNX Runtime")
            evaluator = OnnxEvaluator(path, game)  # ONNX Runtime on the CPU
        else:
            if network is None:
                if path is None:
                    raise ValueError("the alphazero agent needs a checkpoint: alphazero:PATH?sims=N")
                network, _ = load_network(path, game, self.device)
            if runtime == "auto":
                installed = importlib.util.find_spec("openvino") is not None
                runtime = "openvino" if self.device.type == "cpu" and (installed or on_openvino) else "torch"
            evaluator = NetworkEvaluator(network, self.device, runtime, precision)
        weight = float_option(material, "material", 0.0, 1.0)
        if weight:
            if not evaluates(game):
                raise ValueError(f"material blends four-player values; {game!r} has no material evaluator")
            evaluator = BlendedEvaluator(evaluator, weight)
        policy_temperature = float_option(policy_temp, "policy_temp", 0.1, 10.0)
        if policy_temperature != 1.0:
            evaluator = PolicyTemperature(evaluator, policy_temperature)
        self.network_evaluator = evaluator
        """what reads positions with the network (the root alone with ``guide=root``)"""
        leaf_evaluator = MaterialEvaluator() if guided else evaluator
        super().__init__(
            game, leaf_evaluator, config, temperature, int_option(seed, "seed"), evaluator if guided else None
        )

    def reset(self, seed: int | None = None) -> None:
        """Empty the evaluation cache; with ``seed``, restart the search's random numbers from it."""
        super().reset(seed)
        self.search.cache.clear()

    def prepare(self, state: GameState) -> None:
        teams = state.teams is not None
        if teams != self.evaluator.teams:  # cached values were read for the other seating
            self.evaluator.teams = self.network_evaluator.teams = teams
            self.search.cache.clear()
