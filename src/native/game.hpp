// A game of an 8x8 or 6x6 variant: the position plus its history (repetitions by Zobrist key),
// the game end, the legal actions in the mover's frame, and the observation planes, all written
// into caller-provided buffers.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "fen.hpp"
#include "in_use.hpp"
#include "variants.hpp"

namespace chess_envs {

// Rule endings, in the order of chess_envs.core.Termination's names listed in TERMINATION_NAMES.
enum Termination : int {
    ONGOING = 0,
    CHECKMATE,
    STALEMATE,
    INSUFFICIENT_MATERIAL,
    SEVENTYFIVE_MOVES,
    FIVEFOLD_REPETITION,
    FIFTY_MOVES,
    THREEFOLD_REPETITION,
    KING_CAPTURE,
    LAST_PLAYER_STANDING,
    CLAIM_WIN,
};
constexpr const char* TERMINATION_NAMES[] = {
    "",
    "checkmate",
    "stalemate",
    "insufficient_material",
    "seventyfive_moves",
    "fivefold_repetition",
    "fifty_moves",
    "threefold_repetition",
    "king_capture",
    "last_player_standing",
    "claim_win",
};

// The action of each (colour, from, to, promotion) of a variant: table[((colour * S + from) * S + to) * 5 + promotion],
// -1 where the encoding has none. Built in Python from the encoding, so one definition serves both.
struct ActionTable {
    int squares;
    int num_actions;
    std::vector<std::int32_t> table;
    int action(int colour, Move m) const {
        return table[((std::size_t(colour) * squares + move_from(m)) * squares + move_to(m)) * 5 + move_promotion(m)];
    }
};

// A plane value in [0, 1] as uint8 steps of 1/255, rounded half to even and clamped, exactly as
// numpy's np.clip(np.rint(x * np.float32(255)), 0, 255) (chess_envs/search/protocol.py, quantize_planes).
inline std::uint8_t quantize(float x) {
    float y = std::nearbyint(x * 255.0f);
    return std::uint8_t(y <= 0.0f ? 0.0f : (y >= 255.0f ? 255.0f : y));
}

// Observations are written as float32, or as uint8 (quantize) for the search's network batches.
template <class T>
T plane_value(float x) {
    if constexpr (std::is_same_v<T, float>) return x;
    else return quantize(x);
}

// Expansion of a byte of a bitboard row into 8 plane values.
template <class T>
struct ByteRows {
    T row[256][8];
    ByteRows() {
        for (int b = 0; b < 256; ++b)
            for (int i = 0; i < 8; ++i) row[b][i] = plane_value<T>(float((b >> i) & 1));
    }
};
template <class T>
const ByteRows<T>& byte_rows() {
    static const ByteRows<T> table;
    return table;
}

// A line's key after one more position: splitmix64's finaliser over the previous line key and the
// position's repetition key.
inline u64 line_key(u64 line, u64 position) { return mix64(line * 0x9E3779B97F4A7C15ULL ^ position); }

struct GameOptions {
    int history = 8;
    bool claim_draws = true;                        // standard chess: threefold and fifty moves end the game
    bool adjudicate_insufficient_material = false;  // Los Alamos: bare kings or K+N v K end the game
};

template <class V>
class Game {
  public:
    static constexpr int N = V::N;
    static constexpr int SQUARES = N * N;
    static constexpr int PIECE_TYPES = V::CASTLING ? 6 : 5;  // Los Alamos has no bishops
    static constexpr int PLANES_PER_STEP = V::PLANES_PER_STEP;
    using Pos = Position<V>;

    // One per position of the game: the piece bitboards (white's, then black's, in plane order) and
    // how often the position had occurred when it was reached.
    struct Frame {
        u64 pieces[2][PIECE_TYPES];
        int count;
    };

    Game(const std::string& fen, GameOptions options, std::shared_ptr<const ActionTable> table)
        : options_(options), table_(std::move(table)) {
        if (options.history < 1 || options.history > 32) throw std::invalid_argument("history must be in [1, 32]");
        if (!table_) throw std::invalid_argument("the action table must not be None");
        if (table_->squares != SQUARES)
            throw std::invalid_argument("the action table is for a board of " + std::to_string(table_->squares) +
                                        " squares, but " + V::NAME + " has " + std::to_string(SQUARES));
        reset(fen);
    }

    void reset(const std::string& fen) {
        start_ = parse_fen<V>(fen);
        restart();
    }

    // Back to the game's first position (the vector envs' reset).
    void restart() {
        pos_ = start_;
        undos_.clear();
        keys_.clear();
        lines_.clear();
        frames_.clear();
        record();
    }

    const Pos& position() const { return pos_; }
    int num_actions() const { return table_->num_actions; }
    int plies() const { return int(undos_.size()); }
    int repetitions() const { return frames_.back().count; }
    // The key of the game's line: of every position since its start, in order (a search tree's root
    // identity with plies(): a transposition reached along another line is another root).
    u64 key() const { return lines_.back(); }
    SearchHolds& holds() { return holds_; }
    int num_planes() const { return PLANES_PER_STEP * options_.history + V::META_PLANES; }
    std::string fen() const { return to_fen(pos_); }

    const MoveList& legal() {
        if (!legal_ready_) {
            pos_.legal_moves(legal_);
            for (int i = 0; i < legal_.size; ++i) {
                actions_[i] = table_->action(pos_.side, legal_.moves[i]);
                if (actions_[i] < 0) throw std::logic_error("the action table has no action for a legal move");
            }
            legal_ready_ = true;
        }
        return legal_;
    }

    // The action of the i-th move of legal().
    int action_of(int i) const { return actions_[i]; }

    // The moves played since the game's first position, oldest first.
    std::vector<Move> moves_played() const {
        std::vector<Move> moves;
        for (const auto& u : undos_) moves.push_back(u.move);
        return moves;
    }

    // The legal actions, descending (python-chess also lists moves from the highest square down); none once
    // the game is over.
    int legal_actions(std::int64_t* out) {
        if (termination()) return 0;
        const MoveList& list = legal();
        for (int i = 0; i < list.size; ++i) out[i] = actions_[i];
        std::sort(out, out + list.size, [](std::int64_t a, std::int64_t b) { return a > b; });
        return list.size;
    }

    // legal_actions() with each action's move beside it (the search plays moves without a lookup).
    int legal_with_moves(std::int64_t* actions, Move* moves) {
        if (termination()) return 0;
        const MoveList& list = legal();
        int order[MAX_MOVES];
        for (int i = 0; i < list.size; ++i) order[i] = i;
        std::sort(order, order + list.size, [&](int a, int b) { return actions_[a] > actions_[b]; });
        for (int i = 0; i < list.size; ++i) {
            actions[i] = actions_[order[i]];
            moves[i] = list.moves[order[i]];
        }
        return list.size;
    }

    // 0/1 per action into `out` (num_actions bytes); all zero once the game is over.
    void legal_mask(std::uint8_t* out) {
        std::memset(out, 0, std::size_t(num_actions()));
        if (termination()) return;
        const MoveList& list = legal();
        for (int i = 0; i < list.size; ++i) out[actions_[i]] = 1;
    }

    // Plays `action` if it is legal (whatever the draw rules say) and returns whether it was.
    bool apply(int action) {
        const MoveList& list = legal();
        for (int i = 0; i < list.size; ++i)
            if (actions_[i] == action) {
                play_move(list.moves[i]);
                return true;
            }
        return false;
    }

    // Plays `m`, a legal move here (the search and the mate probe play moves by their codes).
    void play_move(Move m) {
        undos_.push_back(pos_.make(m));
        record();
    }

    void undo() {
        if (undos_.empty()) throw std::out_of_range("undo: no move to take back");
        pos_.unmake(undos_.back());
        undos_.pop_back();
        keys_.pop_back();
        lines_.pop_back();
        frames_.pop_back();
        legal_ready_ = false;
        termination_ = -1;
    }

    // The game end by the rules (a Termination), cached per position.
    int termination() {
        if (termination_ < 0) termination_ = compute_termination();
        return termination_;
    }

    // The winner's seat, or -1 for a draw or a game that goes on.
    int winner() { return termination() == CHECKMATE ? (pos_.side ^ 1) : -1; }

    // What the vector envs need: the mover, the value of the finished game for a seat, and
    // playing the i-th legal move (a random opponent's choice).
    static constexpr int SQUARES_PER_PLANE = SQUARES;
    int side() const { return pos_.side; }
    float value(int seat) {
        int w = winner();
        return w < 0 ? 0.0f : (w == seat ? 1.0f : -1.0f);
    }
    int num_moves() { return legal().size; }
    void play_index(int i) { play_move(legal().moves[i]); }
    bool in_check() const { return pos_.in_check(); }

    // Observation planes for `player` into `out` (num_planes() * N * N floats).
    template <class T>
    void observation(int player, T* out) const {
        const ByteRows<T>& bytes = byte_rows<T>();
        const int plane = SQUARES;
        int positions = int(frames_.size());
        int steps = std::min(options_.history, positions);
        T* p = out;
        for (int t = 0; t < steps; ++t) {
            const Frame& frame = frames_[std::size_t(positions - 1 - t)];
            for (int side = 0; side < 2; ++side) {
                int colour = player ^ side;
                for (int piece = 0; piece < PIECE_TYPES; ++piece) {
                    u64 b = frame.pieces[colour][piece];
                    for (int row = 0; row < N; ++row) {
                        int rank = player == WHITE ? row : N - 1 - row;
                        std::memcpy(p + row * N, bytes.row[(b >> (rank * N)) & ((1u << N) - 1)], sizeof(T) * N);
                    }
                    p += plane;
                }
            }
            std::fill(p, p + plane, plane_value<T>(frame.count >= 2 ? 1.0f : 0.0f));
            std::fill(p + plane, p + 2 * plane, plane_value<T>(frame.count >= 3 ? 1.0f : 0.0f));
            p += 2 * plane;
        }
        std::fill(p, out + std::size_t(PLANES_PER_STEP) * options_.history * plane, T(0));
        p = out + std::size_t(PLANES_PER_STEP) * options_.history * plane;
        int ply = 2 * (pos_.fullmove_number - 1) + pos_.side;
        float meta[V::META_PLANES];
        meta[0] = float(player);
        meta[1] = float(std::min(ply, 512)) / 512.0f;
        if constexpr (V::CASTLING) {
            int mine = (pos_.castling >> (2 * player)) & 3, theirs = (pos_.castling >> (2 * (player ^ 1))) & 3;
            meta[2] = float(mine & 1);
            meta[3] = float((mine >> 1) & 1);
            meta[4] = float(theirs & 1);
            meta[5] = float((theirs >> 1) & 1);
        }
        meta[V::META_PLANES - 1] =
            float(std::min(pos_.halfmove_clock, V::NO_PROGRESS_SCALE)) / float(V::NO_PROGRESS_SCALE);
        for (int m = 0; m < V::META_PLANES; ++m) std::fill(p + m * plane, p + (m + 1) * plane, plane_value<T>(meta[m]));
    }

    // Material per seat in pawns (pawn 1, knight 3, bishop 3, rook 5, queen 9).
    void material(float* out) const {
        static constexpr int value[5] = {1, 3, 3, 5, 9};
        for (int colour = 0; colour < 2; ++colour) {
            int total = 0;
            for (int piece = PAWN; piece <= QUEEN; ++piece)
                total += value[piece] * popcount(pos_.pieces[colour][piece]);
            out[colour] = float(total);
        }
    }

  private:
    void record() {
        u64 key = pos_.key;
        if (pos_.has_legal_en_passant()) key ^= zobrist().en_passant_file[pos_.en_passant % N];
        // A position can only repeat since the last capture or pawn move, on the same side to move.
        int count = 1, n = int(keys_.size());
        int back = std::min(pos_.halfmove_clock, n);
        for (int i = 2; i <= back; i += 2)
            if (keys_[std::size_t(n - i)] == key) ++count;
        keys_.push_back(key);
        lines_.push_back(line_key(lines_.empty() ? 0 : lines_.back(), key));
        Frame frame;
        for (int colour = 0; colour < 2; ++colour)
            for (int piece = 0, slot = 0; piece < 6; ++piece)
                if (V::CASTLING || piece != BISHOP) frame.pieces[colour][slot++] = pos_.pieces[colour][piece];
        frame.count = count;
        frames_.push_back(frame);
        legal_ready_ = false;
        termination_ = -1;
    }

    // python-chess's order of Board.outcome(): checkmate, insufficient material, stalemate, the
    // automatic draws, then (claim_draws) fifty moves before threefold repetition. Los Alamos keeps
    // the same order with its adjudication in place of insufficient material.
    int compute_termination() {
        const MoveList& list = legal();
        if (list.size == 0 && pos_.in_check()) return CHECKMATE;
        int reps = repetitions();
        if constexpr (V::CASTLING) {
            if (insufficient(WHITE) && insufficient(BLACK)) return INSUFFICIENT_MATERIAL;
            if (list.size == 0) return STALEMATE;
            if (pos_.halfmove_clock >= 150) return SEVENTYFIVE_MOVES;
            if (reps >= 5) return FIVEFOLD_REPETITION;
            if (options_.claim_draws) {
                if (pos_.halfmove_clock >= 100) return FIFTY_MOVES;
                if (reps >= 3) return THREEFOLD_REPETITION;
            }
        } else {
            if (options_.adjudicate_insufficient_material && bare_material()) return INSUFFICIENT_MATERIAL;
            if (list.size == 0) return STALEMATE;
            if (pos_.halfmove_clock >= 100) return FIFTY_MOVES;
            if (reps >= 3) return THREEFOLD_REPETITION;
        }
        return ONGOING;
    }

    // python-chess's has_insufficient_material(colour).
    bool insufficient(int colour) const {
        const u64(*p)[6] = pos_.pieces;
        u64 own = pos_.occupied[colour], other = pos_.occupied[colour ^ 1];
        u64 pawns = p[0][PAWN] | p[1][PAWN], knights = p[0][KNIGHT] | p[1][KNIGHT];
        u64 bishops = p[0][BISHOP] | p[1][BISHOP], kings = p[0][KING] | p[1][KING], queens = p[0][QUEEN] | p[1][QUEEN];
        if (own & (pawns | p[0][ROOK] | p[1][ROOK] | queens)) return false;
        if (own & knights) return popcount(own) <= 2 && !(other & ~kings & ~queens);
        if (own & bishops) {
            constexpr u64 DARK = 0xAA55AA55AA55AA55ULL;
            bool same_colour = !(bishops & DARK) || !(bishops & ~DARK);
            return same_colour && !pawns && !knights;
        }
        return true;
    }

    // Los Alamos adjudication: bare kings, or king and one knight against a bare king.
    bool bare_material() const {
        u64 others = (pos_.occupied[0] | pos_.occupied[1]) & ~(pos_.pieces[0][KING] | pos_.pieces[1][KING]);
        if (!others) return true;
        return popcount(others) == 1 && (others & (pos_.pieces[0][KNIGHT] | pos_.pieces[1][KNIGHT]));
    }

    GameOptions options_;
    std::shared_ptr<const ActionTable> table_;
    Pos start_;
    Pos pos_;
    std::vector<typename Pos::Undo> undos_;
    std::vector<u64> keys_;
    std::vector<u64> lines_;  // line_key() of the positions so far, one per position
    std::vector<Frame> frames_;
    MoveList legal_;
    int actions_[MAX_MOVES];
    SearchHolds holds_;
    bool legal_ready_ = false;
    int termination_ = -1;
};

}  // namespace chess_envs
