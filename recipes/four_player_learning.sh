#!/usr/bin/env bash
# The four-player network end to end on this 2-core CPU: the four_player preset trains for MINUTES
# (default 160, the shipped network's schedule: its cosine learning rate over those minutes, a replay
# window of 400,000 positions, about 9.6 GB; self-play games played by the material search teacher,
# learned by a 32x4 network; rerunning the script after a stop resumes the training where it was),
# then the network is rated at 200 simulations per move in Free-For-All against greedy and random
# (each seated a b a b, every seat rotation, 100 games per pair), then as the shipped agent plays it
# (material=0.75) against greedy in Free-For-All and in Teams (200 games each, the shipped book),
# and its value head is checked against the final standings of fresh self-play games.
#   bash recipes/four_player_learning.sh [MINUTES] [RUN_NAME]
set -euo pipefail
minutes=${1:-160}
run=${2:-four_player}
start=$(date +%s)
python -m chess_envs.train.alphazero --preset four_player --run-name "$run" --minutes "$minutes" --total-steps 30000 \
    --replay-size 400000 --eval-every 0 --keep-checkpoints 1 --progress false --resume
echo "training wall time: $(( $(date +%s) - start )) s"
chess-envs export "runs/$run/checkpoints/last.pt" "runs/$run/model.pt"
net="alphazero:runs/$run/model.pt?sims=200"
agent="$net&material=0.75"  # as the shipped network plays: the material evaluator's values blended in
chess-envs tournament --game four_player --games-per-pair 100 --gauntlet --out "runs/$run-ffa" --quiet \
    --agents "$net" greedy random
chess-envs tournament --game four_player --games-per-pair 200 --openings-file @four_player \
    --out "runs/$run-ffa-blend" --quiet --agents "$agent" greedy
chess-envs tournament --game four_player --option mode=teams --games-per-pair 200 --openings-file @four_player \
    --out "runs/$run-teams" --quiet --agents "$agent" greedy
python recipes/value_calibration.py --checkpoint "runs/$run/model.pt" --games 32 --out "runs/$run-calibration.png"
