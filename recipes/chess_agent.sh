#!/usr/bin/env bash
# The chess agent end to end on this 2-core CPU: Stockfish labels POSITIONS positions (depth 8,
# 4 lines each, 2 processes), a 64x6 network learns from them for MINUTES minutes (data and
# learning together about 1.6 hours at the defaults), then it is rated at 200 simulations per move
# in 200 games against each of greedy, fairy-stockfish?nodes=10 and stockfish?skill=0&depth=1
# (random 4-ply openings, colours swapped), and its puzzle solve rate is measured.
#   bash recipes/chess_agent.sh [POSITIONS] [MINUTES] [RUN_NAME]
set -euo pipefail
positions=${1:-400000}
minutes=${2:-50}
run=${3:-chess_agent}
export PATH="$PATH:/usr/games"
start=$(date +%s)
python -m chess_envs.train.distill --game chess --teacher "stockfish?depth=8" --positions "$positions" --workers 2 \
    --stage data --run-name "$run" --resume --progress false
echo "data wall time: $(( $(date +%s) - start )) s"
learn=$(date +%s)
python -m chess_envs.train.distill --game chess --teacher "stockfish?depth=8" --filters 64 --blocks 6 --total-steps 1000000 \
    --minutes "$minutes" --stage learn --run-name "$run" --resume --progress false
echo "learning wall time: $(( $(date +%s) - learn )) s; in all $(( $(date +%s) - start )) s"
chess-envs export "runs/$run/checkpoints/last.pt" "runs/$run/model.pt"
chess-envs tournament --game chess --games-per-pair 200 --gauntlet --out "runs/$run-eval" --quiet \
    --agents "alphazero:runs/$run/model.pt?sims=200" greedy "fairy-stockfish?nodes=10" "stockfish?skill=0&depth=1"
python recipes/puzzles.py --game chess --agents "alphazero:runs/$run/model.pt?sims=200" greedy
