// Python bindings of the vector environments: many games of one variant stepped together, with
// every buffer checked and held and the GIL released while the core steps the games.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>

#include "bindings.hpp"
#include "buffers.hpp"
#include "four_player_game.hpp"
#include "game.hpp"
#include "vector_env.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace chess_envs;
using namespace chess_envs::bindings;
using buffers::exact;

namespace {

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
            Game<V> prototype(text_of(fen, "fen"), GameOptions{history, flag, flag}, std::move(table));
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

}  // namespace

void chess_envs::bindings::bind_vectors(nb::module_& m) {
    using four::FourGame;
    using FourVector = VectorEnv<FourGame>;
    auto four_vector =
        nb::class_<FourVector>(m, "FourPlayerVector")
            .def(
                "__init__",
                [](FourVector* self, int num_envs, const FourGame& prototype, bool random_opponent, int agent_seat,
                   int max_plies, int threads) {
                    new (self) FourVector(num_envs, prototype, 4, random_opponent, agent_seat, max_plies, threads);
                },
                "num_envs"_a, "prototype"_a, "random_opponent"_a, "agent_seat"_a, "max_plies"_a, "threads"_a);
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
}
