#!/usr/bin/env bash
# Four-player Teams against the real obryanlouis/4pchess: build its command line from a checkout at
# CHECKOUT (git clone https://github.com/obryanlouis/4pchess; commit a3c7b61 is the one measured),
# then AGENT plays it at `go depth DEPTH`, GAMES games from the shipped four-player book (partners
# opposite, each side both seat pairs); the score and its Elo interval are in runs/fp-4pchess-d$DEPTH.
#   bash recipes/four_player_vs_4pchess.sh CHECKOUT [DEPTH] [GAMES] [AGENT]
set -euo pipefail
checkout=${1:?the path of a 4pchess checkout}
depth=${2:-2}
games=${3:-200}
agent=${4:-alphazero:@four_player?sims=200}
make -C "$checkout" cli
echo "4pchess $(git -C "$checkout" rev-parse --short HEAD 2>/dev/null || echo '(not a git checkout)')"
chess-envs tournament --game four_player --option mode=teams --games-per-pair "$games" --openings-file @four_player \
    --out "runs/fp-4pchess-d$depth" --workers 2 --quiet --agents "$agent" "4pchess:$checkout/cli?depth=$depth"
