// Move generation, attack tests and perft of the four-player board: the definitions of the FourBoard
// members that four_player_board.hpp declares for them.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "four_player_board.hpp"

namespace chess_envs::four {

inline const std::vector<int>& FourBoard::legal_moves() {
    if (!moves_ready_) {
        moves_.clear();
        if (!s_.game_over) generate(s_.turn, moves_);
        moves_ready_ = true;
    }
    return moves_;
}

inline bool FourBoard::in_check(int colour) const {
    int king = s_.kings[colour];
    return king >= 0 && s_.live[colour] && attacked(king, tables().hostile[teams_][colour]);
}

inline std::uint64_t FourBoard::perft(int depth) {
    if (depth == 0) return 1;
    std::vector<int> moves = legal_moves();
    if (depth == 1) return moves.size();
    std::uint64_t nodes = 0;
    for (int m : moves) {
        push(m);
        if (!s_.game_over) nodes += perft(depth - 1);
        pop();
    }
    return nodes;
}

inline void FourBoard::generate(int colour, std::vector<int>& moves) const { generate_moves<false>(colour, moves); }

inline bool FourBoard::has_legal_move(int colour) const {
    thread_local std::vector<int> scratch;
    scratch.clear();
    generate_moves<true>(colour, scratch);
    return !scratch.empty();
}

template <bool ANY>
inline void FourBoard::generate_moves(int colour, std::vector<int>& moves) const {
    const Tables& t = tables();
    const auto& sq = s_.squares;
    const bool* hostile = t.hostile[teams_][colour];
    const bool* capturable = t.capturable[teams_][colour];
    int king = s_.kings[colour];
    int checkers = 0;
    bool has_block = false;
    Squares block;
    int pin_square[8];
    Squares pin_line[8];
    int pins = 0;
    if (king >= 0) {
        for (int d = 0; d < 8; ++d) {
            const bool* slider = d < 4 ? t.orthogonal : t.diagonal;
            int first = -1;
            Squares line;
            for (int target : t.rays[king][d]) {
                line.set(target);
                int code = sq[std::size_t(target)];
                if (!code) continue;
                if (first < 0) {
                    if (hostile[code] && slider[code]) {
                        ++checkers;
                        block = line;
                        has_block = true;
                    } else if ((code >> 3) == colour) {
                        first = target;
                        continue;
                    }
                    break;
                }
                if (hostile[code] && slider[code]) {
                    pin_square[pins] = first;
                    pin_line[pins++] = line;
                }
                break;
            }
        }
        for (int target : t.knight[king]) {
            int code = sq[std::size_t(target)];
            if (code && hostile[code] && (code & 7) == KNIGHT) single_checker(target, checkers, block, has_block);
        }
        for (auto [target, pawn] : t.pawn_sources[king])
            if (sq[std::size_t(target)] == pawn && hostile[pawn]) single_checker(target, checkers, block, has_block);
        for (int target : t.king[king]) {
            int code = sq[std::size_t(target)];
            if (code && hostile[code] && (code & 7) == KING) single_checker(target, checkers, block, has_block);
        }
    }
    if (checkers > 1) {
        block = Squares();
        has_block = true;
    } else if (!checkers) {
        has_block = false;
    }
    const bool* promotion_squares = t.promotion[teams_][colour];
    static constexpr int TEAM_PROMOTIONS[4] = {QUEEN, ROOK, BISHOP, KNIGHT};
    static constexpr int FFA_PROMOTIONS[1] = {PROMOTED_QUEEN};
    const int* promotions = teams_ ? TEAM_PROMOTIONS : FFA_PROMOTIONS;
    int promotion_count = teams_ ? 4 : 1;
    int ep_landing_of[SQUARES];  // only read where ep_marked
    Squares ep_marked;
    for (int c = 0; c < 4; ++c)
        if (hostile[c << 3 | PAWN] && ep_target(c)) {
            ep_marked.set(s_.ep_skipped[c]);
            ep_landing_of[s_.ep_skipped[c]] = s_.ep_landing[c];
        }
    auto add_pawn = [&](int from, int to, int flag) {
        if (promotion_squares[to]) {
            for (int i = 0; i < promotion_count; ++i)
                moves.push_back(from | to << 8 | promotions[i] << 16 | flag << 20);
        } else {
            moves.push_back(from | to << 8 | flag << 20);
        }
    };
    for (int from = 0; from < SQUARES; ++from) {
        int code = sq[std::size_t(from)];
        if (!code || (code >> 3) != colour) continue;
        int kind = code & 7;
        if (kind == KING) continue;
        bool restricted = false;
        Squares allowed;
        for (int p = 0; p < pins; ++p)
            if (pin_square[p] == from) {
                allowed = pin_line[p];
                restricted = true;
            }
        if (has_block) {
            allowed = restricted ? (allowed & block) : block;
            restricted = true;
        }
        auto may = [&](int to) { return !restricted || allowed.has(to); };
        auto may_capture = [&](int to, int target) {
            return may(to) || (teams_ && hostile[target] && (target & 7) == KING);
        };
        if (kind == PAWN) {
            int to = t.push[colour][from];
            if (to >= 0 && !sq[std::size_t(to)]) {
                if (may(to)) add_pawn(from, to, 0);
                int two = t.twice[colour][from];
                if (two >= 0 && !sq[std::size_t(two)] && may(two)) moves.push_back(from | two << 8 | FLAG_DOUBLE << 20);
            }
            for (int target_square : t.pawn_captures[colour][from]) {
                int target = sq[std::size_t(target_square)];
                if (ep_marked.has(target_square) && (!target || capturable[target])) {
                    if (ep_is_legal(colour, from, target_square, ep_landing_of[target_square]))
                        add_pawn(from, target_square, FLAG_EP);
                } else if (target && capturable[target] && may_capture(target_square, target)) {
                    add_pawn(from, target_square, 0);
                }
            }
        } else if (kind == KNIGHT) {
            for (int to : t.knight[from]) {
                int target = sq[std::size_t(to)];
                if (!target) {
                    if (may(to)) moves.push_back(from | to << 8);
                } else if (capturable[target] && may_capture(to, target)) {
                    moves.push_back(from | to << 8);
                }
            }
        } else {
            int first = (kind == BISHOP) ? 4 : 0, last = (kind == ROOK) ? 4 : 8;
            for (int d = first; d < last; ++d)
                for (int to : t.rays[from][d]) {
                    int target = sq[std::size_t(to)];
                    if (!target) {
                        if (may(to)) moves.push_back(from | to << 8);
                        continue;
                    }
                    if (capturable[target] && may_capture(to, target)) moves.push_back(from | to << 8);
                    break;
                }
        }
        if constexpr (ANY)
            if (!moves.empty()) return;
    }
    if (king >= 0) king_moves(colour, king, moves, hostile, capturable, checkers == 0);
}

inline void FourBoard::single_checker(int target, int& checkers, Squares& block, bool& has_block) {
    ++checkers;
    block = Squares();
    block.set(target);
    has_block = true;
}

inline bool FourBoard::attacked(int square, const bool* attackers) const {
    const Tables& t = tables();
    const auto& sq = s_.squares;
    for (int target : t.knight[square]) {
        int code = sq[std::size_t(target)];
        if (code && attackers[code] && (code & 7) == KNIGHT) return true;
    }
    for (auto [target, pawn] : t.pawn_sources[square])
        if (sq[std::size_t(target)] == pawn && attackers[pawn]) return true;
    for (int target : t.king[square]) {
        int code = sq[std::size_t(target)];
        if (code && attackers[code] && (code & 7) == KING) return true;
    }
    for (int d = 0; d < 8; ++d) {
        const bool* slider = d < 4 ? t.orthogonal : t.diagonal;
        for (int target : t.rays[square][d]) {
            int code = sq[std::size_t(target)];
            if (code) {
                if (attackers[code] && slider[code]) return true;
                break;
            }
        }
    }
    return false;
}

inline void FourBoard::king_moves(int colour, int king, std::vector<int>& moves, const bool* hostile,
                                  const bool* capturable, bool safe) const {
    auto& sq = const_cast<std::array<std::uint8_t, SQUARES>&>(s_.squares);
    std::uint8_t code = sq[std::size_t(king)];
    sq[std::size_t(king)] = 0;
    for (int to : tables().king[king]) {
        int target = sq[std::size_t(to)];
        if (target && !capturable[target]) continue;
        if (!attacked(to, hostile) || (teams_ && target && hostile[target] && (target & 7) == KING))
            moves.push_back(king | to << 8);
    }
    sq[std::size_t(king)] = code;
    if (!safe) return;
    for (int side = 0; side < 2; ++side) {
        if (!s_.castling[side][colour]) continue;
        const Castle& c = castle_[colour][side];
        if (king != c.king_from || sq[std::size_t(c.rook_from)] != (colour << 3 | ROOK)) continue;
        bool blocked = false;
        for (int i = 0; i < c.between_count; ++i) blocked |= sq[std::size_t(c.between[i])] != 0;
        if (blocked || attacked(c.path[0], hostile) || attacked(c.path[1], hostile)) continue;
        moves.push_back(king | c.king_to << 8 | FLAG_CASTLE << 20);
    }
}

inline bool FourBoard::ep_is_legal(int colour, int origin, int to, int landing) const {
    auto& sq = const_cast<std::array<std::uint8_t, SQUARES>&>(s_.squares);
    if (teams_ && (sq[std::size_t(to)] & 7) == KING) return true;
    std::uint8_t pawn = sq[std::size_t(origin)], target = sq[std::size_t(to)], victim = sq[std::size_t(landing)];
    sq[std::size_t(origin)] = 0;
    sq[std::size_t(to)] = pawn;
    sq[std::size_t(landing)] = 0;
    bool legal = s_.kings[colour] < 0 || !attacked(s_.kings[colour], tables().hostile[teams_][colour]);
    sq[std::size_t(origin)] = pawn;
    sq[std::size_t(to)] = target;
    sq[std::size_t(landing)] = victim;
    return legal;
}

}  // namespace chess_envs::four
