#!/usr/bin/env bash
# DQN learning benchmark on this 2-core CPU: 30 minutes of masked DQN on Los Alamos against a
# random opponent, then 200 games each against random and greedy (seats alternating).
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${RUN:-dqn-la}
python -m chess_envs.train.dqn --preset los_alamos --minutes 30 --run-name "$RUN" --resume --progress false
chess-envs tournament --game los_alamos --games-per-pair 200 --out "runs/$RUN-eval" \
    --agents random greedy "dqn:runs/$RUN/checkpoints/last.pt"
