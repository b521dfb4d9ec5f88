#!/usr/bin/env bash
# Issue 64's learning check: the los_alamos preset for MINUTES (default 20) with the asynchronous
# pipeline against the lock-step loop at the same settings and replay ratio (async's default is the
# lock-step loop's), two seeds each, one run at a time on the local backend; then each seed's two
# networks head to head, GAMES (default 200) games from the shipped book at 200 simulations a move.
# The asynchronous side's Elo interval is in each tournament's report (runs/pipe-s*-match/).
#   bash recipes/pipeline_learning.sh [MINUTES] [GAMES]
set -euo pipefail
minutes=${1:-20}
games=${2:-200}
for seed in 1 2; do
    for pipeline in async lockstep; do
        python -m chess_envs.train.alphazero --preset los_alamos --pipeline "$pipeline" --seed "$seed" \
            --minutes "$minutes" --run-name "pipe-s$seed-$pipeline" --eval-every 0 --keep-checkpoints 1 --progress false
    done
done
for seed in 1 2; do
    chess-envs tournament --game los_alamos --games-per-pair "$games" --openings-file @los_alamos --seed "$seed" \
        --out "runs/pipe-s$seed-match" --workers 2 --quiet --agents "alphazero:runs/pipe-s$seed-async/checkpoints/last.pt?sims=200" \
        "alphazero:runs/pipe-s$seed-lockstep/checkpoints/last.pt?sims=200"
done
