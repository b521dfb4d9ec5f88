#!/usr/bin/env bash
# AlphaZero learning benchmark on Los Alamos: train for MINUTES (default 57) on this machine's CPU,
# export the network, then rate it in 200 games each against random and greedy (48 simulations
# per move, 100 random 4-ply openings played with both colours).
#   bash benchmarks/alphazero_learning.sh [MINUTES] [RUN_NAME]
set -euo pipefail
minutes=${1:-57}
run=${2:-la60}
start=$(date +%s)
python -m train.alphazero --preset los_alamos --run-name "$run" --minutes "$minutes" --replay-size 150000 \
    --keep-checkpoints 1 --progress false
echo "training wall time: $(( $(date +%s) - start )) s"
python -m agents.alphazero.checkpoint "runs/$run/checkpoints/last.pt" "runs/$run/model.pt"
python -m evaluate tournament --game los_alamos --games-per-pair 200 --out "runs/$run-eval" --quiet \
    --agents random greedy "alphazero:runs/$run/model.pt?sims=48"
