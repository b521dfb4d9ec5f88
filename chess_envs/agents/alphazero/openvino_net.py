"""The AlphaZero network compiled by OpenVINO for the CPU, at float32 precision (or bfloat16).

The graph is built op by op from the BatchNorm-folded network's weights (a few milliseconds, no
tracing), so a learner's new weights cost one compile (a fraction of a second) rather than a
conversion through PyTorch's frontend. Float32 is asked for explicitly: OpenVINO's CPU plugin
otherwise lowers precision where the processor allows, and its moves then differ from the torch
network's on a few positions in a hundred (``benchmarks/inference_speed.py --openvino``).
``precision="bf16"`` asks for that lowering on purpose: on a processor with bfloat16 arithmetic
(AVX512-BF16, AMX) about 1.5x the positions a second at batch 8-16, for slightly different
outputs; where the processor has none, OpenVINO runs float32.

    pip install "chess-envs[openvino]"
    alphazero:@chess?sims=200&runtime=openvino           # an agent on it
    alphazero:@four_player?precision=bf16                # on it at bfloat16
    python -m chess_envs.train.alphazero --preset los_alamos --inference openvino
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from torch import nn

from chess_envs.agents.alphazero.network import AlphaZeroNet, ResidualBlock, fused_for_inference

Forward = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""planes ``[B, C, H, W]`` float32 -> (logits ``[B, num_actions]``, values ``[B, value_size]``)"""


@contextlib.contextmanager
def telemetry_hidden() -> Iterator[None]:
    """Imports inside see no ``openvino_telemetry``: ``import openvino`` (and NNCF's) otherwise
    reports the import to Google Analytics from a child process unless the user opted out, a
    network call nobody here asked for; OpenVINO and NNCF fall back to no-op stubs without it."""
    before = sys.modules.get("openvino_telemetry", _ABSENT)
    sys.modules["openvino_telemetry"] = None  # type: ignore[assignment]  # import fails: the stubs
    try:
        yield
    finally:
        if before is _ABSENT:
            del sys.modules["openvino_telemetry"]
        else:
            sys.modules["openvino_telemetry"] = before  # type: ignore[assignment]


_ABSENT = object()


def openvino_module() -> Any:
    """The ``openvino`` module, first imported with its telemetry hidden (:func:`telemetry_hidden`)."""
    try:
        with telemetry_hidden():
            import openvino
    except ImportError:
        raise ImportError('runtime "openvino" needs OpenVINO: pip install "chess-envs[openvino]"') from None
    return openvino


_CORE: list[Any] = []
_CORE_LOCK = threading.Lock()


def shared_core() -> Any:
    """The process's one OpenVINO ``Core``, kept until the process ends.

    Each Core's CPU plugin gives the thread that loads it an alternate signal stack of its own and,
    when dropped, puts back the one it found only if its own is still current: two Cores dropped in
    the order they were made (two agents, say) leave the thread on freed memory, and the next signal
    handled there (Ctrl-C, SIGTERM) kills the process with a segmentation fault. One Core, never
    dropped, makes no such pair.
    """
    with _CORE_LOCK:
        if not _CORE:
            _CORE.append(openvino_module().Core())
        return _CORE[0]


PRECISIONS = ("f32", "bf16")
"""the arithmetic OpenVINO is asked to compute in"""


def check_precision(precision: str) -> None:
    """Refuse a precision not in :data:`PRECISIONS`."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")


def compile_network(network: AlphaZeroNet, threads: int, precision: str = "f32") -> Forward:
    """``network``'s forward pass (eval mode, BatchNorm folded) compiled for the CPU on ``threads``
    threads at ``precision`` (one of :data:`PRECISIONS`); any batch size. Inputs and outputs are
    float32 either way."""
    check_precision(precision)
    openvino = openvino_module()
    return compile_model(graph(fused_for_inference(network), openvino), threads, precision)


def compile_model(model: Any, threads: int, precision: str) -> Forward:
    """An OpenVINO model of the network (:func:`graph`'s, or a quantized copy of it) compiled for
    the CPU on ``threads`` threads at ``precision``, as a forward pass."""
    # No pinning: the CPU plugin otherwise binds the calling thread to a core for each inference,
    # the same first core in every process, so two tournament workers or self-play actors share
    # one core of two and each runs at half speed.
    settings = {"INFERENCE_PRECISION_HINT": precision, "INFERENCE_NUM_THREADS": threads, "ENABLE_CPU_PINNING": False}
    compiled = shared_core().compile_model(model, "CPU", settings)
    request = compiled.create_infer_request()

    def forward(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = request.infer({0: np.ascontiguousarray(planes, dtype=np.float32)})
        return np.array(out[0]), np.array(out[1])  # the request reuses its buffers: copy them out

    return forward


def graph(network: AlphaZeroNet, openvino: Any) -> Any:
    """The OpenVINO model of a fused network: the same layers as ``AlphaZeroNet.forward``."""
    ops = openvino.opset13
    config = network.config

    def constant(array: Any) -> Any:
        return ops.constant(np.ascontiguousarray(array.detach().numpy(), dtype=np.float32))

    def layer(module: nn.Module, x: Any) -> Any:
        if isinstance(module, nn.Sequential):
            for child in module:
                x = layer(child, x)
            return x
        if isinstance(module, ResidualBlock):
            y = layer(module.act, layer(module.conv1, x))
            return layer(module.act, ops.add(x, layer(module.conv2, y)))
        if isinstance(module, nn.Conv2d):
            pad = [module.padding[0], module.padding[1]]
            y = ops.convolution(x, constant(module.weight), [1, 1], pad, pad, [1, 1])
            return y if module.bias is None else ops.add(y, constant(module.bias.reshape(1, -1, 1, 1)))
        if isinstance(module, nn.Linear):
            y = ops.matmul(x, constant(module.weight), False, True)
            return ops.add(y, constant(module.bias))
        if isinstance(module, nn.Flatten):
            return ops.reshape(x, ops.constant(np.array([0, -1], dtype=np.int64)), True)
        if isinstance(module, nn.ReLU):
            return ops.relu(x)
        if isinstance(module, nn.GELU):
            return ops.gelu(x, "erf")  # torch's exact GELU
        if isinstance(module, nn.Tanh):
            return ops.tanh(x)
        if isinstance(module, nn.Identity):
            return x
        raise TypeError(f"no OpenVINO layer for {type(module).__name__}")

    shape = [-1, config.in_channels, config.height, config.width]
    planes = ops.parameter(openvino.PartialShape(shape), openvino.Type.f32, name="planes")
    x = layer(network.trunk, layer(network.stem, planes))
    logits = layer(network.policy, x)
    if network.move_types:  # [B, types, H, W] -> [B, H, W, types] -> action = square * types + type
        logits = ops.transpose(logits, ops.constant(np.array([0, 2, 3, 1], dtype=np.int64)))
        logits = ops.reshape(logits, ops.constant(np.array([0, -1], dtype=np.int64)), True)
    values = layer(network.value, x)
    return openvino.Model([logits, values], [planes], "alphazero")
