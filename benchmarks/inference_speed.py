"""Network inference on this machine: the forward passes the agents and self-play could run, timed
on the three shipped networks, and what each costs in accuracy.

    python benchmarks/inference_speed.py [--batches 1 16 256] [--threads 1 2] [--compile] [--openvino] [--int8]

Positions per second, median of ``--repetitions`` timed passes after warm-up, on planes of real
positions (the shipped books), of:

* ``eager``: the network as trained (BatchNorm after each convolution), float32, NCHW;
* ``fused``: BatchNorm folded into the convolutions (``fused_for_inference``);
* ``fused NHWC``: the same in channels-last memory format (what ``NetworkEvaluator`` runs);
* ``compiled``: ``fused NHWC`` through ``torch.compile`` (with ``--compile``; each new batch size
  compiles again, and search batches change size every wave);
* ``onnx``: the network exported to ONNX under ONNX Runtime (what ``alphazero:NET.onnx`` runs);
* ``onnx int8``: the same with static int8 quantization (QDQ, calibrated on book positions);
* ``openvino``: the ONNX model compiled by OpenVINO for the CPU at its default precision, and
  ``openvino f32``: the network built for OpenVINO at float32 (``runtime=openvino`` of the agents
  and ``--inference openvino`` of self-play; both with ``--openvino``, ``pip install .[openvino]``);
* ``openvino bf16``: that network at bfloat16 (``precision=bf16`` of the agents), and ``openvino
  int8``: the same graph quantized to int8 by NNCF (per-channel weights, activations calibrated on
  128 book positions), every layer, or ``openvino int8 trunk`` with the first convolution and the
  two heads left at float (with ``--int8``, ``pip install nncf``).

Accuracy, against the float32 network on the same positions: the share of positions whose top
policy move is the same, and the largest value difference. Run it alone: it times the CPU.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch

from chess_envs.agents.alphazero.checkpoint import load_network
from chess_envs.agents.alphazero.network import AlphaZeroNet, fused_for_inference
from chess_envs.agents.alphazero.onnx import onnx_bytes
from chess_envs.agents.alphazero.openvino_net import compile_network
from chess_envs.agents.shipped import FOLDER, shipped_checkpoint
from chess_envs.arena.game import read_openings, shipped_book
from chess_envs.registry import game_names, new_state

Forward = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""planes ``[B, C, H, W]`` float32 -> (logits ``[B, A]``, values ``[B, V]``)"""


def book_planes(game: str, count: int) -> np.ndarray:
    """Observation planes of ``count`` positions: the book's openings and a few plies after each."""
    rng = np.random.default_rng(0)
    planes = []
    for text in read_openings(str(shipped_book(game)), game):
        state = new_state(game, text)
        for _ in range(int(rng.integers(0, 8))):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            planes.append(state.observation())
        if len(planes) == count:
            break
    return np.stack(planes).astype(np.float32)


def torch_forward(network: AlphaZeroNet, channels_last: bool) -> Forward:
    memory = torch.channels_last if channels_last else torch.contiguous_format

    @torch.inference_mode()
    def forward(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, values = network(torch.from_numpy(planes).contiguous(memory_format=memory))
        return logits.numpy(), values.numpy()

    return forward


def onnx_forward(model: bytes, threads: int) -> Forward:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])

    def forward(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, values = session.run(None, {"planes": planes})
        return logits, values

    return forward


def quantized(model: bytes, calibration: np.ndarray) -> bytes:
    """``model`` with static int8 quantization (QDQ, per-channel weights), calibrated on ``calibration``."""
    import io
    import tempfile
    from pathlib import Path

    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.rows = iter(calibration[i : i + 16] for i in range(0, len(calibration), 16))

        def get_next(self) -> dict | None:
            batch = next(self.rows, None)
            return None if batch is None else {"planes": batch}

    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "fp32.onnx", Path(folder) / "int8.onnx"
        source.write_bytes(model)
        quantize_static(str(source), str(target), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)  # fmt: skip
        buffer = io.BytesIO()
        onnx.save(onnx.load(str(target)), buffer)
        return buffer.getvalue()


def nncf_forward(network: AlphaZeroNet, calibration: np.ndarray, threads: int, trunk_only: bool) -> Forward:
    """``network`` built for OpenVINO and quantized to int8 by NNCF (activations calibrated on
    ``calibration``); with ``trunk_only``, the stem convolution and both heads stay at float."""
    from chess_envs.agents.alphazero.openvino_net import compile_model, graph, openvino_module, telemetry_hidden

    openvino = openvino_module()
    with telemetry_hidden():
        import nncf

    nncf.set_log_level(logging.ERROR)  # not its list of the layers it leaves at float
    model = graph(fused_for_inference(network), openvino)
    ignored = None
    if trunk_only:
        convolutions = [op.get_friendly_name() for op in model.get_ordered_ops() if op.get_type_name() == "Convolution"]
        # graph order: the stem, the trunk's pairs, then the policy head's two and the value head's one
        ignored = nncf.IgnoredScope(names=[convolutions[0], *convolutions[-3:]], types=["MatMul"])
    dataset = nncf.Dataset(list(calibration), lambda planes: planes[None])
    int8 = nncf.quantize(model, dataset, subset_size=len(calibration), ignored_scope=ignored)
    return compile_model(int8, threads, "bf16")  # the layers left at float: the CPU plugin's default


def openvino_forward(model: bytes, threads: int) -> Forward:
    from chess_envs.agents.alphazero.openvino_net import shared_core

    core = shared_core()
    compiled = core.compile_model(core.read_model(model), "CPU", {"INFERENCE_NUM_THREADS": threads})

    def forward(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = compiled(planes)
        return out[0], out[1]

    return forward


def rate(forward: Forward, planes: np.ndarray, repetitions: int) -> float:
    for _ in range(3):
        forward(planes)
    times = []
    for _ in range(repetitions):
        start = time.perf_counter()
        forward(planes)
        times.append(time.perf_counter() - start)
    return len(planes) / statistics.median(times)


def accuracy(forward: Forward, reference: Forward, planes: np.ndarray) -> tuple[float, float]:
    """(share of positions with the same top policy move, largest value difference) against ``reference``."""
    logits, values = forward(planes)
    ref_logits, ref_values = reference(planes)
    same = float(np.mean(np.argmax(logits, axis=1) == np.argmax(ref_logits, axis=1)))
    return same, float(np.max(np.abs(values - ref_values)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 256])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--compile", action="store_true", help="also time torch.compile (slow to compile)")
    parser.add_argument("--openvino", action="store_true", help="also time OpenVINO (pip install .[openvino])")
    parser.add_argument("--int8", action="store_true", help="also time OpenVINO bf16 and int8 (pip install nncf)")
    shipped = sorted(path.stem for path in FOLDER.glob("*.pt") if path.stem in game_names())  # a game's own network
    parser.add_argument("--games", nargs="+", default=shipped, choices=shipped, help="the games whose networks to time")
    args = parser.parse_args()
    logging.getLogger().setLevel(logging.ERROR)  # the quantizer's advice on pre-processing
    print("positions per second (ratio to eager); accuracy: same top move / largest value difference vs fp32")
    extra = (("openvino", "openvino f32") if args.openvino else ()) + (
        ("openvino bf16", "openvino int8", "openvino int8 trunk") if args.int8 else ()
    )
    for game in args.games:
        network, _ = load_network(shipped_checkpoint(game), game, torch.device("cpu"))
        network.eval()
        planes = book_planes(game, max(*args.batches, 256))
        model = onnx_bytes(network, game)
        int8 = quantized(model, planes[:128])
        shape = network.config
        print(f"\n{game} network ({shape.filters}x{shape.blocks}, {shape.activation})")
        for threads in args.threads:
            torch.set_num_threads(threads)
            fused = fused_for_inference(network)
            variants: dict[str, Forward] = {
                "eager": torch_forward(network, False),
                "fused": torch_forward(fused, False),
                "fused NHWC": torch_forward(fused_for_inference(network).to(memory_format=torch.channels_last), True),  # type: ignore[call-overload]
                "onnx": onnx_forward(model, threads),
                "onnx int8": onnx_forward(int8, threads),
            }
            if args.compile:
                compiled = torch.compile(fused_for_inference(network).to(memory_format=torch.channels_last))  # type: ignore[call-overload]
                variants["compiled"] = torch_forward(compiled, True)
            if args.openvino:
                variants["openvino"] = openvino_forward(model, threads)
                variants["openvino f32"] = compile_network(network, threads)
            if args.int8:
                variants["openvino bf16"] = compile_network(network, threads, "bf16")
                variants["openvino int8"] = nncf_forward(network, planes[:128], threads, trunk_only=False)
                variants["openvino int8 trunk"] = nncf_forward(network, planes[:128], threads, trunk_only=True)
            for size in args.batches:
                batch = planes[:size]
                base = rate(variants["eager"], batch, args.repetitions)
                cells = [f"{name} {value:,.0f} ({value / base:.2f}x)"
                         for name, value in ((n, base if n == "eager" else rate(f, batch, args.repetitions))
                                             for n, f in variants.items())]  # fmt: skip
                print(f"  {threads} thread{'s' if threads > 1 else ''}, batch {size}: " + "; ".join(cells), flush=True)
        reference = torch_forward(network, False)
        for name in ("fused NHWC", "onnx", "onnx int8", *extra):
            same, worst = accuracy(variants[name], reference, planes)
            print(f"  accuracy of {name}: same top move {100 * same:.1f}%, largest value difference {worst:.4f}")


if __name__ == "__main__":
    main()
