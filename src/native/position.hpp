// A position of an 8x8 or 6x6 chess variant: bitboards plus a mailbox, legal move generation with
// pins and checks, make and unmake. Variants differ only in their traits (see variants.hpp).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

#include "geometry.hpp"

namespace chess_envs {

enum Piece : int { PAWN = 0, KNIGHT = 1, BISHOP = 2, ROOK = 3, QUEEN = 4, KING = 5, NO_PIECE = 6 };
enum Colour : int { WHITE = 0, BLACK = 1 };
constexpr const char* PIECE_LETTERS = "pnbrqk";

// A move in 32 bits: from (6) | to (6) << 6 | promotion piece (3) << 12 | kind (2) << 15.
enum MoveKind : std::uint32_t { NORMAL = 0, DOUBLE_STEP = 1, EN_PASSANT = 2, CASTLING = 3 };
using Move = std::uint32_t;
constexpr Move make_move(int from, int to, int promotion = 0, MoveKind kind = NORMAL) {
    return Move(from) | Move(to) << 6 | Move(promotion) << 12 | Move(kind) << 15;
}
constexpr int move_from(Move m) { return m & 63; }
constexpr int move_to(Move m) { return (m >> 6) & 63; }
constexpr int move_promotion(Move m) { return (m >> 12) & 7; }
constexpr MoveKind move_kind(Move m) { return MoveKind((m >> 15) & 3); }

// Room for every legal move of any position the FEN reader accepts, and of every position play
// reaches from one: the reader allows at most MAX_PIECES_PER_SIDE pieces a side (python-chess's
// validity rule), and a side's moves are at most the sum over its pieces of each piece's most:
// queen 27, bishop 13, rook 14, knight 8, king 8 + 2 castlings, pawn 12 (3 targets x 4 promotions).
// With one king that is at most 15 * 27 + 10 = 415 (captures and promotions never add pieces).
constexpr int MAX_PIECES_PER_SIDE = 16;
constexpr int MAX_MOVES = 512;
static_assert((MAX_PIECES_PER_SIDE - 1) * 27 + 10 <= MAX_MOVES, "a move list must hold every legal move");

struct MoveList {
    Move moves[MAX_MOVES];
    int size = 0;
    void add(Move m) { moves[size++] = m; }
};

// Zobrist keys shared by every variant (squares up to 64), fixed by a seeded splitmix64.
struct Zobrist {
    u64 piece[2][6][64];
    u64 black_to_move;
    u64 castling[16];
    u64 en_passant_file[8];
    Zobrist() {
        u64 state = 0x9E3779B97F4A7C15ULL;
        auto next = [&state]() { return splitmix64(state); };
        for (auto& colour : piece)
            for (auto& type : colour)
                for (u64& key : type) key = next();
        black_to_move = next();
        castling[0] = 0;
        u64 right[4] = {next(), next(), next(), next()};
        for (int c = 1; c < 16; ++c) {
            castling[c] = 0;
            for (int r = 0; r < 4; ++r)
                if (c & (1 << r)) castling[c] ^= right[r];
        }
        for (u64& key : en_passant_file) key = next();
    }
};
inline const Zobrist& zobrist() {
    static const Zobrist z;
    return z;
}

// Castling rights bits: white kingside, white queenside, black kingside, black queenside.
enum Castling : int { WHITE_KINGSIDE = 1, WHITE_QUEENSIDE = 2, BLACK_KINGSIDE = 4, BLACK_QUEENSIDE = 8 };

template <class V>
struct Position {
    static constexpr int N = V::N;
    static constexpr int SQUARES = N * N;
    using Geo = Geometry<N>;

    u64 pieces[2][6]{};
    u64 occupied[2]{};
    std::int8_t mailbox[64];  // -1 empty, else colour * 6 + piece
    int side = WHITE;
    int castling = 0;
    int en_passant = -1;  // the square a double step passed over, whether or not a capture there is legal
    int halfmove_clock = 0;
    int fullmove_number = 1;
    int king_square[2]{};
    u64 key = 0;  // Zobrist key of pieces, side and castling rights (en passant is added by the game)

    struct Undo {
        Move move;
        std::int8_t captured;
        std::int8_t castling;
        std::int8_t en_passant;
        int halfmove_clock;
        u64 key;
    };

    Position() { std::memset(mailbox, -1, sizeof mailbox); }

    static const Geo& geo() { return geometry<N>(); }
    u64 all() const { return occupied[0] | occupied[1]; }
    int piece_on(int s) const { return mailbox[s] < 0 ? NO_PIECE : mailbox[s] % 6; }

    void put(int colour, int piece, int s) {
        u64 b = 1ULL << s;
        pieces[colour][piece] |= b;
        occupied[colour] |= b;
        mailbox[s] = std::int8_t(colour * 6 + piece);
        key ^= zobrist().piece[colour][piece][s];
    }
    void remove(int s) {
        int code = mailbox[s];
        int colour = code / 6, piece = code % 6;
        u64 b = 1ULL << s;
        pieces[colour][piece] &= ~b;
        occupied[colour] &= ~b;
        mailbox[s] = -1;
        key ^= zobrist().piece[colour][piece][s];
    }
    void set_castling(int rights) {
        key ^= zobrist().castling[castling] ^ zobrist().castling[rights];
        castling = rights;
    }

    // Pieces of colour `by` that attack square s, with `occ` as the occupancy.
    u64 attackers(int s, int by, u64 occ) const {
        const Geo& g = geo();
        const u64* p = pieces[by];
        return (g.pawn_attacks[by ^ 1][s] & p[PAWN]) | (g.knight[s] & p[KNIGHT]) | (g.king[s] & p[KING]) |
               (g.bishop(s, occ) & (p[BISHOP] | p[QUEEN])) | (g.rook(s, occ) & (p[ROOK] | p[QUEEN]));
    }
    bool attacked(int s, int by) const { return attackers(s, by, all()) != 0; }
    bool in_check() const { return attacked(king_square[side], side ^ 1); }

    // The mover's pieces pinned to its king.
    u64 pinned() const {
        const Geo& g = geo();
        int us = side, them = us ^ 1, k = king_square[us];
        u64 occ = all(), result = 0;
        u64 snipers = (g.rook_empty[k] & (pieces[them][ROOK] | pieces[them][QUEEN])) |
                      (g.bishop_empty[k] & (pieces[them][BISHOP] | pieces[them][QUEEN]));
        while (snipers) {
            int s = pop_lsb(snipers);
            u64 blockers = g.between[k][s] & occ;
            if (blockers && !(blockers & (blockers - 1)) && (blockers & occupied[us])) result |= blockers;
        }
        return result;
    }

    static constexpr int push_step(int colour) { return colour == WHITE ? N : -N; }
    static constexpr int last_rank(int colour) { return colour == WHITE ? N - 1 : 0; }

    void add_pawn_move(MoveList& list, int from, int to) const {
        if (to / N == last_rank(side)) {
            for (int promotion : V::PROMOTIONS) list.add(make_move(from, to, promotion));
        } else {
            list.add(make_move(from, to));
        }
    }

    // Is the en passant capture from `from` legal (the king is not left attacked)?
    bool en_passant_legal(int from) const {
        int us = side, them = us ^ 1, k = king_square[us];
        int captured = en_passant - push_step(us);
        u64 occ = (all() ^ (1ULL << from) ^ (1ULL << captured)) | (1ULL << en_passant);
        const Geo& g = geo();
        const u64* p = pieces[them];
        u64 hits = (g.pawn_attacks[us][k] & p[PAWN] & ~(1ULL << captured)) | (g.knight[k] & p[KNIGHT]) |
                   (g.bishop(k, occ) & (p[BISHOP] | p[QUEEN])) | (g.rook(k, occ) & (p[ROOK] | p[QUEEN]));
        return hits == 0;
    }

    // Whether some en passant capture is legal now (python-chess's has_legal_en_passant).
    bool has_legal_en_passant() const {
        if (!V::EN_PASSANT || en_passant < 0) return false;
        u64 capturers = geo().pawn_attacks[side ^ 1][en_passant] & pieces[side][PAWN];
        while (capturers)
            if (en_passant_legal(pop_lsb(capturers))) return true;
        return false;
    }

    // All legal moves of the side to move.
    void legal_moves(MoveList& list) const {
        list.size = 0;
        const Geo& g = geo();
        int us = side, them = us ^ 1, k = king_square[us];
        u64 own = occupied[us], enemy = occupied[them], occ = own | enemy;
        u64 check = attackers(k, them, occ);
        // King moves: the king itself must not block the attacks on the squares it steps to.
        u64 occ_without_king = occ ^ (1ULL << k);
        for (u64 targets = g.king[k] & ~own; targets;) {
            int to = pop_lsb(targets);
            if (!attackers(to, them, occ_without_king)) list.add(make_move(k, to));
        }
        if (check & (check - 1)) return;  // double check: only the king moves
        u64 target = check ? (g.between[k][lsb(check)] | check) : (Geo::ALL & ~own);
        u64 pins = pinned();
        const u64* p = pieces[us];
        for (u64 b = p[KNIGHT] & ~pins; b;) {
            int from = pop_lsb(b);
            for (u64 t = g.knight[from] & target; t;) list.add(make_move(from, pop_lsb(t)));
        }
        for (u64 b = p[BISHOP] | p[QUEEN]; b;) {
            int from = pop_lsb(b);
            u64 t = g.bishop(from, occ) & target;
            if (pins & (1ULL << from)) t &= g.line[k][from];
            while (t) list.add(make_move(from, pop_lsb(t)));
        }
        for (u64 b = p[ROOK] | p[QUEEN]; b;) {
            int from = pop_lsb(b);
            u64 t = g.rook(from, occ) & target;
            if (pins & (1ULL << from)) t &= g.line[k][from];
            while (t) list.add(make_move(from, pop_lsb(t)));
        }
        int step = push_step(us);
        for (u64 b = p[PAWN]; b;) {
            int from = pop_lsb(b);
            u64 allowed = target;
            if (pins & (1ULL << from)) allowed &= g.line[k][from];
            int to = from + step;
            if (!(occ & (1ULL << to))) {
                if (allowed & (1ULL << to)) add_pawn_move(list, from, to);
                if (V::DOUBLE_STEP && from / N == (us == WHITE ? 1 : N - 2)) {
                    int two = to + step;
                    if (!(occ & (1ULL << two)) && (allowed & (1ULL << two)))
                        list.add(make_move(from, two, 0, DOUBLE_STEP));
                }
            }
            for (u64 t = g.pawn_attacks[us][from] & enemy & allowed; t;) add_pawn_move(list, from, pop_lsb(t));
        }
        if (V::EN_PASSANT && en_passant >= 0) {
            for (u64 b = g.pawn_attacks[them][en_passant] & p[PAWN]; b;) {
                int from = pop_lsb(b);
                if (en_passant_legal(from)) list.add(make_move(from, en_passant, 0, EN_PASSANT));
            }
        }
        if (V::CASTLING && !check) add_castling(list, occ);
    }

    void add_castling(MoveList& list, u64 occ) const {
        int us = side, base = us == WHITE ? 0 : 56;
        int rights = castling >> (2 * us);
        if ((rights & 1) && !(occ & (0x60ULL << base)) && !attacked(base + 5, us ^ 1) && !attacked(base + 6, us ^ 1))
            list.add(make_move(base + 4, base + 6, 0, CASTLING));
        if ((rights & 2) && !(occ & (0x0EULL << base)) && !attacked(base + 3, us ^ 1) && !attacked(base + 2, us ^ 1))
            list.add(make_move(base + 4, base + 2, 0, CASTLING));
    }

    // Castling rights kept when a piece leaves or lands on each square (standard chess only).
    static int rights_kept(int s) {
        switch (s) {
            case 0: return ~WHITE_QUEENSIDE & 15;
            case 4: return ~(WHITE_KINGSIDE | WHITE_QUEENSIDE) & 15;
            case 7: return ~WHITE_KINGSIDE & 15;
            case 56: return ~BLACK_QUEENSIDE & 15;
            case 60: return ~(BLACK_KINGSIDE | BLACK_QUEENSIDE) & 15;
            case 63: return ~BLACK_KINGSIDE & 15;
            default: return 15;
        }
    }

    Undo make(Move m) {
        int from = move_from(m), to = move_to(m), us = side;
        MoveKind kind = move_kind(m);
        int piece = piece_on(from);
        Undo undo{m, mailbox[to], std::int8_t(castling), std::int8_t(en_passant), halfmove_clock, key};
        if (kind == EN_PASSANT) {
            int captured = to - push_step(us);
            undo.captured = mailbox[captured];
            remove(captured);
        } else if (mailbox[to] >= 0) {
            remove(to);
        }
        remove(from);
        put(us, move_promotion(m) ? move_promotion(m) : piece, to);
        if (piece == KING) king_square[us] = to;
        if (kind == CASTLING) {
            int rook_from = to > from ? from + 3 : from - 4, rook_to = to > from ? from + 1 : from - 1;
            remove(rook_from);
            put(us, ROOK, rook_to);
        }
        if (V::CASTLING && castling) set_castling(castling & rights_kept(from) & rights_kept(to));
        en_passant = kind == DOUBLE_STEP ? from + push_step(us) : -1;
        halfmove_clock = (piece == PAWN || undo.captured >= 0) ? 0 : halfmove_clock + 1;
        if (us == BLACK) ++fullmove_number;
        side ^= 1;
        key ^= zobrist().black_to_move;
        return undo;
    }

    void unmake(const Undo& undo) {
        Move m = undo.move;
        int from = move_from(m), to = move_to(m);
        side ^= 1;
        int us = side;
        if (us == BLACK) --fullmove_number;
        MoveKind kind = move_kind(m);
        int piece = move_promotion(m) ? PAWN : piece_on(to);
        if (kind == CASTLING) {
            int rook_from = to > from ? from + 3 : from - 4, rook_to = to > from ? from + 1 : from - 1;
            remove(rook_to);
            put(us, ROOK, rook_from);
        }
        remove(to);
        put(us, piece, from);
        if (piece == KING) king_square[us] = from;
        if (undo.captured >= 0) {
            int at = kind == EN_PASSANT ? to - push_step(us) : to;
            put(undo.captured / 6, undo.captured % 6, at);
        }
        castling = undo.castling;
        en_passant = undo.en_passant;
        halfmove_clock = undo.halfmove_clock;
        key = undo.key;
    }

    // Leaf count of the legal-move tree, counting the last ply in bulk.
    std::uint64_t perft(int depth) {
        MoveList list;
        legal_moves(list);
        if (depth <= 1) return depth == 1 ? std::uint64_t(list.size) : 1;
        std::uint64_t nodes = 0;
        for (int i = 0; i < list.size; ++i) {
            Undo u = make(list.moves[i]);
            nodes += perft(depth - 1);
            unmake(u);
        }
        return nodes;
    }
};

}  // namespace chess_envs
