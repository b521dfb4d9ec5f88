// The four-player game over the native board: FourActionTable (the action of each move) and FourGame
// (history, game end, legal actions and observation planes).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "four_player_movegen.hpp"
#include "game.hpp"
#include "in_use.hpp"

namespace chess_envs::four {

// The action of each (colour, from, to, underpromotion index) — index 0 none (queen promotions
// included), 1 rook, 2 knight, 3 bishop — built in Python from the four-player encoding.
struct FourActionTable {
    std::vector<std::int32_t> table;  // [colour][from][to][4]
    int action(int colour, int move) const {
        int promotion = (move >> 16) & 15;
        int under = promotion == ROOK ? 1 : promotion == KNIGHT ? 2 : promotion == BISHOP ? 3 : 0;
        std::size_t from = std::size_t(move & 255), to = std::size_t((move >> 8) & 255);
        return table[((std::size_t(colour) * SQUARES + from) * SQUARES + to) * 4 + std::size_t(under)];
    }
};

// A four-player game: the native board plus its history (repetitions by Zobrist key), the game
// end of docs/rules/four_player.md section 9, legal actions in the mover's frame, and the observation planes.
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
            throw std::invalid_argument(
                "the FFA board is not settled: the player to move has no legal move (call settle() first)");
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
    void play_index(int i) { play_move(std::uint32_t(legal()[std::size_t(i)])); }

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
    const std::array<int, 4>& final_points() {
        termination();
        return final_points_;
    }

    const std::vector<int>& legal() {
        if (!actions_ready_) {
            const std::vector<int>& moves = board_.legal_moves();
            actions_.resize(moves.size());
            for (std::size_t i = 0; i < moves.size(); ++i) {
                actions_[i] = table_->action(board_.state().turn, moves[i]);
                if (actions_[i] < 0)
                    throw std::logic_error("the four-player action table has no action for a legal move");
            }
            actions_ready_ = true;
        }
        return board_.legal_moves();
    }
    const std::vector<int>& actions() {
        legal();
        return actions_;
    }

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
                play_move(std::uint32_t(moves[i]));
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
    using SquareMap = int[SQUARES];

    // plane_table()[player][code]: the history plane of a square code from player's seat, 25 for none.
    static const std::uint8_t (*plane_table())[64] {
        static std::uint8_t table[4][64];
        static bool ready = [] {
            const int type_plane[8] = {-1, 0, 1, 2, 3, 4, 5, 4};
            for (int player = 0; player < 4; ++player)
                for (int code = 0; code < 64; ++code) {
                    int colour = code >> 3, kind = code & 7;
                    table[player][code] =
                        std::uint8_t(!kind || colour > DEAD ? 25
                                     : colour == DEAD       ? 24
                                                            : ((colour - player + 4) % 4) * 6 + type_plane[kind]);
                }
            return true;
        }();
        (void)ready;
        return table;
    }

    // frames_table()[player][frame square]: the absolute square seen there by player.
    static const SquareMap* frames_table() {
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

    static constexpr int WORDS = (SQUARES + 7) / 8;

    // Random keys: one per 8-square word of the board, then the extras of position_key().
    static const std::array<u64, WORDS + 64>& zobrist_keys() {
        static std::array<u64, WORDS + 64> keys = [] {
            std::array<u64, WORDS + 64> k{};
            u64 state = 0x4F1BBCDCBFA53E0BULL;
            for (u64& key : k) key = splitmix64(state);
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
        for (int w = 0; w < WORDS; ++w) key ^= mix64(words[w] ^ z[std::size_t(w)]);
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
        int draw = bare_kings()              ? INSUFFICIENT_MATERIAL
                   : s.halfmove_clock >= 100 ? FIFTY_MOVES
                   : repetitions() >= 3      ? THREEFOLD_REPETITION
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
