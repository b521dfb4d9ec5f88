// Python bindings of the native core (module chess_envs._core): one game class per variant with
// numpy buffers in and out, and the batched vector environments.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "buffers.hpp"
#include "fen4.hpp"
#include "four_player_game.hpp"
#include "game.hpp"
#include "in_use.hpp"
#include "vector_env.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace chess_envs;
using buffers::Array;
using buffers::exact;

namespace {

// Array inputs that are copied (tables) may be converted from other dtypes.
template <class T>
T* checked(Array<T>& array, std::size_t size, const char* what) {
    if (array.size() != size)
        throw std::invalid_argument(std::string(what) + " buffer has " + std::to_string(array.size()) +
                                    " elements, expected " + std::to_string(size));
    return array.data();
}

// The UTF-8 text of a Python str; strings that have none (lone surrogates) are a ValueError, not a TypeError.
std::string text_of(nb::handle object, const char* what) {
    if (!PyUnicode_Check(object.ptr())) throw nb::type_error((std::string(what) + " must be a string").c_str());
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(object.ptr(), &size);
    if (!data) {
        PyErr_Clear();
        throw std::invalid_argument(std::string(what) + " is not valid text (it has lone surrogates)");
    }
    return std::string(data, std::size_t(size));
}

// The moves Python may play on a game, refused while a search holds it (it walks the game between waves).
template <class G>
bool apply_move(G& game, int action) {
    game.holds().check_free("apply a move to");
    return game.apply(action);
}
template <class G>
void undo_move(G& game) {
    game.holds().check_free("undo a move of");
    game.undo();
}

template <class V>
void bind_game(nb::module_& m, const char* name) {
    using G = Game<V>;
    nb::class_<G>(m, name)
        .def(
            "__init__",
            [](G* self, nb::handle fen, int history, bool flag, std::shared_ptr<const ActionTable> table) {
                GameOptions options;
                options.history = history;
                options.claim_draws = flag;
                options.adjudicate_insufficient_material = flag;
                new (self) G(text_of(fen, "fen"), options, std::move(table));
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
        .def_prop_ro("key", &G::key, "The key of the game's line, every position since its start (a search tree's root identity).")
        .def("num_legal", [](G& g) { return g.termination() ? 0 : g.legal().size; })
        .def("legal_actions",
             [](G& g) {
                 std::int64_t buffer[MAX_MOVES];
                 int n = g.legal_actions(buffer);
                 auto* data = new std::int64_t[std::size_t(n)];
                 std::copy(buffer, buffer + n, data);
                 nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<std::int64_t*>(p); });
                 return Array<std::int64_t>(data, {std::size_t(n)}, owner);
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
                 // Piece code per square: 0 empty, else (1 + piece) for white and -(1 + piece) for black (piece 0..5 = p n b r q k).
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

// The vector env methods shared by every game; `E` is VectorEnv<G>. Each call claims the env
// before it reads its arguments (a second thread is refused, InUse) and releases the GIL only
// while the core steps the games, with every buffer checked and held.
template <class E, class C>
void bind_vector_methods(C& cls) {
    cls.def(
           "reset",
           [](E& e, std::uint64_t seed, bool seeded, nb::handle obs, nb::handle mask) {
               auto lock = e.claim();
               auto o = exact<float>(obs, e.observation_size() * e.size(), "observation");
               auto k = exact<std::uint8_t>(mask, std::size_t(e.num_actions()) * e.size(), "mask");
               nb::gil_scoped_release release;
               e.reset_all(seed, seeded, o.data(), k.data());
           },
           "seed"_a, "seeded"_a, "observation"_a, "mask"_a)
        .def(
            "step",
            [](E& e, nb::handle actions, nb::handle obs, nb::handle mask, nb::handle rewards, nb::handle terminated,
               nb::handle truncated, nb::handle termination) {
                auto lock = e.claim();
                std::size_t n = e.size();
                auto a = exact<const std::int64_t>(actions, n, "actions");
                auto o = exact<float>(obs, e.observation_size() * n, "observation");
                auto k = exact<std::uint8_t>(mask, std::size_t(e.num_actions()) * n, "mask");
                auto r = exact<float>(rewards, n, "rewards");
                auto te = exact<bool>(terminated, n, "terminated");
                auto tr = exact<bool>(truncated, n, "truncated");
                auto why = exact<std::int8_t>(termination, n, "termination");
                nb::gil_scoped_release release;
                e.step(a.data(), o.data(), k.data(), r.data(), te.data(), tr.data(), why.data());
            },
            "actions"_a, "observation"_a, "mask"_a, "rewards"_a, "terminated"_a, "truncated"_a, "termination"_a)
        .def("reset_done",
             [](E& e, nb::handle obs, nb::handle mask) {
                 auto lock = e.claim();
                 auto o = exact<float>(obs, e.observation_size() * e.size(), "observation");
                 auto k = exact<std::uint8_t>(mask, std::size_t(e.num_actions()) * e.size(), "mask");
                 return e.reset_done(o.data(), k.data());
             })
        .def("random_actions",
             [](E& e, nb::handle out) {
                 auto lock = e.claim();
                 auto a = exact<std::int64_t>(out, e.size(), "actions");
                 e.random_actions(a.data());
             })
        .def_prop_ro("num_envs", [](const E& e) { return int(e.size()); });
}

template <class V>
void bind_vector(nb::module_& m, const char* name) {
    using E = VectorEnv<Game<V>>;
    auto cls = nb::class_<E>(m, name).def(
        "__init__",
        [](E* self, int num_envs, nb::handle fen, int history, bool flag, std::shared_ptr<const ActionTable> table,
           bool random_opponent, int agent_seat, int max_plies, int threads) {
            GameOptions options;
            options.history = history;
            options.claim_draws = flag;
            options.adjudicate_insufficient_material = flag;
            Game<V> prototype(text_of(fen, "fen"), options, std::move(table));
            new (self) E(num_envs, prototype, 2, random_opponent, agent_seat, max_plies, threads);
        },
        "num_envs"_a, "fen"_a, "history"_a, "flag"_a, "table"_a, "random_opponent"_a, "agent_seat"_a, "max_plies"_a,
        "threads"_a);
    cls.def(
        "fen",
        [](E& e, int i) {
            auto lock = e.claim();
            return e.game(e.checked_index(i)).fen();
        },
        "index"_a);
    bind_vector_methods<E>(cls);
}

// A four-player board from the fields of the Python reference board (which parsed the FEN4).
four::FourBoard make_four_board(const std::vector<int>& squares, int turn, const std::vector<bool>& live,
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
        auto square = [](int k) { return k >= 0 && k < four::SQUARES && four::playable(k / four::SIZE, k % four::SIZE); };
        if (!none && !(square(skipped) && square(landing)))
            throw std::invalid_argument("en passant of colour " + std::to_string(c) +
                                        " must be (-1, -1) or two playable squares (skipped, landing), got (" +
                                        std::to_string(skipped) + ", " + std::to_string(landing) + ")");
        state.ep_skipped[c] = en_passant[std::size_t(2 * c)];
        state.ep_landing[c] = en_passant[std::size_t(2 * c + 1)];
    }
    state.turn = turn;
    state.halfmove_clock = halfmove_clock;
    return four::FourBoard(state, teams);
}

}  // namespace

void bind_search(nb::module_& m);  // search_bindings.cpp

NB_MODULE(_core, m) {
    m.doc() = "The native rules engines, encoders and vector environments of chess_envs.";
    // The action tables are cached in Python module globals for the life of the process, and
    // processes that exit while they are alive made nanobind print false "leaked instance" reports.
    nb::set_leak_warnings(false);
    nb::exception<InUse>(m, "InUseError", PyExc_RuntimeError);
    nb::class_<ActionTable>(m, "ActionTable")
        .def(
            "__init__",
            [](ActionTable* self, int squares, int num_actions, Array<std::int32_t> table) {
                if (squares != 36 && squares != 64) throw std::invalid_argument("squares must be 36 or 64");
                if (num_actions < 1 || num_actions > (1 << 20)) throw std::invalid_argument("num_actions must be in [1, 2**20]");
                std::size_t expected = std::size_t(2) * std::size_t(squares) * std::size_t(squares) * 5;
                const std::int32_t* data = checked(table, expected, "action table");
                for (std::size_t i = 0; i < expected; ++i)
                    if (data[i] < -1 || data[i] >= num_actions)
                        throw std::invalid_argument("action table entry out of range");
                new (self) ActionTable{squares, num_actions, std::vector<std::int32_t>(data, data + expected)};
            },
            "squares"_a, "num_actions"_a, "table"_a)
        .def_ro("num_actions", &ActionTable::num_actions);
    std::vector<std::string> names(std::begin(TERMINATION_NAMES), std::end(TERMINATION_NAMES));
    m.attr("TERMINATIONS") = names;
    bind_game<StandardChess>(m, "ChessGame");
    bind_game<LosAlamos>(m, "LosAlamosGame");
    using four::FourBoard;
    nb::class_<FourBoard>(m, "FourPlayerBoard")
        .def(
            "__init__",
            [](FourBoard* self, const std::vector<int>& squares, int turn, const std::vector<bool>& live,
               const std::vector<bool>& kingside, const std::vector<bool>& queenside, const std::vector<int>& points,
               int halfmove_clock, const std::vector<int>& en_passant, bool teams) {
                new (self) FourBoard(make_four_board(squares, turn, live, kingside, queenside, points, halfmove_clock,
                                                     en_passant, teams));
            },
            "squares"_a, "turn"_a, "live"_a, "kingside"_a, "queenside"_a, "points"_a, "halfmove_clock"_a,
            "en_passant"_a, "teams"_a)
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
        .def("in_check", [](const FourBoard& b, int colour) {
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
        .def("snapshot", [](const FourBoard& b) {
            // (squares, turn, live, points, kingside, queenside, halfmove clock, game over, winning team or -1)
            const four::FourState& s = b.state();
            std::vector<int> squares(s.squares.begin(), s.squares.end());
            std::vector<bool> live(s.live, s.live + 4), kingside(s.castling[0], s.castling[0] + 4),
                queenside(s.castling[1], s.castling[1] + 4);
            std::vector<int> points(s.points, s.points + 4);
            return std::make_tuple(squares, s.turn, live, points, kingside, queenside, s.halfmove_clock, s.game_over,
                                   s.winner_team);
        });
    using four::FourActionTable;
    using four::FourGame;
    nb::class_<FourActionTable>(m, "FourPlayerActionTable")
        .def("__init__", [](FourActionTable* self, Array<std::int32_t> table) {
            std::size_t expected = std::size_t(4) * four::SQUARES * four::SQUARES * 4;
            const std::int32_t* data = checked(table, expected, "four-player action table");
            for (std::size_t i = 0; i < expected; ++i)
                if (data[i] < -1 || data[i] >= four::SQUARES * 109) throw std::invalid_argument("action table entry out of range");
            new (self) FourActionTable{std::vector<std::int32_t>(data, data + expected)};
        });
    nb::class_<FourGame>(m, "FourPlayerGame")
        .def(
            "__init__",
            [](FourGame* self, const FourBoard& board, int history, bool claim_win, std::shared_ptr<const FourActionTable> table) {
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
        .def("final_points", [](FourGame& g) { return std::vector<int>(g.final_points().begin(), g.final_points().end()); })
        .def("apply", &apply_move<FourGame>, "action"_a)
        .def("undo", &undo_move<FourGame>)
        .def_prop_ro("key", &FourGame::key, "The key of the game's line, every position since its start (a search tree's root identity).")
        .def("num_legal", &FourGame::num_legal)
        .def("legal_actions",
             [](FourGame& g) {
                 std::vector<std::int64_t> buffer(std::size_t(g.num_legal()));
                 g.legal_actions(buffer.data());
                 auto* data = new std::int64_t[buffer.size()];
                 std::copy(buffer.begin(), buffer.end(), data);
                 nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<std::int64_t*>(p); });
                 return Array<std::int64_t>(data, {buffer.size()}, owner);
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
        .def("snapshot", [](const FourGame& g) {
            const four::FourState& s = g.board().state();
            std::vector<int> squares(s.squares.begin(), s.squares.end());
            std::vector<bool> live(s.live, s.live + 4), kingside(s.castling[0], s.castling[0] + 4),
                queenside(s.castling[1], s.castling[1] + 4);
            std::vector<int> points(s.points, s.points + 4);
            std::vector<int> en_passant;
            for (int c = 0; c < 4; ++c) {
                en_passant.push_back(s.ep_skipped[c]);
                en_passant.push_back(s.ep_landing[c]);
            }
            return std::make_tuple(squares, s.turn, live, points, kingside, queenside, s.halfmove_clock, s.game_over,
                                   s.winner_team, en_passant);
        })
        .def("moves_played", [](const FourGame& g) { return g.moves_played(); })
        .def("code_at", [](const FourGame& g, int square) {
            if (square < 0 || square >= four::SQUARES) throw std::invalid_argument("square out of range");
            return int(g.board().state().squares[std::size_t(square)]);
        })
        .def("in_check", [](const FourGame& g, int colour) { return g.board().in_check(colour & 3); });
    using FourVector = VectorEnv<FourGame>;
    auto four_vector = nb::class_<FourVector>(m, "FourPlayerVector")
                           .def(
                               "__init__",
                               [](FourVector* self, int num_envs, const FourGame& prototype, bool random_opponent,
                                  int agent_seat, int max_plies, int threads) {
                                   new (self) FourVector(num_envs, prototype, 4, random_opponent, agent_seat, max_plies,
                                                         threads);
                               },
                               "num_envs"_a, "prototype"_a, "random_opponent"_a, "agent_seat"_a, "max_plies"_a,
                               "threads"_a);
    four_vector.def(
        "game",
        [](FourVector& e, int i) {
            auto lock = e.claim();
            return e.game(e.checked_index(i));
        },
        "index"_a, "A copy of game `index`.");
    bind_vector_methods<FourVector>(four_vector);
    bind_vector<StandardChess>(m, "ChessVector");
    bind_vector<LosAlamos>(m, "LosAlamosVector");
    bind_search(m);
}
