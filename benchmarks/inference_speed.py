"""Network inference speed on this machine: which forward pass self-play and the agents should run.

For the Los Alamos preset network (48 filters, 4 blocks) and the chess preset (64 x 6), at the
batch sizes self-play hands the network, positions per second of:

* ``eager``: the network as trained (BatchNorm after each convolution), float32, NCHW;
* ``fused``: BatchNorm folded into the convolutions (``fused_for_inference``, what
  ``NetworkEvaluator`` runs);
* ``fused channels_last``: the same in NHWC memory format;
* ``fused compiled``: the same through ``torch.compile`` (with ``--compile``; compiling takes a while);
* ``relu``: the fused network with ReLU in place of GELU (an architecture choice: it changes the
  function, so it can only be taken for networks trained with it);
* ``onnx``: the network exported to ONNX and run by ONNX Runtime on the CPU (with ``--onnx``;
  ``pip install "chess-envs[onnx]"``), as the ``alphazero:NET.onnx`` agent runs it.

Median of ``--repetitions`` timed passes after warm-up. Run: ``python benchmarks/inference_speed.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch import nn

from agents.alphazero.network import AlphaZeroNet, NetworkConfig, fused_for_inference, resolve_device
from chess_envs.registry import new_state


def rate(model: nn.Module, batch: torch.Tensor, repetitions: int) -> float:
    with torch.inference_mode():
        for _ in range(3):
            model(batch)
        times = []
        for _ in range(repetitions):
            start = time.perf_counter()
            model(batch)
            if batch.is_cuda:
                torch.cuda.synchronize()
            times.append(time.perf_counter() - start)
    return len(batch) / statistics.median(times)


def with_relu(network: nn.Module) -> nn.Module:
    for name, child in network.named_children():
        if isinstance(child, nn.GELU):
            setattr(network, name, nn.ReLU())
        else:
            with_relu(child)
    return network


class OnnxModule(nn.Module):
    """ONNX Runtime behind a module's call, so :func:`rate` times it like the torch variants."""

    def __init__(self, network: AlphaZeroNet, game: str) -> None:
        import onnxruntime

        from agents.alphazero.onnx import onnx_bytes

        super().__init__()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        self.session = onnxruntime.InferenceSession(
            onnx_bytes(network, game), options, providers=["CPUExecutionProvider"]
        )

    def forward(self, planes: torch.Tensor) -> list:
        return self.session.run(None, {"planes": planes.cpu().numpy()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[64, 512])
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--compile", action="store_true", help="also time torch.compile (slow to compile)")
    parser.add_argument("--onnx", action="store_true", help="also time the ONNX export under ONNX Runtime")
    args = parser.parse_args()
    device = resolve_device(args.device)
    torch.manual_seed(0)
    print(f"device {device}, {torch.get_num_threads()} threads; positions per second (ratio to eager)")
    for game, filters, blocks in (("los_alamos", 48, 4), ("chess", 64, 6)):
        state = new_state(game)
        network = AlphaZeroNet(
            NetworkConfig(*state.observation_shape, num_actions=state.num_actions, filters=filters, blocks=blocks)
        ).to(device)
        network.train()
        with torch.no_grad():  # BatchNorm statistics that are not the identity
            network(torch.rand(64, *state.observation_shape, device=device))
        network.eval()
        fused = fused_for_inference(network)
        variants: dict[str, tuple[nn.Module, bool]] = {
            "eager": (network, False),
            "fused": (fused, False),
            "fused channels_last": (fused_for_inference(network).to(memory_format=torch.channels_last), True),
            "relu (fused)": (with_relu(fused_for_inference(network)), False),
        }
        if args.compile:
            variants["fused compiled"] = (torch.compile(fused_for_inference(network)), False)
        if args.onnx:
            variants["onnx"] = (OnnxModule(network, game), False)
        for size in args.batches:
            batch = torch.rand(size, *state.observation_shape, device=device)
            base = rate(network, batch, args.repetitions)
            cells = []
            for name, (model, channels_last) in variants.items():
                data = batch.contiguous(memory_format=torch.channels_last) if channels_last else batch
                value = base if name == "eager" else rate(model, data, args.repetitions)
                cells.append(f"{name} {value:,.0f} ({value / base:.2f}x)")
            print(f"{game} {filters}x{blocks}, batch {size}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
