// Four-player chess (chess.com rules, Free-For-All and Teams) on a 14x14 mailbox: move generation,
// make/unmake with the end-of-move processing (points, eliminations, dead pieces), and perft. A
// faithful port of chess_envs/four_player/board.py, which stays the reference it is tested against.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace chess_envs::four {

constexpr int SIZE = 14, SQUARES = SIZE * SIZE;
constexpr int DEAD = 4;
enum : int { PAWN = 1, KNIGHT = 2, BISHOP = 3, ROOK = 4, QUEEN = 5, KING = 6, PROMOTED_QUEEN = 7 };
enum : int { FLAG_DOUBLE = 1, FLAG_EP = 2, FLAG_CASTLE = 3 };
constexpr int CAPTURE_POINTS[8] = {0, 1, 3, 5, 5, 9, 20, 1};
constexpr int CHECKMATE_POINTS = 20, STALEMATE_POINTS = 20;
constexpr int DOUBLE_CHECK_POINTS[2] = {1, 5}, TRIPLE_CHECK_POINTS[2] = {5, 20};

inline bool playable(int row, int col) {
    if (row < 0 || row >= SIZE || col < 0 || col >= SIZE) return false;
    return !((row < 3 || row > 10) && (col < 3 || col > 10));
}

// A set of squares of the 14x14 board.
struct Squares {
    std::array<std::uint64_t, 4> words{};
    void set(int s) { words[std::size_t(s >> 6)] |= 1ULL << (s & 63); }
    bool has(int s) const { return (words[std::size_t(s >> 6)] >> (s & 63)) & 1; }
    Squares operator&(const Squares& o) const {
        Squares r;
        for (std::size_t i = 0; i < 4; ++i) r.words[i] = words[i] & o.words[i];
        return r;
    }
};

// A short list of squares stored inline (no allocation), iterated like a vector.
template <class T, int CAPACITY>
struct InlineList {
    T items[CAPACITY];
    int count = 0;
    void push_back(T item) { items[count++] = item; }
    const T* begin() const { return items; }
    const T* end() const { return items + count; }
};

struct Tables {
    // Directions N E S W, then NE SE SW NW, as (row step, col step); N points to rank 14.
    InlineList<int, 13> rays[SQUARES][8];
    InlineList<int, 8> knight[SQUARES], king[SQUARES];
    int push[4][SQUARES], twice[4][SQUARES];
    InlineList<int, 2> pawn_captures[4][SQUARES];
    InlineList<std::pair<int, int>, 8> pawn_sources[SQUARES];  // (square, pawn code) of pawns attacking a square
    bool promotion[2][4][SQUARES];                             // [teams][colour][square]
    bool hostile[2][4][64], capturable[2][4][64], own[4][64];
    bool orthogonal[64], diagonal[64];
    int back_ranks[4][8];

    Tables() {
        const int dr[8] = {-1, 0, 1, 0, -1, 1, 1, -1}, dc[8] = {0, 1, 0, -1, 1, 1, -1, -1};
        const int kr[8] = {-2, -1, 1, 2, 2, 1, -1, -2}, kc[8] = {1, 2, 2, 1, -1, -2, -2, -1};
        const int forward[4][2] = {{-1, 0}, {0, 1}, {1, 0}, {0, -1}};
        const int capture_steps[4][2][2] = {{{-1, -1}, {-1, 1}}, {{-1, 1}, {1, 1}}, {{1, -1}, {1, 1}}, {{-1, -1}, {1, -1}}};
        const int start_line[4][2] = {{0, 12}, {1, 1}, {0, 1}, {1, 12}};
        const int promotion_line[2][4][2] = {{{0, 6}, {1, 7}, {0, 7}, {1, 6}}, {{0, 3}, {1, 10}, {0, 10}, {1, 3}}};
        auto on_line = [](int s, const int line[2]) { return (line[0] == 0 ? s / SIZE : s % SIZE) == line[1]; };
        for (int s = 0; s < SQUARES; ++s) {
            int row = s / SIZE, col = s % SIZE;
            for (int d = 0; d < 8; ++d) {
                for (int r = row + dr[d], c = col + dc[d]; playable(r, c); r += dr[d], c += dc[d]) rays[s][d].push_back(r * SIZE + c);
                if (playable(row + kr[d], col + kc[d])) knight[s].push_back((row + kr[d]) * SIZE + col + kc[d]);
                if (playable(row + dr[d], col + dc[d])) king[s].push_back((row + dr[d]) * SIZE + col + dc[d]);
            }
            for (int colour = 0; colour < 4; ++colour) {
                int r = row + forward[colour][0], c = col + forward[colour][1];
                push[colour][s] = playable(r, c) ? r * SIZE + c : -1;
                int r2 = row + 2 * forward[colour][0], c2 = col + 2 * forward[colour][1];
                twice[colour][s] = on_line(s, start_line[colour]) && playable(r2, c2) ? r2 * SIZE + c2 : -1;
                for (auto& step : capture_steps[colour])
                    if (playable(row + step[0], col + step[1])) pawn_captures[colour][s].push_back((row + step[0]) * SIZE + col + step[1]);
                for (int teams = 0; teams < 2; ++teams)
                    promotion[teams][colour][s] = playable(row, col) && on_line(s, promotion_line[teams][colour]);
            }
        }
        for (int s = 0; s < SQUARES; ++s) {
            int row = s / SIZE, col = s % SIZE;
            for (int colour = 0; colour < 4; ++colour)
                for (auto& step : capture_steps[colour])
                    if (playable(row - step[0], col - step[1]))
                        pawn_sources[s].push_back({(row - step[0]) * SIZE + col - step[1], colour << 3 | PAWN});
        }
        for (int teams = 0; teams < 2; ++teams)
            for (int colour = 0; colour < 4; ++colour)
                for (int code = 0; code < 64; ++code) {
                    int c = code >> 3;
                    bool enemy = teams ? (c == (colour + 1) % 4 || c == (colour + 3) % 4) : (c < 4 && c != colour);
                    hostile[teams][colour][code] = enemy && (code & 7) != 0;
                    capturable[teams][colour][code] = (code & 7) != 0 && (enemy || c == DEAD);
                }
        for (int colour = 0; colour < 4; ++colour)
            for (int code = 0; code < 64; ++code) own[colour][code] = (code >> 3) == colour && (code & 7) != 0;
        for (int code = 0; code < 64; ++code) {
            int t = code & 7;
            orthogonal[code] = t == ROOK || t == QUEEN || t == PROMOTED_QUEEN;
            diagonal[code] = t == BISHOP || t == QUEEN || t == PROMOTED_QUEEN;
        }
        for (int i = 0; i < 8; ++i) {
            back_ranks[0][i] = 13 * SIZE + 3 + i;        // Red: d1..k1
            back_ranks[1][i] = (10 - i) * SIZE;          // Blue: a4..a11
            back_ranks[2][i] = 10 - i;                   // Yellow: k14..d14
            back_ranks[3][i] = (3 + i) * SIZE + 13;      // Green: n11..n4
        }
    }
};

inline const Tables& tables() {
    static const Tables* t = new Tables();  // large: on the heap, built once
    return *t;
}

struct Castle {
    int king_from = -1, king_to = -1, rook_from = -1, rook_to = -1;
    int between[6]{};
    int between_count = 0;
    int path[2]{};
};

// Everything a move changes: copied whole for unmake (a few hundred bytes).
struct FourState {
    std::array<std::uint8_t, SQUARES> squares{};
    int turn = 0;
    bool live[4]{};
    bool castling[2][4]{};  // [kingside / queenside][colour]
    int points[4]{};
    int halfmove_clock = 0;
    int kings[4]{-1, -1, -1, -1};
    int ep_skipped[4]{-1, -1, -1, -1}, ep_landing[4]{-1, -1, -1, -1};
    bool game_over = false;
    int winner_team = -1;
};

class FourBoard {
  public:
    FourBoard(const FourState& state, bool teams) : s_(state), teams_(teams) {
        for (int c = 0; c < 4; ++c) {
            s_.kings[c] = -1;
        }
        for (int sq = 0; sq < SQUARES; ++sq) {
            int code = s_.squares[std::size_t(sq)];
            if (code && (code >> 3) < 4 && (code & 7) == KING) s_.kings[code >> 3] = sq;
        }
        castling_geometry();
        if (!teams_) s_.game_over = count_live() <= 1;
    }

    const FourState& state() const { return s_; }
    bool teams() const { return teams_; }

    // FFA, a position just loaded: take out every player to move who has no legal move, as play
    // would have before (RULES.md section 8): stalemated players score 20; mated ones score nothing.
    void settle() {
        if (teams_ || !stack_.empty()) return;
        while (!s_.game_over) {
            if (has_legal_move(s_.turn)) break;
            int stuck = s_.turn;
            bool stalemated = !in_check(stuck);
            eliminate(stuck);
            if (stalemated) s_.points[stuck] += STALEMATE_POINTS;
            if (count_live() <= 1) {
                s_.game_over = true;
            } else {
                for (int c = stuck + 1; c < stuck + 4; ++c)
                    if (s_.live[c % 4]) {
                        s_.turn = c % 4;
                        break;
                    }
            }
        }
        moves_ready_ = false;
    }

    const std::vector<int>& legal_moves() {
        if (!moves_ready_) {
            moves_.clear();
            if (!s_.game_over) generate(s_.turn, moves_);
            moves_ready_ = true;
        }
        return moves_;
    }

    bool in_check(int colour) const {
        int king = s_.kings[colour];
        return king >= 0 && s_.live[colour] && attacked(king, tables().hostile[teams_][colour]);
    }

    void push(int move) {
        stack_.push_back(s_);
        auto& sq = s_.squares;
        int mover = s_.turn;
        int origin = move & 255, to = (move >> 8) & 255, promotion = (move >> 16) & 15, flag = move >> 20;
        int piece = sq[std::size_t(origin)], captured = sq[std::size_t(to)];
        int ep_square = -1, ep_victim = 0;
        if (flag == FLAG_EP)
            for (int c = 0; c < 4; ++c)
                if (ep_target(c) && s_.ep_skipped[c] == to) {
                    ep_square = s_.ep_landing[c];
                    ep_victim = sq[std::size_t(ep_square)];
                    break;
                }
        sq[std::size_t(origin)] = 0;
        if (captured) forget_king(captured);
        if (ep_square >= 0) {
            sq[std::size_t(ep_square)] = 0;
            forget_king(ep_victim);
        }
        sq[std::size_t(to)] = std::uint8_t(promotion ? (mover << 3 | promotion) : piece);
        int kind = piece & 7;
        if (kind == KING) {
            s_.kings[mover] = to;
            s_.castling[0][mover] = s_.castling[1][mover] = false;
            if (flag == FLAG_CASTLE) {
                const Castle& c = castle_[mover][to == castle_[mover][0].king_to ? 0 : 1];
                sq[std::size_t(c.rook_from)] = 0;
                sq[std::size_t(c.rook_to)] = std::uint8_t(mover << 3 | ROOK);
            }
        }
        for (int s : {origin, to})
            if (rook_home_colour_[s] >= 0) s_.castling[rook_home_side_[s]][rook_home_colour_[s]] = false;
        if (flag == FLAG_DOUBLE) {
            s_.ep_skipped[mover] = (origin + to) / 2;
            s_.ep_landing[mover] = to;
        } else {
            s_.ep_skipped[mover] = s_.ep_landing[mover] = -1;
        }
        s_.halfmove_clock = (captured || ep_victim || kind == PAWN) ? 0 : s_.halfmove_clock + 1;
        moves_ready_ = false;
        if (teams_) {
            if (live_king(captured) || live_king(ep_victim)) {
                s_.game_over = true;
                s_.winner_team = mover % 2;
            }
        } else {
            end_of_move_ffa(mover, piece, captured, ep_victim);
        }
        advance_turn(mover);
    }

    void pop() {
        if (stack_.empty()) throw std::out_of_range("pop: no move to take back");
        s_ = stack_.back();
        stack_.pop_back();
        moves_ready_ = false;
    }

    std::size_t plies() const { return stack_.size(); }

    // Leaf nodes of the legal-move tree, as the reference data counts them: a move that ends the
    // game is a leaf at its own depth; the last ply is counted from the move list.
    std::uint64_t perft(int depth) {
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

    // The legal moves of `colour` as if it were to move.
    void generate(int colour, std::vector<int>& moves) const { generate_moves<false>(colour, moves); }

    // Whether `colour` has a legal move: the generator stopped at the first piece that has one
    // (what the FFA end-of-move rules ask of every player, far more often than the moves themselves).
    bool has_legal_move(int colour) const {
        thread_local std::vector<int> scratch;
        scratch.clear();
        generate_moves<true>(colour, scratch);
        return !scratch.empty();
    }

  private:
    template <bool ANY>
    void generate_moves(int colour, std::vector<int>& moves) const {
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
                for (int i = 0; i < promotion_count; ++i) moves.push_back(from | to << 8 | promotions[i] << 16 | flag << 20);
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

    static void single_checker(int target, int& checkers, Squares& block, bool& has_block) {
        ++checkers;
        block = Squares();
        block.set(target);
        has_block = true;
    }
    static bool live_king(int code) { return code && (code & 7) == KING && (code >> 3) < DEAD; }

    int count_live() const { return s_.live[0] + s_.live[1] + s_.live[2] + s_.live[3]; }

    bool ep_target(int c) const {
        return s_.ep_landing[c] >= 0 && s_.squares[std::size_t(s_.ep_landing[c])] == (c << 3 | PAWN);
    }

    bool attacked(int square, const bool* attackers) const {
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

    void king_moves(int colour, int king, std::vector<int>& moves, const bool* hostile, const bool* capturable,
                    bool safe) const {
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

    bool ep_is_legal(int colour, int origin, int to, int landing) const {
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

    // A captured king leaves its player without a king square.
    void forget_king(int code) {
        int colour = code >> 3;
        if (colour < 4 && (code & 7) == KING) s_.kings[colour] = -1;
    }

    void end_of_move_ffa(int mover, int piece, int captured, int ep_victim) {
        const Tables& t = tables();
        for (int victim : {captured, ep_victim})
            if (victim && (victim >> 3) < 4) {
                s_.points[mover] += CAPTURE_POINTS[victim & 7];
                if ((victim & 7) == KING) eliminate(victim >> 3);
            }
        if (count_live() <= 1) return;
        // Only a king in check at all can be checked by the mover: one attack test per king, mostly.
        bool checks[4]{};
        int checked = 0;
        for (int c = 0; c < 4; ++c) {
            checks[c] = c != mover && in_check(c);
            if (checks[c] && attacked(s_.kings[c], t.own[mover])) ++checked;
        }
        if (checked >= 2) {
            int queen = (piece & 7) == QUEEN || (piece & 7) == PROMOTED_QUEEN ? 0 : 1;
            s_.points[mover] += (checked == 2 ? DOUBLE_CHECK_POINTS : TRIPLE_CHECK_POINTS)[queen];
        }
        bool eliminated = false;
        for (int step = 1; step <= 3; ++step) {
            int c = (mover + step) % 4;
            // A mated player's pieces die and give no more checks: test again after an elimination.
            if (!s_.live[c] || !checks[c] || (eliminated && !in_check(c))) continue;
            if (!has_legal_move(c)) {
                eliminated = true;
                eliminate(c);
                s_.points[mover] += CHECKMATE_POINTS;
                if (count_live() <= 1) return;
            }
        }
    }

    void eliminate(int colour) {
        auto& sq = s_.squares;
        for (auto& code : sq)
            if (code && (code >> 3) == colour) code = std::uint8_t(DEAD << 3 | (code & 7));
        s_.kings[colour] = -1;
        s_.live[colour] = false;
        s_.ep_skipped[colour] = s_.ep_landing[colour] = -1;
        s_.castling[0][colour] = s_.castling[1][colour] = false;
    }

    void advance_turn(int mover) {
        if (s_.game_over || count_live() <= 1) {
            s_.game_over = true;
            moves_.clear();
            moves_ready_ = true;
            return;
        }
        int next = mover;
        while (true) {
            next = (next + 1) % 4;
            if (!s_.live[next]) continue;
            s_.turn = next;
            if (teams_ || has_legal_move(next)) return;  // its moves are generated when asked for
            eliminate(next);
            s_.points[next] += STALEMATE_POINTS;
            if (count_live() <= 1) {
                s_.game_over = true;
                moves_.clear();
                moves_ready_ = true;
                return;
            }
        }
    }

    // Castling squares per colour from where its king starts (modern or classic set-up).
    void castling_geometry() {
        const Tables& t = tables();
        for (int& c : rook_home_colour_) c = -1;
        for (int& c : rook_home_side_) c = 0;
        for (int colour = 0; colour < 4; ++colour) {
            const int* rank = t.back_ranks[colour];
            int index = -1;
            for (int i = 3; i <= 4; ++i)
                if (rank[i] == s_.kings[colour]) index = i;
            if (index < 0) index = (colour == 0 || colour == 2) ? 4 : 3;
            int near = index == 4 ? 7 : 0, far = index == 4 ? 0 : 7;
            int step_near = index == 4 ? 1 : -1, step_far = -step_near;
            int rooks[2] = {near, far}, steps[2] = {step_near, step_far};
            for (int side = 0; side < 2; ++side) {
                Castle& c = castle_[colour][side];
                c.king_from = rank[index];
                c.king_to = rank[index + 2 * steps[side]];
                c.rook_from = rank[rooks[side]];
                c.rook_to = rank[index + steps[side]];
                c.between_count = 0;
                for (int i = std::min(index, rooks[side]) + 1; i < std::max(index, rooks[side]); ++i) c.between[c.between_count++] = rank[i];
                c.path[0] = c.rook_to;
                c.path[1] = c.king_to;
                rook_home_colour_[c.rook_from] = colour;
                rook_home_side_[c.rook_from] = side;
            }
        }
    }

    FourState s_;
    bool teams_;
    Castle castle_[4][2];
    int rook_home_colour_[SQUARES];
    int rook_home_side_[SQUARES];
    std::vector<FourState> stack_;
    std::vector<int> moves_;
    bool moves_ready_ = false;
};

}  // namespace chess_envs::four

#include <cstring>
#include <memory>

#include "game.hpp"

namespace chess_envs::four {

// The action of each (colour, from, to, underpromotion index) — index 0 none (queen promotions
// included), 1 rook, 2 knight, 3 bishop — built in Python from the four-player encoding.
struct FourActionTable {
    std::vector<std::int32_t> table;  // [colour][from][to][4]
    int action(int colour, int move) const {
        int promotion = (move >> 16) & 15;
        int under = promotion == ROOK ? 1 : promotion == KNIGHT ? 2 : promotion == BISHOP ? 3 : 0;
        return table[((std::size_t(colour) * SQUARES + std::size_t(move & 255)) * SQUARES + std::size_t((move >> 8) & 255)) * 4 +
                     std::size_t(under)];
    }
};

// A four-player game: the native board plus its history (repetitions by Zobrist key), the game
// end of RULES.md section 9, legal actions in the mover's frame, and the observation planes.
class FourGame {
  public:
    static constexpr int PLANES_PER_STEP = 25, META_PLANES = 23;

    FourGame(const FourBoard& board, int history, bool claim_win, std::shared_ptr<const FourActionTable> table)
        : start_(board), board_(board), history_(history), claim_win_(claim_win), table_(std::move(table)) {
        if (history < 1 || history > 32) throw std::invalid_argument("history must be in [1, 32]");
        if (!table_) throw std::invalid_argument("the action table must not be None");
        if (board.plies()) throw std::invalid_argument("a four-player game starts from a board with no moves played");
        const FourState& s = board.state();
        // FFA play never leaves a player without a move to move (the end-of-move rules take them out):
        // a loaded position must be settled first, or the mover would have no move and no game end.
        if (!board.teams() && !s.game_over && !board_.has_legal_move(s.turn))
            throw std::invalid_argument("the FFA board is not settled: the player to move has no legal move (call settle() first)");
        record();
    }

    // Back to the game's first position (the vector envs' reset).
    void restart() {
        board_ = start_;
        played_.clear();
        keys_.clear();
        lines_.clear();
        counts_.clear();
        frames_.clear();
        record();
    }

    // What the vector envs need (see Game): the mover, a seat's value of the finished game, moves by index.
    static constexpr int SQUARES_PER_PLANE = SQUARES;
    int side() const { return board_.state().turn; }
    int num_actions() const { return SQUARES * 109; }
    float value(int seat) {
        int end = termination();
        if (!end) return 0.0f;
        if (board_.teams()) {
            if (end != KING_CAPTURE && end != CHECKMATE) return 0.0f;
            int winner = end == KING_CAPTURE ? winner_team() : 1 - side() % 2;
            return seat % 2 == winner ? 1.0f : -1.0f;
        }
        return standings(final_points_)[std::size_t(seat)];
    }
    int num_moves() { return int(legal().size()); }
    void play_index(int i) {
        played_.push_back(legal()[std::size_t(i)]);
        board_.push(played_.back());
        record();
    }

    // The moves played since the first position, oldest first.
    const std::vector<int>& moves_played() const { return played_; }
    int action_of(int i) { return actions()[std::size_t(i)]; }

    // Returns from final points: places 1..4 are worth 1, 1/3, -1/3, -1; ties share the mean.
    static std::array<float, 4> standings(const std::array<int, 4>& points) {
        static constexpr double PLACE[4] = {1.0, 1.0 / 3.0, -1.0 / 3.0, -1.0};
        std::array<float, 4> out{};
        for (int c = 0; c < 4; ++c) {
            int above = 0, tied = 0;
            for (int o = 0; o < 4; ++o) {
                above += points[std::size_t(o)] > points[std::size_t(c)];
                tied += points[std::size_t(o)] == points[std::size_t(c)];
            }
            double sum = 0;
            for (int p = above; p < above + tied; ++p) sum += PLACE[p];
            out[std::size_t(c)] = float(sum / tied);
        }
        return out;
    }

    const FourBoard& board() const { return board_; }
    int num_planes() const { return PLANES_PER_STEP * history_ + META_PLANES; }
    int plies() const { return int(keys_.size()) - 1; }
    int repetitions() const { return counts_.back(); }
    // The key of the game's line (every position since its start): a search tree's root identity.
    u64 key() const { return lines_.back(); }
    SearchHolds& holds() { return holds_; }
    const std::array<int, 4>& final_points() { termination(); return final_points_; }

    const std::vector<int>& legal() {
        if (!actions_ready_) {
            const std::vector<int>& moves = board_.legal_moves();
            actions_.resize(moves.size());
            for (std::size_t i = 0; i < moves.size(); ++i) {
                actions_[i] = table_->action(board_.state().turn, moves[i]);
                if (actions_[i] < 0) throw std::logic_error("the four-player action table has no action for a legal move");
            }
            actions_ready_ = true;
        }
        return board_.legal_moves();
    }
    const std::vector<int>& actions() { legal(); return actions_; }

    int legal_actions(std::int64_t* out) {
        if (termination()) return 0;
        const std::vector<int>& a = actions();
        for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i];
        return int(a.size());
    }
    int num_legal() { return termination() ? 0 : int(actions().size()); }

    // legal_actions() with each action's move beside it (the search plays moves without a lookup).
    int legal_with_moves(std::int64_t* out, std::uint32_t* moves) {
        if (termination()) return 0;
        const std::vector<int>& a = actions();
        const std::vector<int>& m = legal();
        for (std::size_t i = 0; i < a.size(); ++i) {
            out[i] = a[i];
            moves[i] = std::uint32_t(m[i]);
        }
        return int(a.size());
    }
    void play_move(std::uint32_t move) {
        played_.push_back(int(move));
        board_.push(int(move));
        record();
    }

    void legal_mask(std::uint8_t* out) {
        std::memset(out, 0, std::size_t(SQUARES) * 109);
        if (termination()) return;
        for (int a : actions()) out[a] = 1;
    }

    bool apply(int action) {
        const std::vector<int>& moves = legal();
        for (std::size_t i = 0; i < moves.size(); ++i)
            if (actions_[i] == action) {
                played_.push_back(moves[i]);
                board_.push(moves[i]);
                record();
                return true;
            }
        return false;
    }

    void undo() {
        if (keys_.size() < 2) throw std::out_of_range("undo: no move to take back");
        board_.pop();
        played_.pop_back();
        keys_.pop_back();
        lines_.pop_back();
        counts_.pop_back();
        frames_.pop_back();
        actions_ready_ = false;
        termination_ = -1;
    }

    // The game end (a Termination code), cached per position; final_points() holds the points
    // with the end-of-game awards once it is not ONGOING.
    int termination() {
        if (termination_ < 0) termination_ = compute_termination();
        return termination_;
    }
    int winner_team() const { return board_.state().winner_team; }

    template <class T>
    void observation(int player, T* out) const {
        const FourState& s = board_.state();
        const int plane = SQUARES;
        std::fill(out, out + std::size_t(PLANES_PER_STEP) * history_ * plane, T(0));
        const T one = plane_value<T>(1.0f);
        int positions = int(frames_.size());
        int steps = std::min(history_, positions);
        const std::uint8_t* plane_of = plane_table()[player];
        const int* from_frame = frames_table()[player];
        for (int t = 0; t < steps; ++t) {
            const auto& frame = frames_[std::size_t(positions - 1 - t)];
            T* base = out + std::size_t(t) * PLANES_PER_STEP * plane;
            T sink;  // empty squares write here: a select instead of a branch the occupancy would mispredict
            for (int rel = 0; rel < SQUARES; ++rel) {
                int p = plane_of[frame[std::size_t(from_frame[rel])]];
                *(p < PLANES_PER_STEP ? base + p * plane + rel : &sink) = one;
            }
        }
        float meta[META_PLANES] = {};
        meta[player] = 1.0f;
        meta[4] = float(std::min(plies(), 1024)) / 1024.0f;
        for (int seat = 0; seat < 4; ++seat) {
            int colour = (player + seat) % 4;
            meta[5 + 2 * seat] = s.castling[0][colour] ? 1.0f : 0.0f;
            meta[6 + 2 * seat] = s.castling[1][colour] ? 1.0f : 0.0f;
            meta[15 + seat] = float(std::min(std::max(s.points[colour], 0), 200)) / 200.0f;
            meta[19 + seat] = s.live[colour] ? 0.0f : 1.0f;
        }
        meta[13] = float(std::min(s.halfmove_clock, 100)) / 100.0f;
        meta[14] = float(std::min(counts_.back() - 1, 2)) / 2.0f;
        T* p = out + std::size_t(PLANES_PER_STEP) * history_ * plane;
        for (int m = 0; m < META_PLANES; ++m) std::fill(p + m * plane, p + (m + 1) * plane, plane_value<T>(meta[m]));
    }

  private:
    using Frame = std::array<std::uint8_t, SQUARES>;

    // plane_table()[player][code]: the history plane of a square code from player's seat, 25 for none.
    static const std::uint8_t (*plane_table())[64] {
        static std::uint8_t table[4][64];
        static bool ready = [] {
            const int type_plane[8] = {-1, 0, 1, 2, 3, 4, 5, 4};
            for (int player = 0; player < 4; ++player)
                for (int code = 0; code < 64; ++code) {
                    int colour = code >> 3, kind = code & 7;
                    table[player][code] = std::uint8_t(
                        !kind || colour > DEAD ? 25 : colour == DEAD ? 24 : ((colour - player + 4) % 4) * 6 + type_plane[kind]);
                }
            return true;
        }();
        (void)ready;
        return table;
    }

    // frames_table()[player][frame square]: the absolute square seen there by player.
    static const int (*frames_table())[SQUARES] {
        static int table[4][SQUARES];
        static bool ready = [] {
            for (int sq = 0; sq < SQUARES; ++sq) {
                int row = sq / SIZE, col = sq % SIZE, last = SIZE - 1;
                int rel[4][2] = {{row, col}, {last - col, row}, {last - row, last - col}, {col, last - row}};
                for (int c = 0; c < 4; ++c) table[c][rel[c][0] * SIZE + rel[c][1]] = sq;
            }
            return true;
        }();
        (void)ready;
        return table;
    }

    static u64 mix(u64 z) {  // splitmix64's finaliser
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    static constexpr int WORDS = (SQUARES + 7) / 8;

    // Random keys: one per 8-square word of the board, then the extras of position_key().
    static const std::array<u64, WORDS + 64>& zobrist_keys() {
        static std::array<u64, WORDS + 64> keys = [] {
            std::array<u64, WORDS + 64> k{};
            u64 state = 0x4F1BBCDCBFA53E0BULL;
            for (u64& key : k) key = mix(state += 0x9E3779B97F4A7C15ULL);
            return k;
        }();
        return keys;
    }

    // The repetition key: squares, side to move, castling rights, live en passant targets, live
    // players. The board is hashed 8 squares per word (independent multiplies, no table lookups
    // per square): it is computed after every move the search plays.
    u64 position_key() const {
        const FourState& s = board_.state();
        const auto& z = zobrist_keys();
        u64 words[WORDS] = {};
        std::memcpy(words, s.squares.data(), SQUARES);
        u64 key = 0;
        for (int w = 0; w < WORDS; ++w) key ^= mix(words[w] ^ z[std::size_t(w)]);
        const u64* extra = z.data() + WORDS;
        key ^= extra[s.turn];
        for (int c = 0; c < 4; ++c) {
            if (s.castling[0][c]) key ^= extra[4 + c];
            if (s.castling[1][c]) key ^= extra[8 + c];
            if (!s.live[c]) key ^= extra[12 + c];
            bool live_ep = s.ep_landing[c] >= 0 && s.squares[std::size_t(s.ep_landing[c])] == (c << 3 | PAWN);
            if (live_ep) key ^= extra[16 + c] * u64(s.ep_skipped[c] + 1) ^ extra[20 + c] * u64(s.ep_landing[c] + 1);
        }
        return key;
    }

    void record() {
        u64 key = position_key();
        int count = 1, n = int(keys_.size());
        int back = std::min(board_.state().halfmove_clock, n);
        for (int i = 1; i <= back; ++i)
            if (keys_[std::size_t(n - i)] == key) ++count;
        keys_.push_back(key);
        lines_.push_back(line_key(lines_.empty() ? 0 : lines_.back(), key));
        counts_.push_back(count);
        frames_.push_back(board_.state().squares);
        actions_ready_ = false;
        termination_ = -1;
    }

    bool bare_kings() const {
        for (std::uint8_t code : board_.state().squares)
            if (code && (code >> 3) < 4 && (code & 7) != KING) return false;
        return true;
    }

    int compute_termination() {
        const FourState& s = board_.state();
        for (int c = 0; c < 4; ++c) final_points_[std::size_t(c)] = s.points[c];
        if (board_.teams()) {
            if (s.winner_team >= 0) return KING_CAPTURE;
            if (legal().empty()) return board_.in_check(s.turn) ? CHECKMATE : STALEMATE;
            if (s.halfmove_clock >= 100) return FIFTY_MOVES;
            if (repetitions() >= 3) return THREEFOLD_REPETITION;
            return ONGOING;
        }
        if (s.game_over) return LAST_PLAYER_STANDING;
        int live[4], count = 0;
        for (int c = 0; c < 4; ++c)
            if (s.live[c]) live[count++] = c;
        if (claim_win_ && count == 2) {
            // Python sorts by -points (stable): the first of two equals leads.
            int leader = s.points[live[1]] > s.points[live[0]] ? live[1] : live[0];
            int trailer = leader == live[0] ? live[1] : live[0];
            if (s.points[leader] - s.points[trailer] >= 21) {
                final_points_[std::size_t(trailer)] += 20;
                return CLAIM_WIN;
            }
        }
        int draw = bare_kings() ? INSUFFICIENT_MATERIAL
                   : s.halfmove_clock >= 100 ? FIFTY_MOVES
                   : repetitions() >= 3 ? THREEFOLD_REPETITION
                                        : ONGOING;
        if (draw)
            for (int i = 0; i < count; ++i) final_points_[std::size_t(live[i])] += 10;
        return draw;
    }

    FourBoard start_;
    FourBoard board_;
    int history_;
    bool claim_win_;
    std::shared_ptr<const FourActionTable> table_;
    std::vector<u64> keys_;
    std::vector<u64> lines_;  // line_key() of the positions so far, one per position
    std::vector<int> counts_;
    std::vector<Frame> frames_;
    std::vector<int> actions_;
    std::vector<int> played_;
    bool actions_ready_ = false;
    int termination_ = -1;
    std::array<int, 4> final_points_{};
    SearchHolds holds_;
};

}  // namespace chess_envs::four
