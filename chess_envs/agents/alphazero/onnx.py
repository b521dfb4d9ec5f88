"""AlphaZero networks as ONNX files, and an evaluator that runs them through ONNX Runtime.

    chess-envs export @chess chess.onnx --onnx         # any shipped or trained checkpoint
    alphazero:chess.onnx?sims=200                      # an agent that plays it (pip install "chess-envs[onnx]")

The file holds the network (planes ``[B, C, H, W]`` float32 -> logits ``[B, actions]``, values
``[B, 1 or players]``, the batch size free) and, as metadata, the game and the network's shape,
so a file for another game is refused. The export is for portability (other runtimes, the
browser, TensorRT); on a CPU the BatchNorm-folded torch network is usually as fast or faster
(``python benchmarks/inference_speed.py --onnx``).
"""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from chess_envs.agents.alphazero.checkpoint import CheckpointError, load_network
from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig, team_values
from chess_envs.files import write_atomic
from chess_envs.registry import new_state

METADATA = "chess_envs.alphazero"
"""the metadata key holding ``{"game": ..., "network": {...}}``"""


def export_onnx(source: str | Path, target: str | Path) -> Path:
    """Write the network of checkpoint ``source`` (a path or ``@<game>``) as an ONNX file."""
    network, payload = load_network(source)
    data = onnx_bytes(network, payload["game"])
    return write_atomic(target, lambda handle: handle.write(data))


def onnx_bytes(network: AlphaZeroNet, game: str) -> bytes:
    """``network`` (in eval mode) as an ONNX model, with the game and its shape as metadata."""
    import io

    import onnx
    import torch

    buffer = io.BytesIO()
    planes = torch.zeros(2, network.config.in_channels, network.config.height, network.config.width)
    with warnings.catch_warnings():  # the TorchScript exporter's notes on itself and on the shape check it traces
        warnings.simplefilter("ignore")
        torch.onnx.export(
            network.eval(),
            (planes,),
            buffer,  # type: ignore[arg-type]  # a file object is taken as well as a path
            input_names=["planes"],
            output_names=["logits", "values"],
            dynamic_axes={name: {0: "batch"} for name in ("planes", "logits", "values")},
            dynamo=False,  # the TorchScript exporter: no onnxscript needed, and this network is plain convolutions
        )
    model = onnx.load_from_string(buffer.getvalue())
    entry = model.metadata_props.add()
    entry.key, entry.value = METADATA, json.dumps({"game": game, "network": network.config.to_dict()})
    return model.SerializeToString()


class OnnxEvaluator:
    """Planes ``[B, C, H, W]`` (float32, or uint8 of ``quantize_planes``) -> (logits, values) as
    numpy through an ONNX Runtime session on the CPU: the same interface as ``NetworkEvaluator``."""

    def __init__(self, path: str | Path, game: str, threads: int = 0) -> None:
        try:
            import onnxruntime
        except ImportError:
            raise ImportError("ONNX networks need ONNX Runtime: pip install 'chess-envs[onnx]'") from None
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        try:
            self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # ONNX Runtime raises its own kinds on a missing or damaged file
            raise CheckpointError(f"{path} is not a readable ONNX network: {error}") from None
        meta = self.session.get_modelmeta().custom_metadata_map.get(METADATA)
        try:
            described: dict[str, Any] = json.loads(meta or "")
            config = NetworkConfig.from_file(described["network"])
        except (ValueError, KeyError, TypeError) as error:
            raise CheckpointError(f"{path} is not an ONNX network exported by chess_envs ({error})") from None
        if described.get("game") != game:
            raise CheckpointError(f"{path} was trained on {described.get('game')!r}, not {game!r}")
        prototype = new_state(game)
        if (config.in_channels, config.height, config.width) != tuple(prototype.observation_shape):
            raise CheckpointError(f"{path}: its planes do not fit {game}")
        self.config = config
        self.seconds = 0.0
        """wall time spent in calls so far"""
        self.teams = False
        """read a four-player network's per-seat values for Teams"""

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        start = time.perf_counter()
        if planes.dtype == np.uint8:
            batch = planes.astype(np.float32) / np.float32(255.0)
        else:
            batch = np.ascontiguousarray(planes, dtype=np.float32)
        logits, values = self.session.run(["logits", "values"], {"planes": batch})
        if self.teams:
            values = team_values(values, self.config.teams)
        self.seconds += time.perf_counter() - start
        return np.asarray(logits, dtype=np.float32), np.asarray(values, dtype=np.float32)
