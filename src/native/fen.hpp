// FEN reading and writing for the 8x8 and 6x6 variants. Every malformed or impossible position is
// refused with std::invalid_argument (a ValueError in Python) that says what is wrong.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "position.hpp"

namespace chess_envs {

constexpr std::size_t MAX_FEN_LENGTH = 1000;
constexpr long MAX_CLOCK = 1000000;

inline std::vector<std::string> split(const std::string& text, char separator, bool skip_empty) {
    std::vector<std::string> parts;
    std::string current;
    for (char c : text) {
        if (c == separator) {
            if (!skip_empty || !current.empty()) parts.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    if (!skip_empty || !current.empty()) parts.push_back(current);
    return parts;
}

// A move clock: digits only, at least `minimum`, at most MAX_CLOCK (so it fits any counter).
inline bool parse_clock(const std::string& field, long minimum, int& value) {
    if (field.empty() || field.size() > 7) return false;
    long parsed = 0;
    for (char c : field) {
        if (c < '0' || c > '9') return false;
        parsed = parsed * 10 + (c - '0');
    }
    if (parsed < minimum || parsed > MAX_CLOCK) return false;
    value = int(parsed);
    return true;
}

template <class V>
std::string square_name(int s) {
    return std::string(1, char('a' + s % V::N)) + std::to_string(s / V::N + 1);
}

template <class V>
Position<V> parse_fen(const std::string& fen) {
    constexpr int N = V::N;
    using P = Position<V>;
    if (fen.size() > MAX_FEN_LENGTH)
        throw std::invalid_argument("fen is " + std::to_string(fen.size()) +
                                    " characters long; at most 1,000 are accepted");
    for (char c : fen)
        if (c < 32 || c > 126) throw std::invalid_argument("fen has a character that is not printable ASCII");
    std::vector<std::string> fields = split(fen, ' ', true);
    if (fields.size() != 6)
        throw std::invalid_argument(std::string(V::NAME) + " FEN needs 6 fields, got " + std::to_string(fields.size()) +
                                    " in '" + fen + "'");
    P pos;
    std::vector<std::string> ranks = split(fields[0], '/', false);
    if (int(ranks.size()) != N)
        throw std::invalid_argument("FEN needs " + std::to_string(N) + " ranks, got " + std::to_string(ranks.size()) +
                                    " in '" + fen + "'");
    int kings[2] = {0, 0};
    for (int row = 0; row < N; ++row) {
        int rank = N - 1 - row, file = 0;
        for (char c : ranks[row]) {
            if (c >= '1' && c <= '9') {
                file += c - '0';
                if (file > N) break;
                continue;
            }
            char lower = char(c | 0x20);
            const char* found = nullptr;
            for (const char* l = PIECE_LETTERS; *l; ++l)
                if (*l == lower && (V::CASTLING || lower != 'b')) found = l;
            if (!found) {
                std::string hint = (!V::CASTLING && lower == 'b') ? " (Los Alamos chess has no bishops)" : "";
                throw std::invalid_argument("invalid piece '" + std::string(1, c) + "' in rank " +
                                            std::to_string(rank + 1) + " of '" + fen + "'" + hint);
            }
            if (file >= N) {
                file = N + 1;
                break;
            }
            int colour = (c >= 'a' && c <= 'z') ? BLACK : WHITE;
            int piece = int(found - PIECE_LETTERS);
            pos.put(colour, piece, rank * N + file);
            if (piece == KING) {
                ++kings[colour];
                pos.king_square[colour] = rank * N + file;
            }
            ++file;
        }
        if (file > N)
            throw std::invalid_argument("rank " + std::to_string(rank + 1) + " of '" + fen + "' has more than " +
                                        std::to_string(N) + " files");
        if (file != N)
            throw std::invalid_argument("rank " + std::to_string(rank + 1) + " of '" + fen + "' has " +
                                        std::to_string(file) + " files, not " + std::to_string(N));
    }
    for (int colour : {WHITE, BLACK})
        if (popcount(pos.occupied[colour]) > MAX_PIECES_PER_SIDE)
            throw std::invalid_argument("'" + fen + "' has " + std::to_string(popcount(pos.occupied[colour])) +
                                        (colour ? " black" : " white") + " pieces; at most " +
                                        std::to_string(MAX_PIECES_PER_SIDE) + " a side are accepted");
    for (int colour : {WHITE, BLACK})
        if (kings[colour] != 1)
            throw std::invalid_argument("'" + fen + "' has " + std::to_string(kings[colour]) +
                                        (colour ? " black" : " white") + " kings, not 1");
    u64 back_ranks = 0;
    for (int f = 0; f < N; ++f) back_ranks |= Geometry<N>::bit(f) | Geometry<N>::bit((N - 1) * N + f);
    if (u64 misplaced = (pos.pieces[WHITE][PAWN] | pos.pieces[BLACK][PAWN]) & back_ranks)
        throw std::invalid_argument("pawn on " + square_name<V>(lsb(misplaced)) + ", a first or last rank, in '" + fen +
                                    "'");
    const std::string& side = fields[1];
    if (side != "w" && side != "b") throw std::invalid_argument("side to move must be 'w' or 'b' in '" + fen + "'");
    pos.side = side == "w" ? WHITE : BLACK;
    if (pos.side == BLACK) pos.key ^= zobrist().black_to_move;
    if (!V::CASTLING) {
        if (fields[2] != "-" || fields[3] != "-")
            throw std::invalid_argument("Los Alamos has no castling or en passant: fields 3 and 4 must be '-' in '" +
                                        fen + "'");
    } else {
        int rights = 0;
        if (fields[2] != "-") {
            for (char c : fields[2]) {
                int bit = c == 'K'   ? WHITE_KINGSIDE
                          : c == 'Q' ? WHITE_QUEENSIDE
                          : c == 'k' ? BLACK_KINGSIDE
                          : c == 'q' ? BLACK_QUEENSIDE
                                     : 0;
                if (!bit || (rights & bit))
                    throw std::invalid_argument("bad castling field '" + fields[2] + "' in '" + fen + "'");
                rights |= bit;
            }
        }
        // Each right needs its king and rook on their home squares.
        const int king_home[2] = {4, 60}, rook_home[4] = {7, 0, 63, 56};
        for (int r = 0; r < 4; ++r) {
            int colour = r / 2;
            if ((rights & (1 << r)) &&
                (pos.mailbox[king_home[colour]] != colour * 6 + KING || pos.mailbox[rook_home[r]] != colour * 6 + ROOK))
                throw std::invalid_argument("castling rights without king and rook on their squares in '" + fen + "'");
        }
        pos.set_castling(rights);
        if (fields[3] != "-") {
            const std::string& ep = fields[3];
            if (ep.size() != 2 || ep[0] < 'a' || ep[0] > 'h' || ep[1] < '1' || ep[1] > '8')
                throw std::invalid_argument("bad en passant square '" + ep + "' in '" + fen + "'");
            int s = (ep[1] - '1') * N + (ep[0] - 'a');
            int step = P::push_step(pos.side);  // the mover's direction; the double step went the other way
            int expected_rank = pos.side == WHITE ? 5 : 2;
            if (s / N != expected_rank || pos.mailbox[s] >= 0 || pos.mailbox[s + step] >= 0 ||
                pos.mailbox[s - step] != (pos.side ^ 1) * 6 + PAWN)
                throw std::invalid_argument("invalid en passant square '" + ep + "' in '" + fen + "'");
            pos.en_passant = s;
        }
    }
    if (!parse_clock(fields[4], 0, pos.halfmove_clock) || !parse_clock(fields[5], 1, pos.fullmove_number))
        throw std::invalid_argument("bad move clocks '" + fields[4] + "' '" + fields[5] + "' in '" + fen +
                                    "' (at most " + std::to_string(MAX_CLOCK) + ")");
    if (pos.attacked(pos.king_square[pos.side ^ 1], pos.side))
        throw std::invalid_argument("the side not to move is in check in '" + fen + "'");
    return pos;
}

template <class V>
std::string to_fen(const Position<V>& pos) {
    constexpr int N = V::N;
    std::string out;
    for (int rank = N - 1; rank >= 0; --rank) {
        int empty = 0;
        for (int file = 0; file < N; ++file) {
            int code = pos.mailbox[rank * N + file];
            if (code < 0) {
                ++empty;
                continue;
            }
            if (empty) out += char('0' + empty);
            empty = 0;
            char letter = PIECE_LETTERS[code % 6];
            out += code / 6 == WHITE ? char(letter - 32) : letter;
        }
        if (empty) out += char('0' + empty);
        if (rank) out += '/';
    }
    out += pos.side == WHITE ? " w " : " b ";
    if (!pos.castling) {
        out += '-';
    } else {
        const char letters[4] = {'K', 'Q', 'k', 'q'};
        for (int r = 0; r < 4; ++r)
            if (pos.castling & (1 << r)) out += letters[r];
    }
    out += ' ';
    out += pos.has_legal_en_passant() ? square_name<V>(pos.en_passant) : "-";
    out += ' ' + std::to_string(pos.halfmove_clock) + ' ' + std::to_string(pos.fullmove_number);
    return out;
}

}  // namespace chess_envs
