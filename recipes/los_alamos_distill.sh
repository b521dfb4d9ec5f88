#!/usr/bin/env bash
# Los Alamos taught by Fairy-Stockfish on this 2-core CPU: fairy-stockfish at depth 8 plays and labels games
# (2 processes, 4 lines a position) until POSITIONS positions, the shipped self-play network learns them for
# STEPS learner steps (4,000 of 256 on 133,237 positions: about 8 passes), and the result plays at equal
# time, 0.15 s a move with 0.05 s kept back (about 100 ms of thinking), GAMES games from the shipped book:
# against the shipped network, then against Fairy-Stockfish at full strength under the same clock. Nothing
# else should run while the timed matches play.
# Rerunning it resumes whichever stage was cut off.
#   bash recipes/los_alamos_distill.sh [POSITIONS] [STEPS] [GAMES] [RUN_NAME]
set -euo pipefail
positions=${1:-133000}
steps=${2:-4000}
games=${3:-200}
run=${4:-los_alamos_distill}
export PATH="$PATH:/usr/games"
teacher="fairy-stockfish?depth=8"
start=$(date +%s)
python -m chess_envs.train.distill --game los_alamos --teacher "$teacher" --multipv 4 --positions "$positions" \
    --workers 2 --init @los_alamos --stage data --run-name "$run" --resume --progress false
echo "data wall time: $(( $(date +%s) - start )) s"
learn=$(date +%s)
python -m chess_envs.train.distill --game los_alamos --teacher "$teacher" --multipv 4 --init @los_alamos \
    --total-steps "$steps" --stage learn --run-name "$run" --resume --progress false
echo "learning wall time: $(( $(date +%s) - learn )) s"
chess-envs export "runs/$run/checkpoints/last.pt" "runs/$run/model.pt"
clock=(--time-control 0.15/move --time-margin 0.05 --games-per-pair "$games" --openings-file @los_alamos --workers 2)
chess-envs tournament --game los_alamos "${clock[@]}" --out "runs/$run-vs-shipped" \
    --agents "alphazero:runs/$run/model.pt" "alphazero:@los_alamos"
chess-envs tournament --game los_alamos "${clock[@]}" --out "runs/$run-vs-fairy-stockfish" \
    --agents "alphazero:runs/$run/model.pt" fairy-stockfish
