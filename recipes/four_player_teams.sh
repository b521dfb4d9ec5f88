#!/usr/bin/env bash
# The four-player Teams network end to end on this 2-core CPU: obryanlouis/4pchess, built from a checkout at
# CHECKOUT, plays and labels Teams games at depth 4 (2 processes; each game from 2-8 random plies, its move
# the policy target, its score for the mover's team blended with the game's result the value target)
# until POSITIONS positions, a network started from the shipped Free-For-All one learns them for STEPS
# learner steps (a checkpoint every 1,000), and the result plays 4pchess at depth 2 in GAMES games from
# the shipped book at 200 simulations with the material blend it plays with (recipes/four_player_vs_4pchess.sh).
# Rerunning it resumes whichever stage was cut off.
#   bash recipes/four_player_teams.sh CHECKOUT [POSITIONS] [STEPS] [GAMES] [RUN_NAME]
set -euo pipefail
checkout=${1:?the path of a 4pchess checkout}
positions=${2:-110000}
steps=${3:-4000}
games=${4:-200}
run=${5:-four_player_teams}
make -C "$checkout" cli
teacher="4pchess:$(cd "$checkout" && pwd)/cli?depth=4"
start=$(date +%s)
python -m chess_envs.train.distill --game four_player --game-options mode=teams --teacher "$teacher" --multipv 1 \
    --policy-temperature 0 --positions "$positions" --workers 2 --random-plies 8 --fewest-random-plies 2 \
    --sample-plies 0 --init @four_player --stage data --run-name "$run" --resume --progress false
echo "data wall time: $(( $(date +%s) - start )) s"
learn=$(date +%s)
python -m chess_envs.train.distill --game four_player --game-options mode=teams --teacher "$teacher" --multipv 1 \
    --init @four_player --total-steps "$steps" --keep-checkpoints 20 --stage learn --run-name "$run" --resume \
    --progress false
echo "learning wall time: $(( $(date +%s) - learn )) s"
chess-envs export "runs/$run/checkpoints/last.pt" "runs/$run/model.pt"
bash recipes/four_player_vs_4pchess.sh "$checkout" 2 "$games" "alphazero:runs/$run/model.pt?sims=200&material=0.75"
