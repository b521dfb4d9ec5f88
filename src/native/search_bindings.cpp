// Python bindings of the native search (search.hpp): one tree and one search class per game, and
// the evaluation cache they share. agents/alphazero/mcts.py is the Python face of these classes.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "four_player.hpp"
#include "game.hpp"
#include "search.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace chess_envs;
using namespace chess_envs::search;

namespace {

template <class T>
using Array = nb::ndarray<T, nb::numpy, nb::c_contig, nb::device::cpu>;
template <class T>
using Matrix = nb::ndarray<const T, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

template <class T>
Array<T> owned(std::vector<T> values) {
    auto* data = new T[values.size()];
    std::copy(values.begin(), values.end(), data);
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<T*>(p); });
    return Array<T>(data, {values.size()}, owner);
}

// The rows of a planes buffer [rows, C, H, W] (float32 or uint8) for positions of `size` values each.
template <class G, class T>
std::size_t rows_of(const Search<G>& s, Array<T>& planes) {
    if (planes.ndim() < 1 || planes.size() != planes.shape(0) * s.planes_size())
        throw std::invalid_argument("the planes buffer must be [rows, *observation_shape]");
    return planes.shape(0);
}

inline Planes planes_of(Array<float>& a) { return Planes{a.data(), nullptr}; }
inline Planes planes_of(Array<std::uint8_t>& a) { return Planes{nullptr, a.data()}; }

template <class G>
void check_trees(const Search<G>& s, const std::vector<Tree<G>*>& trees, int num_actions) {
    for (Tree<G>* t : trees) {
        if (!t) throw std::invalid_argument("trees must not be None");
        if (std::size_t(t->game().num_planes()) * G::SQUARES_PER_PLANE != s.planes_size() ||
            t->game().num_actions() != num_actions)
            throw std::invalid_argument("a tree's game has another observation shape or action encoding than the search");
    }
}

template <class G>
void bind_search_for(nb::module_& m, const char* tree_name, const char* search_name) {
    using T = Tree<G>;
    using S = Search<G>;
    nb::class_<T>(m, tree_name, "One game's search tree; the game is walked with apply/undo and must outlive it.")
        .def(nb::init<G*>(), "game"_a, nb::keep_alive<1, 2>())
        .def_prop_ro("root", [](const T& t) { return t.root(); })
        .def_prop_ro("node_count", &T::node_count)
        .def_prop_ro("root_size", [](const T& t) { return t.has_root() ? t.node(t.root()).count : -1; })
        .def("reroot", &T::reroot, "action"_a, "Keep the subtree below `action` (just played) as the tree.")
        .def("clear", &T::clear)
        .def(
            "node",
            [](const T& t, int i) {
                if (i < 0 || std::size_t(i) >= t.node_count()) throw std::out_of_range("no such node");
                const Node& n = t.node(i);
                std::size_t a = std::size_t(n.first), b = a + std::size_t(n.count);
                std::vector<double> value(n.value.begin(), n.value.end()), proof(n.proof.begin(), n.proof.end());
                return nb::make_tuple(
                    n.player, n.terminal, n.proven, n.depth, n.n, owned(value), owned(proof),
                    owned(std::vector<std::int64_t>(t.action.begin() + std::ptrdiff_t(a), t.action.begin() + std::ptrdiff_t(b))),
                    owned(std::vector<double>(t.prior.begin() + std::ptrdiff_t(a), t.prior.begin() + std::ptrdiff_t(b))),
                    owned(std::vector<double>(t.visits.begin() + std::ptrdiff_t(a), t.visits.begin() + std::ptrdiff_t(b))),
                    owned(std::vector<double>(t.values.begin() + std::ptrdiff_t(a), t.values.begin() + std::ptrdiff_t(b))),
                    owned(std::vector<std::int32_t>(t.child.begin() + std::ptrdiff_t(a), t.child.begin() + std::ptrdiff_t(b))),
                    n.has_logits);
            },
            "index"_a,
            "(player, terminal, proven, depth, n, value, proof, actions, priors, visits, values, children, has_logits)")
        .def(
            "root_visits",
            [](const T& t) {
                if (!t.has_root()) throw std::runtime_error("search() has not run on this tree");
                const Node& n = t.node(t.root());
                auto a = std::ptrdiff_t(n.first), b = a + n.count;
                return nb::make_tuple(owned(std::vector<std::int64_t>(t.action.begin() + a, t.action.begin() + b)),
                                      owned(std::vector<double>(t.visits.begin() + a, t.visits.begin() + b)));
            },
            "(legal actions, visit counts) at the root");

    nb::class_<S>(m, search_name, "Batched PUCT search over trees of one game, a wave at a time.")
        .def(
            "__init__",
            [](S* self, int num_players, std::shared_ptr<Cache> cache, int planes_size, int num_actions,
               double c_puct_init, double c_puct_base, double fpu_reduction, bool has_root_fpu, double root_fpu,
               double virtual_loss, int leaves_per_tree, double gumbel_c_visit, double gumbel_c_scale, int threads) {
                if (!cache) throw std::invalid_argument("cache must not be None");
                Config c;
                c.c_puct_init = c_puct_init;
                c.c_puct_base = c_puct_base;
                c.fpu_reduction = fpu_reduction;
                c.has_root_fpu = has_root_fpu;
                c.root_fpu = root_fpu;
                c.virtual_loss = virtual_loss;
                c.leaves_per_tree = leaves_per_tree;
                c.gumbel_c_visit = gumbel_c_visit;
                c.gumbel_c_scale = gumbel_c_scale;
                c.threads = threads;
                new (self) S(c, num_players, std::move(cache), planes_size, num_actions);
            },
            "num_players"_a, "cache"_a, "planes_size"_a, "num_actions"_a, "c_puct_init"_a, "c_puct_base"_a,
            "fpu_reduction"_a, "has_root_fpu"_a, "root_fpu"_a, "virtual_loss"_a, "leaves_per_tree"_a,
            "gumbel_c_visit"_a, "gumbel_c_scale"_a, "threads"_a = 1)
        .def(
            "expand_roots",
            [](S& s, const std::vector<T*>& trees, int num_actions, Array<float> planes) {
                check_trees(s, trees, num_actions);
                return s.expand_roots(trees, planes_of(planes), rows_of(s, planes));
            },
            "trees"_a, "num_actions"_a, "planes"_a, "Roots for trees without one; returns the rows of planes to evaluate.")
        .def(
            "expand_roots",
            [](S& s, const std::vector<T*>& trees, int num_actions, Array<std::uint8_t> planes) {
                check_trees(s, trees, num_actions);
                return s.expand_roots(trees, planes_of(planes), rows_of(s, planes));
            },
            "trees"_a, "num_actions"_a, "planes"_a)
        .def("begin", &S::begin, "trees"_a, "budget"_a, "Give the trees with a live root `budget` simulations.")
        .def(
            "collect", [](S& s, Array<float> planes) { return s.collect(planes_of(planes), rows_of(s, planes)); },
            "planes"_a, "One wave; returns the rows of planes to evaluate, or -1 when the search is over.")
        .def(
            "collect", [](S& s, Array<std::uint8_t> planes) { return s.collect(planes_of(planes), rows_of(s, planes)); },
            "planes"_a)
        .def(
            "receive",
            [](S& s, Matrix<float> logits, Matrix<float> values) {
                s.receive(logits.data(), logits.shape(0), logits.shape(1), values.data(), values.shape(0), values.shape(1));
            },
            "logits"_a, "values"_a)
        .def("take_simulations",
             [](S& s) {
                 return s.simulations_done.exchange(0);
             })
        .def(
            "mix_noise",
            [](S&, T& t, Array<const double> noise, double fraction) {
                S::mix_noise(t, noise.data(), noise.size(), fraction);
            },
            "tree"_a, "noise"_a, "fraction"_a)
        .def(
            "start_gumbel",
            [](const S& s, T& t, Array<const double> noise, int budget, int considered) {
                if (considered < 1) throw std::invalid_argument("gumbel_considered must be >= 1");
                s.start_gumbel(t, noise.data(), noise.size(), budget, considered);
            },
            "tree"_a, "noise"_a, "budget"_a, "considered"_a)
        .def("improved_policy", [](const S& s, T& t, bool gumbel) { return owned(s.improved_policy(t, gumbel)); },
             "tree"_a, "gumbel"_a)
        .def("choose", &S::choose, "tree"_a, "greedy"_a);
}

}  // namespace

void bind_search(nb::module_& m) {
    nb::class_<Cache>(m, "EvaluationCache", "Network outputs of positions seen before, LRU, bounded in bytes.")
        .def(nb::init<double>(), "megabytes"_a)
        .def_prop_ro("bytes", &Cache::bytes)
        .def_prop_ro("capacity", &Cache::capacity)
        .def("__len__", &Cache::size)
        .def("clear", &Cache::clear)
        .def_ro_static("OVERHEAD", &Cache::OVERHEAD);
    bind_search_for<Game<StandardChess>>(m, "ChessSearchTree", "ChessSearch");
    bind_search_for<Game<LosAlamos>>(m, "LosAlamosSearchTree", "LosAlamosSearch");
    bind_search_for<four::FourGame>(m, "FourPlayerSearchTree", "FourPlayerSearch");
}
