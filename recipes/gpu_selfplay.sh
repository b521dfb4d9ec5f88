#!/usr/bin/env bash
# Self-play on a CUDA machine: network evaluations per second, GPU utilisation and self-play games
# per hour, for each training preset at its own batch and at GPU-sized batches (games searched
# together), with the shipped networks (benchmarks/selfplay_speed.py on --device cuda); then the
# learner's steps per second on CUDA, one rank and one rank per GPU (benchmarks/learner_speed.py).
#   bash recipes/gpu_selfplay.sh [MOVES] [RUNS]
# Needs a CUDA build of PyTorch and nvidia-smi. The CPU path stays the tested one; this is a figure.
set -euo pipefail
moves=${1:-60}
runs=${2:-3}
command -v nvidia-smi >/dev/null || { echo "gpu_selfplay.sh: nvidia-smi not found (no NVIDIA GPU here)" >&2; exit 1; }
python -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 'this PyTorch has no CUDA')"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
samples=$(mktemp)
trap 'rm -f "$samples"' EXIT
for preset in los_alamos chess four_player; do
    for games in 0 512 2048; do
        nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 500 >"$samples" &
        sampler=$!
        python benchmarks/selfplay_speed.py --preset "$preset" --device cuda --games-in-parallel "$games" \
            --moves "$moves" --runs "$runs" | tail -1
        kill "$sampler" 2>/dev/null || true
        wait "$sampler" 2>/dev/null || true
        awk '{ s += $1; n += 1 } END { if (n) printf "  GPU utilisation: mean %.0f%% over %d samples\n", s / n, n }' \
            "$samples"
    done
done
python benchmarks/learner_speed.py
