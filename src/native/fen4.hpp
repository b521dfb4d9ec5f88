// FEN4 reading for the native four-player board: a port of the parser of the Python reference engine
// in the tests (Board._parse, parse_extras, _four_ints, _parse_placement), which the fuzz tests hold
// it to on ASCII text (the Python wrapper refuses other text first). Every malformed or impossible
// position is a std::invalid_argument (a ValueError in Python).
#pragma once
#include <cctype>
#include <string>
#include <variant>
#include <vector>

#include "fen.hpp"
#include "four_player_board.hpp"

namespace chess_envs::four {

constexpr std::size_t MAX_FEN4_LENGTH = 1000;
constexpr long MAX_COUNT = 1000000;

[[noreturn]] inline void fen4_error(const std::string& message) { throw std::invalid_argument("FEN4: " + message); }

// Python's str.isspace() on ASCII (re's \s too).
inline bool py_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); }
inline bool py_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
inline bool all_digits(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}
inline std::string py_strip(const std::string& s) {
    std::size_t a = 0, b = s.size();
    while (a < b && py_space(s[a])) ++a;
    while (b > a && py_space(s[b - 1])) --b;
    return s.substr(a, b - a);
}
// int() of digits already checked; saturates far above any bound used here.
inline long long digits_value(const std::string& s) {
    long long v = 0;
    for (char c : s) v = v > 100000000000LL ? v : v * 10 + (c - '0');
    return v;
}

inline int parse_square4(const std::string& name) {
    if (name.size() < 2 || name[0] < 'a' || name[0] > 'n' || !all_digits(name.substr(1)))
        fen4_error("not a four-player chess square: '" + name + "'");
    long long rank = digits_value(name.substr(1));
    int col = name[0] - 'a';
    if (rank < 1 || rank > SIZE || !playable(SIZE - int(rank), col))
        fen4_error("'" + name + "' is not one of the 160 playable squares");
    return (SIZE - int(rank)) * SIZE + col;
}

// A value of the extras dict: a string or integer, or a tuple of them.
struct ExtrasValue {
    bool is_tuple = false;
    std::vector<std::variant<std::string, long long>> items;  // one item unless a tuple
};

// The extras field: {'key': value, ...} with quoted keys, string/integer values and tuples.
inline std::vector<std::pair<std::string, ExtrasValue>> parse_extras4(const std::string& text) {
    struct Token {
        int kind;  // 0 mark, 1 string, 2 number, 3 end
        std::string text;
        long long number = 0;
    };
    std::vector<Token> tokens;
    std::size_t p = 0;
    while (p < text.size()) {
        std::size_t q = p;
        while (q < text.size() && py_space(text[q])) ++q;
        if (q == text.size()) break;
        char c = text[q];
        if (c == '\'' || c == '"') {
            std::size_t close = q + 1;
            while (close < text.size() && text[close] != c && text[close] != '\\') ++close;
            if (close >= text.size() || text[close] != c) fen4_error("malformed extras: an unclosed or escaped string");
            tokens.push_back({1, text.substr(q + 1, close - q - 1)});
            p = close + 1;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            std::size_t start = q + (c == '-');
            std::size_t end = start;
            while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
            std::size_t count = end - start;
            // -?\d{1,9}\b: at most 9 digits, and the next character must not be a word character.
            if (count == 0 || count > 9 || (end < text.size() && py_word(text[end])))
                fen4_error("malformed extras: unexpected text");
            long long v = digits_value(text.substr(start, count));
            tokens.push_back({2, "", c == '-' ? -v : v});
            p = end;
        } else if (std::string("{}()[]:,").find(c) != std::string::npos) {
            tokens.push_back({0, std::string(1, c)});
            p = q + 1;
        } else {
            fen4_error("malformed extras: unexpected text");
        }
    }
    tokens.push_back({3, ""});
    std::size_t i = 0;
    auto is_mark = [&](const char* m) { return tokens[i].kind == 0 && tokens[i].text == m; };
    auto take_mark = [&](const char* m) {
        if (!is_mark(m)) fen4_error(std::string("malformed extras: expected '") + m + "'");
        ++i;
    };
    auto take_value = [&]() -> std::variant<std::string, long long> {
        if (tokens[i].kind != 1 && tokens[i].kind != 2) fen4_error("malformed extras: expected a value");
        const Token& t = tokens[i++];
        if (t.kind == 1) return t.text;
        return t.number;
    };
    std::vector<std::pair<std::string, ExtrasValue>> extras;
    take_mark("{");
    while (!is_mark("}")) {
        auto key = take_value();
        if (!std::holds_alternative<std::string>(key)) fen4_error("malformed extras: keys must be quoted names");
        take_mark(":");
        ExtrasValue value;
        if (tokens[i].kind == 1 || tokens[i].kind == 2) {
            value.items.push_back(take_value());
        } else if (is_mark("(") || is_mark("[")) {
            const char* close = is_mark("(") ? ")" : "]";
            ++i;
            value.is_tuple = true;
            while (!is_mark(close)) {
                value.items.push_back(take_value());
                if (!is_mark(close)) take_mark(",");
            }
            ++i;
        } else {
            fen4_error("malformed extras: expected a value");
        }
        bool replaced = false;
        for (auto& entry : extras)
            if (entry.first == std::get<std::string>(key)) {
                entry.second = value;
                replaced = true;
            }
        if (!replaced) extras.emplace_back(std::get<std::string>(key), value);
        if (!is_mark("}")) take_mark(",");
    }
    take_mark("}");
    if (tokens[i].kind != 3) fen4_error("malformed extras: text after the closing brace");
    return extras;
}

inline std::array<long long, 4> four_ints(const std::string& field, const char* what, bool flags) {
    std::vector<std::string> parts = split(field, ',', false);
    if (parts.size() != 4) fen4_error(std::string(what) + " must be four comma-separated integers");
    std::array<long long, 4> values{};
    for (std::size_t k = 0; k < 4; ++k) {
        std::string p = py_strip(parts[k]);
        std::size_t signs = 0;
        bool plus = false;
        while (signs < p.size() && p[signs] == '+') ++signs, plus = true;
        bool ok = all_digits(p.substr(signs));
        long long sign = 1;
        std::size_t minus = 0;
        if (!ok && !flags) {
            while (minus < p.size() && p[minus] == '-') ++minus;
            ok = all_digits(p.substr(minus));
            sign = -1;
        }
        if (!ok) fen4_error(std::string(what) + " must be four comma-separated integers");
        // int() takes one sign at most: '++1' or '--1' pass the check above but are not integers.
        if ((plus && signs > 1) || (sign < 0 && minus > 1)) fen4_error(std::string(what) + " is not an integer");
        values[k] = sign * digits_value(p.substr(sign < 0 ? minus : signs));
    }
    for (long long v : values)
        if (v > MAX_COUNT || v < -MAX_COUNT) fen4_error(std::string(what) + " must be at most 1,000,000 in size");
    if (flags)
        for (long long v : values)
            if (v != 0 && v != 1) fen4_error(std::string(what) + " must be 0 or 1 each");
    return values;
}

// The position of a FEN4 (already stripped of surrounding whitespace by the caller).
inline FourState parse_fen4(const std::string& fen4) {
    if (fen4.size() > MAX_FEN4_LENGTH) fen4_error("at most 1,000 characters are accepted");
    for (char c : fen4)
        if (static_cast<unsigned char>(c) > 127) fen4_error("FEN4 must be ASCII text");
    std::string text = fen4;
    std::vector<std::pair<std::string, ExtrasValue>> extras;
    std::vector<std::string> fields;
    std::size_t start = text.find('{');
    if (start != std::string::npos) {
        std::size_t end = text.rfind('}');
        if (end == std::string::npos || end < start) fen4_error("extras open with '{' but never close");
        extras = parse_extras4(text.substr(start, end - start + 1));
        text = text.substr(0, start) + text.substr(end + 1);
        fields = split(text, '-', true);
    } else {
        fields = split(text, '-', false);
    }
    if (fields.size() != 7) fen4_error("needs 7 fields separated by '-'");
    FourState s;
    const std::string turns = "RBYG";
    if (fields[0].size() != 1 || turns.find(fields[0][0]) == std::string::npos)
        fen4_error("player to move must be R, B, Y or G");
    s.turn = int(turns.find(fields[0][0]));
    auto eliminated = four_ints(fields[1], "eliminated flags", true);
    auto kingside = four_ints(fields[2], "kingside castling", true);
    auto queenside = four_ints(fields[3], "queenside castling", true);
    auto points = four_ints(fields[4], "points", false);
    for (int c = 0; c < 4; ++c) {
        s.live[c] = !eliminated[std::size_t(c)];
        s.castling[0][c] = kingside[std::size_t(c)] != 0;
        s.castling[1][c] = queenside[std::size_t(c)] != 0;
        s.points[c] = int(points[std::size_t(c)]);
    }
    if (!all_digits(fields[5]) || digits_value(fields[5]) > MAX_COUNT)
        fen4_error("halfmove clock must be an integer in [0, 1,000,000]");
    s.halfmove_clock = int(digits_value(fields[5]));
    std::vector<std::string> ranks = split(fields[6], '/', false);
    if (ranks.size() != SIZE) fen4_error("placement needs 14 ranks separated by '/'");
    const std::string colours = "rbygd", types = " PNBRQK";
    for (int row = 0; row < SIZE; ++row) {
        long long col = 0;
        for (const std::string& cell : split(ranks[std::size_t(row)], ',', false)) {
            if (all_digits(cell)) {
                long long run = digits_value(cell);
                if (run == 0) fen4_error("a rank has an empty run of 0");
                col += run;
                if (col > 1000) col = 1000;
                continue;
            }
            if (col >= SIZE) fen4_error("a rank has more than 14 files");
            int sq = row * SIZE + int(col);
            bool on_board = playable(row, int(col));
            if (cell == "x") {
                if (on_board) fen4_error("a playable square is marked as a corner 'x'");
            } else if (cell.size() == 2 && colours.find(cell[0]) != std::string::npos && cell[1] != ' ' &&
                       types.find(cell[1]) != std::string::npos) {
                if (!on_board) fen4_error("a piece stands on a removed corner square");
                s.squares[std::size_t(sq)] = std::uint8_t(int(colours.find(cell[0])) << 3 | int(types.find(cell[1])));
            } else {
                fen4_error("unknown piece '" + cell + "' (colour r/b/y/g/d + K/Q/R/B/N/P)");
            }
            ++col;
        }
        if (col != SIZE)
            fen4_error("rank " + std::to_string(SIZE - row) + " accounts for " + std::to_string(col) +
                       " files, not 14");
    }
    int kings[4] = {0, 0, 0, 0};
    for (int sq = 0; sq < SQUARES; ++sq) {
        int code = s.squares[std::size_t(sq)], colour = code >> 3;
        if (code && colour < 4) {
            if (!s.live[colour]) fen4_error("a live piece of an eliminated player");
            if ((code & 7) == KING && ++kings[colour] > 1) fen4_error("a player has two kings");
        }
    }
    const char* names[4] = {"Red", "Blue", "Yellow", "Green"};
    for (int c = 0; c < 4; ++c)
        if (s.live[c] && !kings[c])
            fen4_error(std::string("has no ") + names[c] + " king but " + names[c] + " is not eliminated");
    if (!s.live[s.turn]) fen4_error("the move goes to an eliminated player");
    for (auto& [key, value] : extras) {
        if (key != "enPassant") continue;
        if (!value.is_tuple || value.items.size() != 4) fen4_error("enPassant must hold 4 entries");
        for (int c = 0; c < 4; ++c) {
            const auto& entry = value.items[std::size_t(c)];
            std::string entry_text;
            if (std::holds_alternative<long long>(entry)) {
                if (std::get<long long>(entry) == 0) continue;  // falsy, as in Python
                entry_text = std::to_string(std::get<long long>(entry));
            } else {
                entry_text = std::get<std::string>(entry);
                if (entry_text.empty()) continue;
            }
            std::vector<std::string> parts = split(entry_text, ':', false);
            if (parts.size() != 2) fen4_error("enPassant entry '" + entry_text + "' is not skipped:landing");
            try {
                s.ep_skipped[c] = parse_square4(parts[0]);
                s.ep_landing[c] = parse_square4(parts[1]);
            } catch (const std::invalid_argument& error) {
                fen4_error("enPassant entry '" + entry_text + "': " + error.what());
            }
        }
    }
    return s;
}

}  // namespace chess_envs::four
