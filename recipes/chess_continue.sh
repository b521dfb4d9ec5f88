#!/usr/bin/env bash
# More Stockfish labels on top of a chess network: Stockfish labels POSITIONS fresh positions
# (depth 8, 4 lines, 2 processes; games of seed SEED, which the shipped network's seed-0 data never
# held), INIT learns from them for MINUTES minutes at a peak learning rate of 1e-3 (cosine), then
# the result plays INIT head to head and ANCHOR (stockfish?elo=1800&movetime=100, the strength the
# chess network is climbing to) at 200 simulations a move, 200 games each (the shipped book, colours
# swapped; nothing else should run during the second, which is timed). At the defaults about 85
# minutes of labelling and learning and 35 of rating on this 2-core CPU; a stopped run goes on where
# it stopped (--resume). SEARCH adds search settings to both networks' specs in the ratings (the
# shipped ones: "&leaves=4&fpu=0&root_fpu=none").
#   bash recipes/chess_continue.sh [POSITIONS] [MINUTES] [SEED] [INIT] [RUN_NAME] [SEARCH] [ANCHOR]
set -euo pipefail
positions=${1:-480000}
minutes=${2:-30}
seed=${3:-1}
init=${4:-@chess}
run=${5:-chess_continue_seed$seed}  # a run of its own per part
search=${6:-}
anchor=${7:-stockfish?elo=1800&movetime=100}
export PATH="$PATH:/usr/games"
python -m chess_envs.train.distill --game chess --teacher "stockfish?depth=8" --positions "$positions" --workers 2 \
    --seed "$seed" --stage data --run-name "$run" --resume --progress false
python -m chess_envs.train.distill --game chess --teacher "stockfish?depth=8" --seed "$seed" --stage learn --run-name "$run" \
    --resume --init "$init" --learning-rate 1e-3 --total-steps 1000000 --minutes "$minutes" --progress false
chess-envs export "runs/$run/checkpoints/last.pt" "runs/$run.pt"
chess-envs tournament --game chess --games-per-pair 200 --openings-file @chess --workers 2 --quiet \
    --bootstrap 10000 --out "runs/$run-h2h" --agents "alphazero:runs/$run.pt?sims=200$search" "alphazero:$init?sims=200$search"
chess-envs tournament --game chess --games-per-pair 200 --openings-file @chess --workers 2 --quiet \
    --bootstrap 10000 --out "runs/$run-anchor" --agents "alphazero:runs/$run.pt?sims=200$search" "$anchor"
