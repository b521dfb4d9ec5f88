// Python bindings of the two-player games (chess and Los Alamos): the action table that maps their
// moves to actions, and one game class per variant with numpy buffers in and out.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "buffers.hpp"
#include "game.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace chess_envs;
using namespace chess_envs::bindings;
using buffers::Array;
using buffers::exact;

namespace {

template <class V>
void bind_game(nb::module_& m, const char* name) {
    using G = Game<V>;
    nb::class_<G>(m, name)
        .def(
            "__init__",
            [](G* self, nb::handle fen, int history, bool flag, std::shared_ptr<const ActionTable> table) {
                new (self) G(text_of(fen, "fen"), GameOptions{history, flag, flag}, std::move(table));
            },
            "fen"_a, "history"_a, "flag"_a, "table"_a,
            "A game from `fen`; `flag` is claim_draws (chess) or adjudicate_insufficient_material (Los Alamos).")
        .def("copy", [](const G& g) { return G(g); })
        .def("fen", &G::fen)
        .def(
            "reset",
            [](G& g, nb::handle fen) {
                g.holds().check_free("reset");
                g.reset(text_of(fen, "fen"));
            },
            "fen"_a)
        .def_prop_ro("side", [](const G& g) { return g.position().side; })
        .def_prop_ro("halfmove_clock", [](const G& g) { return g.position().halfmove_clock; })
        .def_prop_ro("fullmove_number", [](const G& g) { return g.position().fullmove_number; })
        .def_prop_ro("castling", [](const G& g) { return g.position().castling; })
        .def_prop_ro("plies", &G::plies)
        .def_prop_ro("num_planes", &G::num_planes)
        .def("repetitions", &G::repetitions)
        .def("in_check", [](const G& g) { return g.position().in_check(); })
        .def("termination", &G::termination)
        .def("winner", &G::winner)
        .def("apply", &apply_move<G>, "action"_a)
        .def("undo", &undo_move<G>)
        .def_prop_ro("key", &G::key,
                     "The key of the game's line, every position since its start (a search tree's root identity).")
        .def("num_legal", [](G& g) { return g.termination() ? 0 : g.legal().size; })
        .def("legal_actions",
             [](G& g) {
                 std::int64_t buffer[MAX_MOVES];
                 return owned(buffer, std::size_t(g.legal_actions(buffer)));
             })
        .def("legal_mask",
             [](G& g, nb::handle out) {
                 auto mask = exact<std::uint8_t>(out, std::size_t(g.num_actions()), "mask");
                 g.legal_mask(mask.data());
             })
        .def("legal_mask_bool",
             [](G& g, nb::handle out) {
                 auto mask = exact<bool>(out, std::size_t(g.num_actions()), "mask");
                 g.legal_mask(reinterpret_cast<std::uint8_t*>(mask.data()));
             })
        .def("observation",
             [](const G& g, int player, nb::handle out) {
                 if (player != 0 && player != 1) throw std::invalid_argument("player must be 0 or 1");
                 auto planes = exact<float>(out, std::size_t(g.num_planes()) * V::N * V::N, "observation");
                 g.observation(player, planes.data());
             })
        .def("material",
             [](const G& g, nb::handle out) {
                 auto values = exact<float>(out, 2, "material");
                 g.material(values.data());
             })
        .def("legal_moves",
             [](G& g) {
                 // (action, from, to, promotion piece or 0) of each legal move, whatever the draw rules say.
                 const MoveList& list = g.legal();
                 std::vector<std::tuple<int, int, int, int>> moves;
                 for (int i = 0; i < list.size; ++i) {
                     Move mv = list.moves[i];
                     moves.emplace_back(g.action_of(i), move_from(mv), move_to(mv), move_promotion(mv));
                 }
                 return moves;
             })
        .def("squares",
             [](const G& g) {
                 // Piece code per square: 0 empty, else (1 + piece) for white and -(1 + piece) for black
                 // (piece 0..5 = p n b r q k).
                 std::vector<int> codes(std::size_t(V::N * V::N));
                 for (int s = 0; s < V::N * V::N; ++s) {
                     int code = g.position().mailbox[s];
                     codes[std::size_t(s)] = code < 0 ? 0 : (code / 6 ? -(1 + code % 6) : 1 + code % 6);
                 }
                 return codes;
             })
        .def("moves_played",
             [](const G& g) {
                 std::vector<std::tuple<int, int, int>> moves;
                 for (Move mv : g.moves_played()) moves.emplace_back(move_from(mv), move_to(mv), move_promotion(mv));
                 return moves;
             })
        .def(
            "perft",
            [](G& g, int depth) {
                if (depth < 0) throw std::invalid_argument("depth must be >= 0");
                Position<V> pos = g.position();
                nb::gil_scoped_release release;
                return pos.perft(depth);
            },
            "depth"_a);
}

}  // namespace

void chess_envs::bindings::bind_games(nb::module_& m) {
    nb::class_<ActionTable>(m, "ActionTable")
        .def(
            "__init__",
            [](ActionTable* self, int squares, int num_actions, Array<std::int32_t> table) {
                if (squares != 36 && squares != 64) throw std::invalid_argument("squares must be 36 or 64");
                if (num_actions < 1 || num_actions > (1 << 20))
                    throw std::invalid_argument("num_actions must be in [1, 2**20]");
                std::size_t expected = std::size_t(2) * std::size_t(squares) * std::size_t(squares) * 5;
                const std::int32_t* data = checked(table, expected, "action table");
                for (std::size_t i = 0; i < expected; ++i)
                    if (data[i] < -1 || data[i] >= num_actions)
                        throw std::invalid_argument("action table entry out of range");
                new (self) ActionTable{squares, num_actions, std::vector<std::int32_t>(data, data + expected)};
            },
            "squares"_a, "num_actions"_a, "table"_a)
        .def_ro("num_actions", &ActionTable::num_actions);
    bind_game<StandardChess>(m, "ChessGame");
    bind_game<LosAlamos>(m, "LosAlamosGame");
}
