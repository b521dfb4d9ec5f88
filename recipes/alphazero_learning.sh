#!/usr/bin/env bash
# AlphaZero learning benchmark on Los Alamos: train for MINUTES (default 60) on this machine's CPU,
# export the network, then rate it at 200 simulations per move in 200 games each against greedy and
# fairy-stockfish?nodes=10 (random 4-ply openings, played with both colours), and head to head
# against the shipped chess_envs/agents/networks/los_alamos.pt.
#   bash recipes/alphazero_learning.sh [MINUTES] [RUN_NAME]
set -euo pipefail
minutes=${1:-60}
run=${2:-la60}
export PATH="$PATH:/usr/games"
start=$(date +%s)
python -m chess_envs.train.alphazero --preset los_alamos --run-name "$run" --minutes "$minutes" --replay-size 150000 \
    --keep-checkpoints 1 --progress false
echo "training wall time: $(( $(date +%s) - start )) s"
chess-envs export "runs/$run/checkpoints/last.pt" "runs/$run/model.pt"
chess-envs tournament --game los_alamos --games-per-pair 200 --out "runs/$run-eval" --quiet \
    --agents greedy "fairy-stockfish?nodes=10" "alphazero:runs/$run/model.pt?sims=200"
chess-envs tournament --game los_alamos --games-per-pair 200 --out "runs/$run-vs-shipped" --quiet \
    --agents "alphazero:runs/$run/model.pt?sims=200" "alphazero:@los_alamos?sims=200"
