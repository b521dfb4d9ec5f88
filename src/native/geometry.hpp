// Board geometry for square boards of up to 8x8 squares in one 64-bit word: square = rank * N + file.
#pragma once
#include <array>
#include <cstdint>

namespace chess_envs {

using u64 = std::uint64_t;

inline int lsb(u64 b) { return __builtin_ctzll(b); }
inline int msb(u64 b) { return 63 - __builtin_clzll(b); }
inline int popcount(u64 b) { return __builtin_popcountll(b); }
inline int pop_lsb(u64& b) {
    int s = lsb(b);
    b &= b - 1;
    return s;
}

// splitmix64's finaliser (Zobrist keys, line keys, hashes), and the next number of the generator
// whose state is `state`.
inline u64 mix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
inline u64 splitmix64(u64& state) { return mix64(state += 0x9E3779B97F4A7C15ULL); }

// Directions N, NE, E, SE, S, SW, W, NW as (file step, rank step): the order of the action layout (docs/chess.md).
constexpr int DIR_FILE[8] = {0, 1, 1, 1, 0, -1, -1, -1};
constexpr int DIR_RANK[8] = {1, 1, 0, -1, -1, -1, 0, 1};
constexpr int KNIGHT_FILE[8] = {1, 2, 2, 1, -1, -2, -2, -1};
constexpr int KNIGHT_RANK[8] = {2, 1, -1, -2, -2, -1, 1, 2};

// Precomputed attack tables for an N x N board. A slider's attacks along a ray stop at the first
// blocker, found with the lowest set bit for rays towards higher squares and the highest otherwise.
template <int N>
struct Geometry {
    static constexpr int SQUARES = N * N;
    static constexpr u64 ALL = SQUARES == 64 ? ~0ULL : ((1ULL << SQUARES) - 1);

    u64 knight[SQUARES]{};
    u64 king[SQUARES]{};
    u64 pawn_attacks[2][SQUARES]{};
    u64 ray[8][SQUARES]{};
    u64 rook_empty[SQUARES]{};
    u64 bishop_empty[SQUARES]{};
    u64 between[SQUARES][SQUARES]{};  // squares strictly between two aligned squares
    u64 line[SQUARES][SQUARES]{};     // the whole line through two aligned squares
    u64 rank_mask[N]{};

    static constexpr bool on_board(int f, int r) { return f >= 0 && f < N && r >= 0 && r < N; }
    static constexpr u64 bit(int s) { return 1ULL << s; }

    Geometry() {
        for (int r = 0; r < N; ++r)
            for (int f = 0; f < N; ++f) rank_mask[r] |= bit(r * N + f);
        for (int s = 0; s < SQUARES; ++s) {
            int f = s % N, r = s / N;
            for (int k = 0; k < 8; ++k) {
                if (on_board(f + KNIGHT_FILE[k], r + KNIGHT_RANK[k]))
                    knight[s] |= bit((r + KNIGHT_RANK[k]) * N + f + KNIGHT_FILE[k]);
                if (on_board(f + DIR_FILE[k], r + DIR_RANK[k])) king[s] |= bit((r + DIR_RANK[k]) * N + f + DIR_FILE[k]);
                for (int d = 1; on_board(f + DIR_FILE[k] * d, r + DIR_RANK[k] * d); ++d)
                    ray[k][s] |= bit((r + DIR_RANK[k] * d) * N + f + DIR_FILE[k] * d);
            }
            for (int c = 0; c < 2; ++c) {
                int step = c == 0 ? 1 : -1;
                for (int df : {-1, 1})
                    if (on_board(f + df, r + step)) pawn_attacks[c][s] |= bit((r + step) * N + f + df);
            }
            rook_empty[s] = ray[0][s] | ray[2][s] | ray[4][s] | ray[6][s];
            bishop_empty[s] = ray[1][s] | ray[3][s] | ray[5][s] | ray[7][s];
        }
        for (int a = 0; a < SQUARES; ++a)
            for (int k = 0; k < 8; ++k) {
                u64 walked = 0;
                for (u64 rest = ray[k][a]; rest;) {
                    int b = (k == 0 || k == 1 || k == 2 || k == 7) ? lsb(rest) : msb(rest);
                    rest &= ~bit(b);
                    between[a][b] = walked;
                    line[a][b] = ray[k][a] | ray[(k + 4) % 8][a] | bit(a);
                    walked |= bit(b);
                }
            }
    }

    // Directions 0 (N), 1 (NE), 2 (E) and 7 (NW) go towards higher squares.
    template <int D>
    u64 slide(int s, u64 occupied) const {
        u64 attacks = ray[D][s];
        u64 blockers = attacks & occupied;
        if (blockers) {
            int b = (D == 0 || D == 1 || D == 2 || D == 7) ? lsb(blockers) : msb(blockers);
            attacks ^= ray[D][b];
        }
        return attacks;
    }
    u64 rook(int s, u64 occupied) const {
        return slide<0>(s, occupied) | slide<2>(s, occupied) | slide<4>(s, occupied) | slide<6>(s, occupied);
    }
    u64 bishop(int s, u64 occupied) const {
        return slide<1>(s, occupied) | slide<3>(s, occupied) | slide<5>(s, occupied) | slide<7>(s, occupied);
    }
};

template <int N>
const Geometry<N>& geometry() {
    static const Geometry<N> g;
    return g;
}

}  // namespace chess_envs
