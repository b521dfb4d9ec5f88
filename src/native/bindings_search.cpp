// Python bindings of the native search (search.hpp): one tree and one search class per game, and
// the evaluation cache they share. chess_envs/search/mcts.py is the Python face of these classes.
#include <algorithm>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "buffers.hpp"
#include "four_player_game.hpp"
#include "game.hpp"
#include "search.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace chess_envs;
using namespace chess_envs::bindings;
using namespace chess_envs::search;

namespace {

using buffers::Array;
using buffers::exact;
template <class T>
using Matrix = nb::ndarray<const T, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

// A search's settings from keyword arguments, by the names of Config::settings (None for an
// optional one leaves it unset); an unknown name is a TypeError, a value out of its range a ValueError.
Config config_of(const nb::kwargs& settings) {
    Config config;
    for (auto [key, value] : settings) {
        const std::string name = nb::cast<std::string>(key);
        const auto& rows = Config::settings();
        auto row = std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return name == r.name; });
        if (row == rows.end()) throw nb::type_error(("unknown search setting '" + name + "'").c_str());
        if (row->present) config.*row->present = !value.is_none();
        if (row->present && value.is_none()) continue;
        try {
            if (row->real) config.*row->real = nb::cast<double>(value);
            else config.*row->whole = nb::cast<int>(value);
        } catch (const nb::cast_error&) {
            throw nb::type_error(("search setting '" + name + "' must be " + (row->real ? "a number" : "an integer") +
                                  ", got " + nb::cast<std::string>(nb::repr(value)))
                                     .c_str());
        }
    }
    config.check();
    return config;
}

// Config::settings as {name: (default, low, high)}: what tests/search/test_settings.py compares with
// chess_envs/search/settings.py's table.
nb::dict search_settings() {
    const Config defaults;
    nb::dict table;
    for (const auto& row : Config::settings()) {
        const bool unset = row.present && !(defaults.*row.present);
        nb::object value = unset      ? nb::none()
                           : row.real ? nb::object(nb::float_(defaults.get(row)))
                                      : nb::object(nb::int_(defaults.*row.whole));
        table[row.name] = nb::make_tuple(value, row.low, row.high);
    }
    return table;
}

// A search as Python holds it: while it holds trees (search.hpp's phases) it also holds their
// Python objects, so `del tree` mid-search cannot free a tree the search still points to; the trees
// keep their games alive in turn (keep_alive). Destroying the search aborts it first.
template <class G>
struct BoundSearch : Search<G> {
    using Search<G>::Search;
    ~BoundSearch() { this->abort(); }

    std::vector<nb::object> held;
    std::size_t held_version = 0;

    void sync_held() {
        if (held_version == this->members_version()) return;
        std::vector<nb::object> objects;
        for (Tree<G>* tree : this->members()) objects.push_back(nb::find(tree));
        held.swap(objects);
        held_version = this->members_version();
    }
};

// The planes buffer [rows, *observation_shape] of a wave, float32 or uint8, used as it is.
template <class G>
std::pair<Planes, std::size_t> planes_of(const Search<G>& s, nb::handle planes, Array<float>& floats,
                                         Array<std::uint8_t>& bytes) {
    Planes out;
    std::size_t size = 0, rows = 0;
    if (nb::try_cast(planes, floats, false)) {
        out.floats = floats.data();
        size = floats.size();
        rows = floats.ndim() ? floats.shape(0) : 0;
    } else if (nb::try_cast(planes, bytes, false)) {
        out.bytes = bytes.data();
        size = bytes.size();
        rows = bytes.ndim() ? bytes.shape(0) : 0;
    } else {
        throw nb::type_error(
            ("planes must be a writable C-contiguous float32 or uint8 numpy array, got " + buffers::describe(planes))
                .c_str());
    }
    if (rows == 0 || size != rows * s.planes_size())
        throw std::invalid_argument("the planes buffer must be [rows, *observation_shape] with rows >= 1");
    return {out, rows};
}

// A call that may change which trees the search holds, with the Python references synced after it
// whether it returns or throws.
template <class G, class F>
auto synced(BoundSearch<G>& s, F call) {
    try {
        auto result = call();
        s.sync_held();
        return result;
    } catch (...) {
        s.sync_held();
        throw;
    }
}

template <class G>
void bind_search_for(nb::module_& m, const char* tree_name, const char* search_name) {
    using T = Tree<G>;
    using S = BoundSearch<G>;
    nb::class_<T>(m, tree_name,
                  "One game's search tree; it keeps its game alive and walks it with apply/undo during a search.")
        .def(nb::init<G*>(), "game"_a, nb::keep_alive<1, 2>())
        .def_prop_ro("root", [](const T& t) { return t.root(); })
        .def_prop_ro("node_count", &T::node_count)
        .def_prop_ro("root_size", [](const T& t) { return t.has_root() ? t.node(t.root()).count : -1; })
        .def_prop_ro("at_root", &T::at_root, "Whether the game is still at the tree's root position.")
        .def_prop_ro(
            "forced",
            [](const T& t) -> nb::object { return t.forced >= 0 ? nb::object(nb::int_(t.forced)) : nb::none(); },
            "The root's forced win the last search's mate probe found (its action), else None.")
        .def_prop_ro(
            "forced_plies", [](const T& t) { return t.forced_plies; }, "Plies to mate along `forced`.")
        .def_prop_ro(
            "budget", [](const T& t) { return t.remaining; },
            "Simulations left to the tree in the search under way (after begin(): its budget less the probe's cost).")
        .def_prop_ro(
            "in_search", [](const T& t) { return t.owner() != nullptr; }, "Whether a search holds the tree.")
        .def("reroot", &T::reroot, "action"_a,
             "After `action` was played on the game: keep its subtree as the tree if the game is there, else start "
             "afresh.")
        .def("clear", &T::clear)
        .def(
            "node",
            [](const T& t, int i) {
                if (i < 0 || std::size_t(i) >= t.node_count()) throw std::out_of_range("no such node");
                const Node& n = t.node(i);
                std::size_t a = std::size_t(n.first), count = std::size_t(n.count);
                return nb::make_tuple(n.player, n.terminal, n.proven, n.depth, n.n,
                                      owned(n.value.data(), n.value.size()), owned(n.proof.data(), n.proof.size()),
                                      owned(t.action.data() + a, count), owned(t.prior.data() + a, count),
                                      owned(t.visits.data() + a, count), owned(t.values.data() + a, count),
                                      owned(t.child.data() + a, count), n.has_logits);
            },
            "index"_a,
            "(player, terminal, proven, depth, n, value, proof, actions, priors, visits, values, children, has_logits)")
        .def(
            "root_visits",
            [](const T& t) {
                const Node& n = S::current_root(t);
                return nb::make_tuple(owned(t.action.data() + n.first, std::size_t(n.count)),
                                      owned(t.visits.data() + n.first, std::size_t(n.count)));
            },
            "(legal actions, visit counts) at the root");

    nb::class_<S>(m, search_name,
                  "Batched PUCT search over trees of one game, a wave at a time. Not thread-safe: one search, its "
                  "trees and their games serve one thread (another search is refused their trees: InUseError).")
        .def(
            "__init__",
            [](S* self, int num_players, std::shared_ptr<Cache> cache, int planes_size, int num_actions,
               const nb::kwargs& settings) {
                new (self) S(config_of(settings), num_players, std::move(cache), planes_size, num_actions);
            },
            "num_players"_a, "cache"_a, "planes_size"_a, "num_actions"_a, "settings"_a,
            "A search of `num_players`; `settings` by name, as `Config::settings` lists them "
            "(chess_envs.search.settings "
            "declares each): those not given keep their defaults.")
        .def(
            "expand_roots",
            [](S& s, const std::vector<T*>& trees, int num_actions, nb::handle planes) {
                if (num_actions != s.num_actions())
                    throw std::invalid_argument("num_actions is " + std::to_string(num_actions) + ", the search's is " +
                                                std::to_string(s.num_actions()));
                Array<float> floats;
                Array<std::uint8_t> bytes;
                auto [buffer, rows] = planes_of(s, planes, floats, bytes);
                return synced(s, [&] { return s.expand_roots(trees, buffer, rows); });
            },
            "trees"_a, "num_actions"_a, "planes"_a,
            "Roots for trees without one (or whose game moved); returns the rows of planes to evaluate.")
        .def(
            "begin",
            [](S& s, const std::vector<T*>& trees, int budget) {
                return synced(s, [&] { return s.begin(trees, budget); });
            },
            "trees"_a, "budget"_a, "Give the trees with a live root `budget` simulations.")
        .def(
            "collect",
            [](S& s, nb::handle planes) {
                Array<float> floats;
                Array<std::uint8_t> bytes;
                auto [buffer, rows] = planes_of(s, planes, floats, bytes);
                return synced(s, [&] { return s.collect(buffer, rows); });
            },
            "planes"_a, "One wave; returns the rows of planes to evaluate, or -1 when the search is over.")
        .def(
            "receive",
            [](S& s, Matrix<float> logits, Matrix<float> values) {
                synced(s, [&] {
                    s.receive(logits.data(), logits.shape(0), logits.shape(1), values.data(), values.shape(0),
                              values.shape(1));
                    return 0;
                });
            },
            "logits"_a, "values"_a)
        .def(
            "abort",
            [](S& s) {
                s.abort();
                s.sync_held();
            },
            "Take back a wave still waiting for outputs and let every tree and game go.")
        .def("take_simulations", [](S& s) { return s.simulations_done.exchange(0); })
        .def(
            "mix_noise",
            [](const S& s, T& t, Array<const double> noise, double fraction) {
                s.mix_noise(t, noise.data(), noise.size(), fraction);
            },
            "tree"_a, "noise"_a, "fraction"_a)
        .def(
            "start_gumbel",
            [](const S& s, T& t, Array<const double> noise, int budget, int considered) {
                s.start_gumbel(t, noise.data(), noise.size(), budget, considered);
            },
            "tree"_a, "noise"_a, "budget"_a, "considered"_a)
        .def(
            "improved_policy", [](const S& s, T& t, bool gumbel) { return owned(s.improved_policy(t, gumbel)); },
            "tree"_a, "gumbel"_a)
        .def(
            "choose", [](const S& s, T& t, bool greedy) { return s.choose(t, greedy); }, "tree"_a, "greedy"_a)
        .def(
            "answers",
            [](const S& s, const std::vector<T*>& trees, const std::vector<bool>& greedy, bool gumbel) {
                if (greedy.size() != trees.size())
                    throw std::invalid_argument("answers() takes one greedy flag per tree");
                std::vector<std::int64_t> actions, choices, offsets{0};
                std::vector<double> visits, values;
                std::vector<float> policy, root_values, scores;
                for (std::size_t i = 0; i < trees.size(); ++i) {
                    if (trees[i] == nullptr) throw std::invalid_argument("answers() takes trees, not None");
                    const T& t = *trees[i];
                    std::vector<double> weights = s.improved_policy(*trees[i], gumbel);
                    std::int64_t choice = s.choose(*trees[i], greedy[i]);
                    const Node& n = S::current_root(t);
                    auto a = std::size_t(n.first), b = a + std::size_t(n.count);
                    double total = 0, sum = 0;
                    for (std::size_t e = a; e < b; ++e) total += t.visits[e], sum += t.values[e];
                    double root = total > 0 ? sum / total : n.value[std::size_t(n.player)];
                    double score = std::nan("");  // the edge's mean value, once Python has sampled it
                    for (std::size_t e = a; e < b; ++e)
                        if (t.action[e] == choice) score = t.visits[e] > 0 ? t.values[e] / t.visits[e] : root;
                    if (t.forced >= 0) root = score = 1.0;  // a proven win for the mover
                    actions.insert(actions.end(), t.action.begin() + std::ptrdiff_t(a),
                                   t.action.begin() + std::ptrdiff_t(b));
                    visits.insert(visits.end(), t.visits.begin() + std::ptrdiff_t(a),
                                  t.visits.begin() + std::ptrdiff_t(b));
                    values.insert(values.end(), t.values.begin() + std::ptrdiff_t(a),
                                  t.values.begin() + std::ptrdiff_t(b));
                    policy.insert(policy.end(), weights.begin(), weights.end());
                    offsets.push_back(std::int64_t(actions.size()));
                    choices.push_back(choice);
                    root_values.push_back(float(root));
                    scores.push_back(float(score));
                }
                return nb::make_tuple(owned(actions), owned(visits), owned(values), owned(policy), owned(offsets),
                                      owned(choices), owned(root_values), owned(scores));
            },
            "trees"_a, "greedy"_a, "gumbel"_a,
            "What a search call answers for its trees, in one call, the trees' root edges end to end: (legal "
            "actions, visit counts, value sums for each root's mover, improved_policy(gumbel) as float32, offsets "
            "[trees + 1] where each tree's edges start, choose(greedy) per tree (-1: sample by visits), the root "
            "value per tree for its mover (float32; the network's before any visit), the chosen edge's mean value "
            "(float32; NaN where the choice is -1)).");
}

// The mate probe on its own (tests and benchmarks): every legal move of the game's mover that
// forces a win within `moves` moves, with the moves the probe played.
template <class G>
void bind_forced_wins(nb::module_& m) {
    m.def(
        "forced_wins",
        [](G& game, int moves, long budget) {
            if (moves < 1 || moves > Config::MAX_MATE_DEPTH)
                throw std::invalid_argument("moves must be in [1, " + std::to_string(Config::MAX_MATE_DEPTH) + "]");
            if (budget < 0) throw std::invalid_argument("the budget must be >= 0");
            if (game.holds().held()) throw InUse("in use: a search holds this game");
            std::vector<std::int64_t> actions(std::size_t(game.num_moves()) + 1), wins;
            std::vector<std::uint32_t> codes(actions.size());
            int count = game.legal_with_moves(actions.data(), codes.data());
            MateProbe<G> probe(game, budget);
            for (int i = 0; i < count; ++i)
                if (probe.wins_with(codes[std::size_t(i)], moves)) wins.push_back(actions[std::size_t(i)]);
            return nb::make_tuple(wins, probe.plays(), probe.plays() < budget);
        },
        "game"_a, "moves"_a, "budget"_a,
        "(the actions that force a win within `moves` moves, moves played, whether the budget sufficed: "
        "False means some move may win unseen): the search's root mate probe, on its own.");
}

}  // namespace

void chess_envs::bindings::bind_search(nb::module_& m) {
    nb::class_<Cache>(m, "EvaluationCache", "Network outputs of positions seen before, LRU, bounded in bytes.")
        .def(nb::init<double>(), "megabytes"_a)
        .def_prop_ro("bytes", &Cache::bytes)
        .def_prop_ro("capacity", &Cache::capacity)
        .def("__len__", &Cache::size)
        .def("clear", &Cache::clear)
        .def_ro_static("OVERHEAD", &Cache::OVERHEAD);
    m.attr("MATE_PLAYS_PER_SIMULATION") = Config::PLAYS_PER_SIMULATION;
    m.def("search_settings", &search_settings,
          "The native search's settings as {name: (default, low, high)} (src/native/search.hpp, Config::settings).");
    bind_forced_wins<Game<StandardChess>>(m);
    bind_forced_wins<Game<LosAlamos>>(m);
    bind_search_for<Game<StandardChess>>(m, "ChessSearchTree", "ChessSearch");
    bind_search_for<Game<LosAlamos>>(m, "LosAlamosSearchTree", "LosAlamosSearch");
    bind_search_for<four::FourGame>(m, "FourPlayerSearchTree", "FourPlayerSearch");
}
