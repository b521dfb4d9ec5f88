#!/usr/bin/env bash
# SPRT on normalised Elo over game pairs (chess_envs/arena/sprt.py), two runs on the shipped Los Alamos
# network, 2 games at a time:
#  1. a close pair: 200 simulations a move against 100, from the shipped balanced book
#     (chess_envs/arena/books/los_alamos.epd), until H0 (nElo 0) or H1 (nElo ELO1) is accepted;
#  2. the network against itself (16 simulations, Gumbel root sampling so games differ, each seat
#     seeded apart), from random 6-ply openings: it should accept H0.
# Each prints its verdict (pairs, games, pentanomial counts, nElo, LLR) and writes runs/sprt-*/sprt.txt.
#   bash recipes/sprt_match.sh [ELO1] [ALPHA]
set -euo pipefail
elo1=${1:-25}
alpha=${2:-0.05}
chess-envs tournament --game los_alamos --out runs/sprt-200-vs-100 --quiet --bootstrap 0 \
    --agents "alphazero:@los_alamos?sims=200" "alphazero:@los_alamos?sims=100" \
    --openings-file @los_alamos --games-per-pair 1000 --sprt 0 "$elo1" "$alpha" "$alpha"
chess-envs tournament --game los_alamos --out runs/sprt-self --quiet --bootstrap 0 \
    --agents "alphazero:@los_alamos?sims=16&gumbel=1&seed=1" "alphazero:@los_alamos?sims=16&gumbel=1&seed=2" \
    --openings-plies 6 --games-per-pair 8000 --sprt 0 "$elo1" "$alpha" "$alpha"
