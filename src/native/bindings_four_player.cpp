// Python bindings of four-player chess: the native board (for the differential tests and FEN4), the
// action table that maps its moves to actions, and the game with numpy buffers in and out.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "buffers.hpp"
#include "fen4.hpp"
#include "four_player_game.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace chess_envs;
using namespace chess_envs::bindings;
using buffers::Array;
using buffers::exact;

namespace {

// FourPlayerBoard(...): a four-player board from the fields of the Python reference board (which parsed the FEN4).
void init_four_board(four::FourBoard* self, const std::vector<int>& squares, int turn, const std::vector<bool>& live,
                     const std::vector<bool>& kingside, const std::vector<bool>& queenside,
                     const std::vector<int>& points, int halfmove_clock, const std::vector<int>& en_passant,
                     bool teams) {
    if (squares.size() != four::SQUARES || live.size() != 4 || kingside.size() != 4 || queenside.size() != 4 ||
        points.size() != 4 || en_passant.size() != 8)
        throw std::invalid_argument("four-player board fields have the wrong sizes");
    if (turn < 0 || turn > 3 || halfmove_clock < 0) throw std::invalid_argument("bad turn or halfmove clock");
    four::FourState state;
    for (int s = 0; s < four::SQUARES; ++s) {
        int code = squares[std::size_t(s)];
        bool on_board = four::playable(s / four::SIZE, s % four::SIZE);
        if (code < 0 || code > 39 || (code && ((code & 7) == 0 || !on_board)))
            throw std::invalid_argument("bad piece code " + std::to_string(code) + " on square " + std::to_string(s));
        state.squares[std::size_t(s)] = std::uint8_t(code);
    }
    for (int c = 0; c < 4; ++c) {
        state.live[c] = live[std::size_t(c)];
        state.castling[0][c] = kingside[std::size_t(c)];
        state.castling[1][c] = queenside[std::size_t(c)];
        state.points[c] = points[std::size_t(c)];
        int skipped = en_passant[std::size_t(2 * c)], landing = en_passant[std::size_t(2 * c + 1)];
        bool none = skipped == -1 && landing == -1;
        auto square = [](int k) {
            return k >= 0 && k < four::SQUARES && four::playable(k / four::SIZE, k % four::SIZE);
        };
        if (!none && !(square(skipped) && square(landing)))
            throw std::invalid_argument("en passant of colour " + std::to_string(c) +
                                        " must be (-1, -1) or two playable squares (skipped, landing), got (" +
                                        std::to_string(skipped) + ", " + std::to_string(landing) + ")");
        state.ep_skipped[c] = en_passant[std::size_t(2 * c)];
        state.ep_landing[c] = en_passant[std::size_t(2 * c + 1)];
    }
    state.turn = turn;
    state.halfmove_clock = halfmove_clock;
    new (self) four::FourBoard(state, teams);
}

// (squares, turn, live, points, kingside, queenside, halfmove clock, game over, winning team or -1)
auto snapshot(const four::FourState& s) {
    std::vector<bool> live(s.live, s.live + 4), kingside(s.castling[0], s.castling[0] + 4),
        queenside(s.castling[1], s.castling[1] + 4);
    return std::make_tuple(std::vector<int>(s.squares.begin(), s.squares.end()), s.turn, live,
                           std::vector<int>(s.points, s.points + 4), kingside, queenside, s.halfmove_clock, s.game_over,
                           s.winner_team);
}

}  // namespace

void chess_envs::bindings::bind_four_player(nb::module_& m) {
    using four::FourBoard;
    nb::class_<FourBoard>(m, "FourPlayerBoard")
        .def("__init__", &init_four_board, "squares"_a, "turn"_a, "live"_a, "kingside"_a, "queenside"_a, "points"_a,
             "halfmove_clock"_a, "en_passant"_a, "teams"_a)
        .def_static(
            "from_fen4",
            [](nb::handle text, bool teams) { return FourBoard(four::parse_fen4(text_of(text, "FEN4")), teams); },
            "fen4"_a, "teams"_a, "The position of a FEN4 (stripped of surrounding whitespace).")
        .def("settle", &FourBoard::settle)
        .def("legal_moves", [](FourBoard& b) { return b.legal_moves(); })
        .def(
            "push",
            [](FourBoard& b, int move) {
                const std::vector<int>& moves = b.legal_moves();
                if (std::find(moves.begin(), moves.end(), move) == moves.end())
                    throw std::invalid_argument("move " + std::to_string(move) + " is not legal here");
                b.push(move);
            },
            "move"_a)
        .def("pop", &FourBoard::pop)
        .def("in_check",
             [](const FourBoard& b, int colour) {
                 if (colour < 0 || colour > 3) throw std::invalid_argument("colour must be 0..3");
                 return b.in_check(colour);
             })
        .def(
            "perft",
            [](const FourBoard& b, int depth) {
                if (depth < 0) throw std::invalid_argument("depth must be >= 0");
                FourBoard board = b;  // walked without the GIL: the caller's board stays untouched
                nb::gil_scoped_release release;
                return board.perft(depth);
            },
            "depth"_a)
        .def("snapshot", [](const FourBoard& b) { return snapshot(b.state()); });
    using four::FourActionTable;
    using four::FourGame;
    nb::class_<FourActionTable>(m, "FourPlayerActionTable")
        .def("__init__", [](FourActionTable* self, Array<std::int32_t> table) {
            std::size_t expected = std::size_t(4) * four::SQUARES * four::SQUARES * 4;
            const std::int32_t* data = checked(table, expected, "four-player action table");
            for (std::size_t i = 0; i < expected; ++i)
                if (data[i] < -1 || data[i] >= four::SQUARES * 109)
                    throw std::invalid_argument("action table entry out of range");
            new (self) FourActionTable{std::vector<std::int32_t>(data, data + expected)};
        });
    nb::class_<FourGame>(m, "FourPlayerGame")
        .def(
            "__init__",
            [](FourGame* self, const FourBoard& board, int history, bool claim_win,
               std::shared_ptr<const FourActionTable> table) {
                new (self) FourGame(board, history, claim_win, std::move(table));
            },
            "board"_a, "history"_a, "claim_win"_a, "table"_a)
        .def("copy", [](const FourGame& g) { return FourGame(g); })
        .def_prop_ro("side", [](const FourGame& g) { return g.board().state().turn; })
        .def_prop_ro("plies", &FourGame::plies)
        .def_prop_ro("num_planes", &FourGame::num_planes)
        .def("repetitions", &FourGame::repetitions)
        .def("termination", &FourGame::termination)
        .def("winner_team", &FourGame::winner_team)
        .def("final_points",
             [](FourGame& g) { return std::vector<int>(g.final_points().begin(), g.final_points().end()); })
        .def("apply", &apply_move<FourGame>, "action"_a)
        .def("undo", &undo_move<FourGame>)
        .def_prop_ro("key", &FourGame::key,
                     "The key of the game's line, every position since its start (a search tree's root identity).")
        .def("num_legal", &FourGame::num_legal)
        .def("legal_actions",
             [](FourGame& g) {
                 std::vector<std::int64_t> buffer(std::size_t(g.num_legal()));
                 g.legal_actions(buffer.data());
                 return owned(buffer);
             })
        .def("legal_mask_bool",
             [](FourGame& g, nb::handle out) {
                 auto mask = exact<bool>(out, std::size_t(four::SQUARES) * 109, "mask");
                 g.legal_mask(reinterpret_cast<std::uint8_t*>(mask.data()));
             })
        .def("legal_moves",
             [](FourGame& g) {
                 // (action, move) of each legal move, whatever the draw rules say.
                 const std::vector<int>& moves = g.legal();
                 std::vector<std::pair<int, int>> out;
                 for (std::size_t i = 0; i < moves.size(); ++i) out.emplace_back(g.actions()[i], moves[i]);
                 return out;
             })
        .def("observation",
             [](const FourGame& g, int player, nb::handle out) {
                 if (player < 0 || player > 3) throw std::invalid_argument("player must be 0, 1, 2 or 3");
                 auto planes = exact<float>(out, std::size_t(g.num_planes()) * four::SQUARES, "observation");
                 g.observation(player, planes.data());
             })
        .def("snapshot",
             [](const FourGame& g) {
                 // The board's snapshot, then the en passant squares (skipped, landing) of each colour.
                 const four::FourState& s = g.board().state();
                 std::vector<int> en_passant;
                 for (int c = 0; c < 4; ++c) {
                     en_passant.push_back(s.ep_skipped[c]);
                     en_passant.push_back(s.ep_landing[c]);
                 }
                 return std::tuple_cat(snapshot(s), std::make_tuple(std::move(en_passant)));
             })
        .def("moves_played", [](const FourGame& g) { return g.moves_played(); })
        .def("code_at",
             [](const FourGame& g, int square) {
                 if (square < 0 || square >= four::SQUARES) throw std::invalid_argument("square out of range");
                 return int(g.board().state().squares[std::size_t(square)]);
             })
        .def("in_check", [](const FourGame& g, int colour) { return g.board().in_check(colour & 3); });
}
