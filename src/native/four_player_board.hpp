// Four-player chess (chess.com rules, Free-For-All and Teams) on a 14x14 mailbox: the constants,
// the geometry tables, the board state, and FourBoard with make/unmake and the end-of-move processing
// (points, eliminations, dead pieces). FourBoard's move generation, attack tests and perft are defined
// in four_player_movegen.hpp: include that header (or four_player_game.hpp) to use the board. A faithful
// port of the Python reference engine in the tests, which stays the reference it is tested against.
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
        const int capture_steps[4][2][2] = {
            {{-1, -1}, {-1, 1}}, {{-1, 1}, {1, 1}}, {{1, -1}, {1, 1}}, {{-1, -1}, {1, -1}}};
        const int start_line[4][2] = {{0, 12}, {1, 1}, {0, 1}, {1, 12}};
        const int promotion_line[2][4][2] = {{{0, 6}, {1, 7}, {0, 7}, {1, 6}}, {{0, 3}, {1, 10}, {0, 10}, {1, 3}}};
        auto on_line = [](int s, const int line[2]) { return (line[0] == 0 ? s / SIZE : s % SIZE) == line[1]; };
        for (int s = 0; s < SQUARES; ++s) {
            int row = s / SIZE, col = s % SIZE;
            for (int d = 0; d < 8; ++d) {
                for (int r = row + dr[d], c = col + dc[d]; playable(r, c); r += dr[d], c += dc[d])
                    rays[s][d].push_back(r * SIZE + c);
                if (playable(row + kr[d], col + kc[d])) knight[s].push_back((row + kr[d]) * SIZE + col + kc[d]);
                if (playable(row + dr[d], col + dc[d])) king[s].push_back((row + dr[d]) * SIZE + col + dc[d]);
            }
            for (int colour = 0; colour < 4; ++colour) {
                int r = row + forward[colour][0], c = col + forward[colour][1];
                push[colour][s] = playable(r, c) ? r * SIZE + c : -1;
                int r2 = row + 2 * forward[colour][0], c2 = col + 2 * forward[colour][1];
                twice[colour][s] = on_line(s, start_line[colour]) && playable(r2, c2) ? r2 * SIZE + c2 : -1;
                for (auto& step : capture_steps[colour])
                    if (playable(row + step[0], col + step[1]))
                        pawn_captures[colour][s].push_back((row + step[0]) * SIZE + col + step[1]);
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
            back_ranks[0][i] = 13 * SIZE + 3 + i;    // Red: d1..k1
            back_ranks[1][i] = (10 - i) * SIZE;      // Blue: a4..a11
            back_ranks[2][i] = 10 - i;               // Yellow: k14..d14
            back_ranks[3][i] = (3 + i) * SIZE + 13;  // Green: n11..n4
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
        for (int& king : s_.kings) king = -1;
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
    // would have before (docs/rules/four_player.md section 8): stalemated players score 20; mated ones score nothing.
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

    // Move generation, attack tests and perft: defined in four_player_movegen.hpp.
    const std::vector<int>& legal_moves();
    bool in_check(int colour) const;

    // Leaf nodes of the legal-move tree, as the reference data counts them: a move that ends the
    // game is a leaf at its own depth; the last ply is counted from the move list.
    std::uint64_t perft(int depth);

    // The legal moves of `colour` as if it were to move.
    void generate(int colour, std::vector<int>& moves) const;

    // Whether `colour` has a legal move: the generator stopped at the first piece that has one
    // (what the FFA end-of-move rules ask of every player, far more often than the moves themselves).
    bool has_legal_move(int colour) const;

  private:
    static bool live_king(int code) { return code && (code & 7) == KING && (code >> 3) < DEAD; }

    int count_live() const { return s_.live[0] + s_.live[1] + s_.live[2] + s_.live[3]; }

    bool ep_target(int c) const {
        return s_.ep_landing[c] >= 0 && s_.squares[std::size_t(s_.ep_landing[c])] == (c << 3 | PAWN);
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

    // The turn passes to the next live player who can move (FFA: the stalemated are taken out on
    // the way); the game is over when at most one player is left.
    void advance_turn(int mover) {
        for (int next = mover; !s_.game_over && count_live() > 1;) {
            next = (next + 1) % 4;
            if (!s_.live[next]) continue;
            s_.turn = next;
            if (teams_ || has_legal_move(next)) return;  // its moves are generated when asked for
            eliminate(next);
            s_.points[next] += STALEMATE_POINTS;
        }
        s_.game_over = true;
        moves_.clear();
        moves_ready_ = true;
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
                for (int i = std::min(index, rooks[side]) + 1; i < std::max(index, rooks[side]); ++i)
                    c.between[c.between_count++] = rank[i];
                c.path[0] = c.rook_to;
                c.path[1] = c.king_to;
                rook_home_colour_[c.rook_from] = colour;
                rook_home_side_[c.rook_from] = side;
            }
        }
    }

    // Move generation and attack tests: defined in four_player_movegen.hpp.
    template <bool ANY>
    void generate_moves(int colour, std::vector<int>& moves) const;
    static void single_checker(int target, int& checkers, Squares& block, bool& has_block);
    bool attacked(int square, const bool* attackers) const;
    void king_moves(int colour, int king, std::vector<int>& moves, const bool* hostile, const bool* capturable,
                    bool safe) const;
    bool ep_is_legal(int colour, int origin, int to, int landing) const;

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
