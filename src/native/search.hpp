// Batched PUCT Monte-Carlo tree search over many games, the native twin of
// chess_envs/search/python_mcts.py (which stays the executable reference): the same selection,
// virtual loss, MCTS-solver, Gumbel sequential halving and max-n backup, step for step, so both give
// the same visit counts for the same evaluator.
//
// Python drives the waves: collect() descends every live tree up to leaves_per_tree times and
// writes the planes of the leaves that need the network into one contiguous buffer; Python runs
// the network once on it; receive() turns the logits and values into nodes and backs them up.
// Random numbers (Dirichlet noise, Gumbel noise, temperature sampling) come from Python's
// generator, so a seeded search is the same in both implementations.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "geometry.hpp"
#include "in_use.hpp"
#include "mate.hpp"
#ifdef _OPENMP
#include <omp.h>
#endif

namespace chess_envs {
namespace search {

struct Config {
    double c_puct_init = 1.25;
    double c_puct_base = 19652.0;
    double fpu_reduction = 0.25;
    bool has_root_fpu = true;
    double root_fpu = 1.0;
    double virtual_loss = 1.0;
    int leaves_per_tree = 8;
    double gumbel_c_visit = 50.0;
    double gumbel_c_scale = 1.0;
    int threads = 1;     // trees descended in parallel during collect()
    int mate_depth = 3;  // two-player games: the root's forced wins within this many moves are searched for first

    static constexpr int MAX_MATE_DEPTH = 5;
    // What the mate probe costs: this many moves played count as one simulation of the budget, and
    // it may spend at most a quarter of the budget. On this project's CPU a simulation of the
    // shipped networks at 200 simulations takes as long as 2,466 (Los Alamos) to 4,992 (chess)
    // probe moves (recipes/mate_probe.py measures it): 2,000 overcharges the probe.
    static constexpr long PLAYS_PER_SIMULATION = 2000;
    static constexpr long MATE_GROWTH = 20;  // a probe one move deeper is expected to cost this many times more

    // A setting the binding sets by name, with its bounds: a real or a whole number, and for an
    // optional one the flag saying it is set. chess_envs/search/settings.py declares the same rows
    // (with docs); tests/search/test_settings.py compares the two tables.
    struct Setting {
        const char* name;
        double low, high;
        double Config::* real;
        int Config::* whole;
        bool Config::* present;
    };
    static const std::array<Setting, 10>& settings() {
        static const std::array<Setting, 10> rows{{
            {"c_puct_init", 0, 100, &Config::c_puct_init, nullptr, nullptr},
            {"c_puct_base", 1, 1e9, &Config::c_puct_base, nullptr, nullptr},
            {"fpu_reduction", -2, 2, &Config::fpu_reduction, nullptr, nullptr},
            {"root_fpu", -1, 1, &Config::root_fpu, nullptr, &Config::has_root_fpu},
            {"virtual_loss", 0, 100, &Config::virtual_loss, nullptr, nullptr},
            {"leaves_per_tree", 1, 4096, nullptr, &Config::leaves_per_tree, nullptr},
            {"gumbel_c_visit", 0, 1e6, &Config::gumbel_c_visit, nullptr, nullptr},
            {"gumbel_c_scale", 0, 1e3, &Config::gumbel_c_scale, nullptr, nullptr},
            {"threads", 1, 256, nullptr, &Config::threads, nullptr},
            {"mate_depth", 0, MAX_MATE_DEPTH, nullptr, &Config::mate_depth, nullptr},
        }};
        return rows;
    }
    double get(const Setting& row) const { return row.real ? this->*row.real : double(this->*row.whole); }

    // Every setting finite and in its range (a NaN would break the orderings the search sorts by).
    void check() const {
        for (const Setting& row : settings()) {
            const double x = get(row);
            if (row.present && !(this->*row.present)) continue;
            if (!(x >= row.low && x <= row.high))  // also refuses NaN
            {
                std::ostringstream message;
                message << row.name << " must be in [" << row.low << ", " << row.high << "], got " << x;
                throw std::invalid_argument(message.str());
            }
        }
    }
};

constexpr int MAX_SEATS = 4;
using Values = std::array<double, MAX_SEATS>;

// 128 bits of the planes and legal actions of a position: the key of its cached network output.
struct Key {
    std::uint64_t a = 0, b = 0;
    bool operator==(const Key& o) const { return a == o.a && b == o.b; }
};
struct KeyHash {
    std::size_t operator()(const Key& k) const { return std::size_t(k.a ^ (k.b * 0x9E3779B97F4A7C15ULL)); }
};

// Two independent multiply-rotate lanes over 8-byte words, finished with splitmix.
inline Key hash_bytes(const void* data, std::size_t size, Key seed) {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    std::uint64_t a = seed.a ^ 0x243F6A8885A308D3ULL, b = seed.b ^ 0x13198A2E03707344ULL;
    std::size_t i = 0;
    for (; i + 8 <= size; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        a = ((a ^ w) * 0x9E3779B97F4A7C15ULL);
        a = (a << 31) | (a >> 33);
        b = ((b + w) * 0xC2B2AE3D27D4EB4FULL);
        b = (b << 29) | (b >> 35);
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, p + i, size - i);
    return Key{mix64(a ^ tail ^ size), mix64(b + tail + 0x9E3779B97F4A7C15ULL * size)};
}

// Network outputs of positions seen before, least recently used out first, bounded in bytes. An
// entry is the logits of the legal moves and the values: counted as their floats plus OVERHEAD.
// Entries live in a pool of their own: small long-lived blocks taken from the general heap would
// fill the holes the network's short-lived buffers leave, and the heap (the resident memory) would
// grow many times faster than the cache counts.
class Cache {
  public:
    static constexpr std::size_t OVERHEAD = 128;  // key, list and map nodes, vector header

    explicit Cache(double megabytes) {
        if (!(megabytes >= 0) || !(megabytes <= 1e9))
            throw std::invalid_argument("cache_mb must be a number in [0, 1e9]");
        capacity_ = std::size_t(megabytes * 1'000'000);
    }
    std::size_t capacity() const { return capacity_; }
    std::size_t bytes() const { return bytes_; }
    std::size_t size() const { return map_.size(); }
    bool enabled() const { return capacity_ > 0; }

    struct Entry {
        Key key;
        std::pmr::vector<float> logits;  // legal moves', in the node's order
        std::pmr::vector<float> values;  // the network's, mover first
    };

    const Entry* get(const Key& key) {
        auto it = map_.find(key);
        if (it == map_.end()) return nullptr;
        order_.splice(order_.end(), order_, it->second);
        return &*it->second;
    }

    void put(const Key& key, const std::vector<float>& logits, const float* values, std::size_t value_count) {
        if (!capacity_ || map_.count(key)) return;
        order_.push_back(Entry{key, std::pmr::vector<float>(logits.begin(), logits.end(), &pool_),
                               std::pmr::vector<float>(values, values + value_count, &pool_)});
        map_.emplace(key, std::prev(order_.end()));
        bytes_ += cost(order_.back());
        while (bytes_ > capacity_) {
            bytes_ -= cost(order_.front());
            map_.erase(order_.front().key);
            order_.pop_front();
        }
    }

    void clear() {
        map_.clear();  // the pool keeps its blocks (the map its buckets) for the entries to come
        order_.clear();
        bytes_ = 0;
    }

  private:
    static std::size_t cost(const Entry& e) { return 4 * (e.logits.size() + e.values.size()) + OVERHEAD; }
    std::size_t capacity_ = 0, bytes_ = 0;
    std::pmr::unsynchronized_pool_resource pool_;  // declared first: destroyed after the containers
    std::pmr::list<Entry> order_{&pool_};
    std::pmr::unordered_map<Key, std::pmr::list<Entry>::iterator, KeyHash> map_{&pool_};
};

// The wave's planes buffer: float32 observations, or (bytes) the replay buffer's uint8 format.
struct Planes {
    float* floats = nullptr;
    std::uint8_t* bytes = nullptr;
};

// A position in the tree. Its edges (one per legal action) live in the tree's edge arrays.
struct Node {
    int player = 0;
    bool terminal = false;
    bool has_logits = false;
    bool proven = false;
    int depth = 0;  // plies to the end along the proof, once proven
    int n = 0;      // simulations backed up through this node
    int first = 0, count = 0;
    std::uint64_t key = 0;                // the game's line key at this node (the root's tells whether the game moved)
    double visit_sum = 0, value_sum = 0;  // over the node's edges, kept up to date for select()
    Values value{};                       // per seat: the network's estimate, or the game's returns when terminal
    Values proof{};                       // per seat: the exact value once proven
};

// One game's search tree. The game is borrowed (Python's state owns it, the binding keeps it alive)
// and is walked with apply/undo; the tree is rebuilt compactly below the played move on reroot
// (tree reuse). The tree knows its root (the key of the game's line there and its ply count), so
// a game moved under it is noticed: a search rebuilds the tree, a question about the last search fails.
template <class G>
class Tree {
  public:
    explicit Tree(G* game) : game_(game) {
        if (!game) throw std::invalid_argument("a search tree needs a game");
    }

    G& game() { return *game_; }
    bool has_root() const { return root_ >= 0; }
    const Node& node(int i) const { return nodes_[std::size_t(i)]; }
    int root() const { return root_; }

    // Whether the game is still at the tree's root position.
    bool at_root() const {
        return root_ >= 0 && nodes_[std::size_t(root_)].key == game_->key() && root_plies_ == game_->plies();
    }

    // The search that holds the tree (nullptr: none); it must not be rerooted or cleared meanwhile.
    const void* owner() const { return owner_; }
    void set_owner(const void* owner) { owner_ = owner; }
    void check_free(const char* action) const {
        if (owner_)
            throw InUse(std::string("in use: cannot ") + action +
                        " a tree while a search holds it; let the search finish or cancel it first");
    }

    // Edge arrays (index node.first + k for the k-th legal action of a node).
    std::vector<std::int64_t> action;
    std::vector<std::uint32_t> move;  // the game's own code of each action's move
    std::vector<double> prior, visits, values;
    std::vector<std::int32_t> child;

    // Gumbel root search state.
    bool gumbel_active = false;
    std::vector<double> gumbel;
    std::vector<int> candidates;
    int phase_visits = 0;
    double phase_target = 0;
    int remaining = 0;

    // The root's proven win found by the mate probe of the last begin(): its action (-1: none) and
    // the plies to mate along it. The search then spends no simulation and chooses it.
    std::int64_t forced = -1;
    int forced_plies = 0;

    int add_node(const Node& proto, const std::int64_t* actions, const std::uint32_t* moves, int count,
                 const float* logits) {
        Node node = proto;
        node.first = int(action.size());
        node.count = count;
        node.has_logits = logits != nullptr;
        action.insert(action.end(), actions, actions + count);
        move.insert(move.end(), moves, moves + count);
        prior.resize(action.size(), 0.0);
        visits.resize(action.size(), 0.0);
        values.resize(action.size(), 0.0);
        child.resize(action.size(), -1);
        if (logits && count) {
            double top = logits[0];
            for (int k = 1; k < count; ++k) top = std::max(top, double(logits[k]));
            double sum = 0;
            for (int k = 0; k < count; ++k)
                sum += (prior[std::size_t(node.first + k)] = std::exp(double(logits[k]) - top));
            for (int k = 0; k < count; ++k) prior[std::size_t(node.first + k)] /= sum;
        }
        if (node.terminal) {
            node.proven = true;
            node.proof = node.value;
        }
        nodes_.push_back(node);
        return int(nodes_.size()) - 1;
    }
    Node& mutable_node(int i) { return nodes_[std::size_t(i)]; }
    // Node i (built at the game's current position) becomes the root.
    void set_root(int i) {
        root_ = i;
        root_plies_ = game_->plies();
    }

    // After `played` was played on the game: keep the subtree below the root's edge to it as the new,
    // compacted tree, if the game is now at that child; otherwise start afresh.
    void reroot(std::int64_t played) {
        check_free("reroot");
        int keep = -1;
        if (root_ >= 0 && game_->plies() == root_plies_ + 1) {
            const Node& r = nodes_[std::size_t(root_)];
            for (int k = 0; k < r.count; ++k)
                if (action[std::size_t(r.first + k)] == played) keep = child[std::size_t(r.first + k)];
            if (keep >= 0 && nodes_[std::size_t(keep)].key != game_->key()) keep = -1;
        }
        Tree fresh(game_);
        if (keep >= 0) fresh.root_ = fresh.copy_subtree(*this, keep);
        replace_nodes(fresh);
    }

    void clear() {
        check_free("clear");
        forget();
    }

    // Drop every node (the search's rebuild of a tree whose game moved).
    void forget() {
        Tree fresh(game_);
        replace_nodes(fresh);
    }

    std::size_t node_count() const { return nodes_.size(); }

  private:
    void replace_nodes(Tree& fresh) {
        gumbel_active = false;
        forced = -1;
        forced_plies = 0;
        gumbel.clear();
        candidates.clear();
        nodes_ = std::move(fresh.nodes_);
        action = std::move(fresh.action);
        move = std::move(fresh.move);
        prior = std::move(fresh.prior);
        visits = std::move(fresh.visits);
        values = std::move(fresh.values);
        child = std::move(fresh.child);
        root_ = fresh.root_;
        root_plies_ = root_ >= 0 ? game_->plies() : -1;
    }

    int copy_subtree(const Tree& from, int source) {
        // Breadth first; children are copied after their parent's edges exist.
        std::vector<std::pair<int, int>> queue{{source, -1}};  // (node in `from`, edge here to fill)
        int first_index = -1;
        for (std::size_t q = 0; q < queue.size(); ++q) {
            auto [src, edge] = queue[q];
            const Node& n = from.nodes_[std::size_t(src)];
            Node copy = n;
            copy.first = int(action.size());
            for (int k = 0; k < n.count; ++k) {
                std::size_t e = std::size_t(n.first + k);
                action.push_back(from.action[e]);
                move.push_back(from.move[e]);
                prior.push_back(from.prior[e]);
                visits.push_back(from.visits[e]);
                values.push_back(from.values[e]);
                child.push_back(-1);
            }
            nodes_.push_back(copy);
            int here = int(nodes_.size()) - 1;
            if (edge >= 0) child[std::size_t(edge)] = here;
            if (first_index < 0) first_index = here;
            for (int k = 0; k < n.count; ++k) {
                int c = from.child[std::size_t(n.first + k)];
                if (c >= 0) queue.emplace_back(c, copy.first + k);
            }
        }
        return first_index;
    }

    G* game_;
    std::vector<Node> nodes_;
    int root_ = -1;
    int root_plies_ = -1;  // the game's plies() at the root
    const void* owner_ = nullptr;
};

// The search over a batch of trees of one game type.
//
// Calls go in phases: expand_roots() [receive()], then begin(), then collect() and receive() in turn
// until collect() returns -1. From expand_roots() or begin() until then the search holds its trees
// (no reroot or clear) and their games (no move applied or undone from outside); a wave's outputs
// must be received before anything else; abort() gives everything back as it was before the wave.
template <class G>
class Search {
  public:
    Search(const Config& config, int num_players, std::shared_ptr<Cache> cache, int planes_size, int num_actions)
        : config_(config), players_(num_players), cache_(std::move(cache)), planes_size_(std::size_t(planes_size)),
          num_actions_(num_actions) {
        if (num_players < 2 || num_players > MAX_SEATS) throw std::invalid_argument("num_players must be 2..4");
        if (!cache_) throw std::invalid_argument("cache must not be None");
        if (planes_size < 1 || num_actions < 1) throw std::invalid_argument("planes_size and num_actions must be >= 1");
        config.check();
        shards_.resize(std::size_t(config.threads));
    }
    Search(const Search&) = delete;
    Search& operator=(const Search&) = delete;
    ~Search() { abort(); }

    // The trees the search holds now, and a number that changes whenever that set does.
    const std::vector<Tree<G>*>& members() const { return members_; }
    std::size_t members_version() const { return members_version_; }

    // Gives back everything: a wave whose outputs were not received is taken back (its virtual loss
    // reverted), the trees and games are released. The trees keep what earlier waves backed up.
    void abort() {
        if (awaiting_) {
            for (const Shard& shard : shards_)
                for (const Pending& p : shard.pending)
                    revert_virtual_loss(*p.tree, shard.paths.data() + p.first_step, p.steps);
            clear_wave();
            awaiting_ = false;
        }
        end_search();
    }

    int num_actions() const { return num_actions_; }
    std::size_t planes_size() const { return planes_size_; }
    std::atomic<long long> simulations_done{0};

    // Root nodes for the trees that have none, or whose game moved since their root was made (those
    // are rebuilt): terminal or cached ones at once, the rest written into `planes` for the network.
    // Returns how many rows of `planes` to evaluate (then receive() them).
    int expand_roots(const std::vector<Tree<G>*>& trees, Planes planes, std::size_t rows) {
        require_no_wave("expand_roots");
        check_trees(trees);
        end_search();
        std::size_t needed = 0;
        for (Tree<G>* tree : trees) {
            if (tree->has_root() && !tree->at_root()) tree->forget();
            needed += !tree->has_root();
        }
        if (needed > rows)
            throw std::length_error("the planes buffer has " + std::to_string(rows) + " rows, expand_roots needs " +
                                    std::to_string(needed));
        start_wave(planes, rows);
        try {
            for (Tree<G>* tree : trees)
                if (!tree->has_root()) {
                    std::vector<std::pair<int, int>> path;
                    int leaf = make_leaf(*tree, shards_[0], path, -1, -1);
                    if (leaf >= 0) tree->set_root(leaf);
                }
        } catch (...) {
            clear_wave();
            throw;
        }
        int count = finish_wave();
        if (count) {
            for (Tree<G>* tree : trees) hold(tree);
            awaiting_ = true;
        }
        return count;
    }

    // Give every tree with a live root `budget` simulations; returns each tree's liveness. The trees'
    // roots must be at their games' positions (expand_roots() first). With mate_depth, the root's
    // forced wins are searched for first (probe_root): a tree with one found is not live, and what
    // the probe cost is taken from the tree's budget (its `remaining`).
    std::vector<bool> begin(const std::vector<Tree<G>*>& trees, int budget) {
        require_no_wave("begin");
        check_trees(trees);
        if (budget < 0) throw std::invalid_argument("the simulation budget must be >= 0");
        for (Tree<G>* tree : trees) {
            if (!tree->has_root()) throw std::invalid_argument("a tree has no root: call expand_roots() first");
            if (!tree->at_root())
                throw std::invalid_argument(
                    "a tree's game has moved since its root was made: call expand_roots() again");
        }
        end_search();
        std::vector<bool> flags;
        for (Tree<G>* tree : trees) {
            const Node& r = tree->node(tree->root());
            bool live = !r.terminal && r.count > 0;
            tree->gumbel_active = false;  // start_gumbel() turns it on for this search
            tree->forced = -1;
            tree->forced_plies = 0;
            tree->remaining = live ? budget : 0;
            if (live) tree->remaining -= int(probe_root(*tree, budget) / Config::PLAYS_PER_SIMULATION);
            const bool forced = tree->forced >= 0;
            live = live && !forced;
            flags.push_back(live);
            if (live || forced) hold(tree);  // a forced tree is held too, until its answer is read
            if (live) live_.push_back(tree);
            else tree->remaining = 0;
        }
        return flags;
    }

    // The mate probe at a live root (two-player games, mate_depth > 0): a win in 1, then 2, ... up
    // to mate_depth moves, among the root moves whose prior is not zero (a restricted root's);
    // sets the tree's `forced` on success. A depth is not tried when the one before it cost more
    // than a twentieth of what is left (each move deeper costs about the branching factor more).
    // Returns the moves it played.
    long probe_root(Tree<G>& tree, int budget) {
        if constexpr (!HasMateProbe<G>::value) {
            return 0;
        } else {
            if (config_.mate_depth == 0 || players_ != 2) return 0;
            const Node& r = tree.node(tree.root());
            const long cap = long(budget) * Config::PLAYS_PER_SIMULATION / 4;
            MateProbe<G> probe(tree.game(), cap);
            long last = 0;  // the plays before the depth being tried
            for (int n = 1; n <= config_.mate_depth && tree.forced < 0; ++n) {
                if (n > 1 && (probe.plays() - last) * Config::MATE_GROWTH > cap - probe.plays()) break;
                last = probe.plays();
                for (int k = 0; k < r.count; ++k) {
                    std::size_t e = std::size_t(r.first + k);
                    if (tree.prior[e] <= 0.0 || !probe.wins_with(tree.move[e], n)) continue;
                    tree.forced = tree.action[e];
                    tree.forced_plies = 2 * n - 1;
                    break;
                }
            }
            return probe.plays();
        }
    }

    // One wave: descend the live trees; returns the rows to evaluate, or -1 when every tree is done
    // (the search then lets its trees go). A wave that fails is taken back and ends the search.
    int collect(Planes planes, std::size_t rows) {
        require_no_wave("collect");
        live_.erase(std::remove_if(live_.begin(), live_.end(), [](Tree<G>* t) { return t->remaining <= 0; }),
                    live_.end());
        if (live_.empty()) {
            end_search();
            return -1;
        }
        std::size_t needed = 0;
        for (Tree<G>* tree : live_) {
            if (!tree->at_root()) {
                end_search();
                throw std::runtime_error("a tree's game moved during the search; the search is over");
            }
            needed += std::size_t(std::min(config_.leaves_per_tree, tree->remaining));
        }
        if (needed > rows)
            throw std::length_error("the planes buffer has " + std::to_string(rows) + " rows, this wave may need " +
                                    std::to_string(needed) + " (trees x leaves_per_tree)");
        start_wave(planes, rows);
        auto descend = [this](Tree<G>* tree, Shard& shard) {
            tree->remaining -= collect_tree(*tree, shard, std::min(config_.leaves_per_tree, tree->remaining));
        };
        std::exception_ptr error;
        if (!parallel()) {
            try {
                for (Tree<G>* tree : live_) descend(tree, shards_[0]);
            } catch (...) {
                error = std::current_exception();
            }
        } else {
            const int count = int(live_.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(config_.threads)
            for (int i = 0; i < count; ++i) {
                try {
                    descend(live_[std::size_t(i)], shards_[std::size_t(thread_index())]);
                } catch (...) {
#pragma omp critical(chess_envs_search_error)
                    if (!error) error = std::current_exception();
                }
            }
        }
        if (error) {
            awaiting_ = true;  // abort() takes back the leaves this wave queued
            abort();
            std::rethrow_exception(error);
        }
        int count = finish_wave();
        awaiting_ = count > 0;
        return count;
    }

    // The network's outputs for the rows of the last expand_roots() or collect(). Outputs of the
    // wrong shape, or not finite, are refused before anything changes (the wave still waits).
    void receive(const float* logits, std::size_t logit_rows, std::size_t logit_cols, const float* values,
                 std::size_t value_rows, std::size_t value_cols) {
        if (!awaiting_) throw std::logic_error("receive(): no wave is waiting for the network's outputs");
        std::size_t n = order_.size();
        if (logit_rows != n || value_rows != n)
            throw std::invalid_argument("the evaluator must give one row of logits and values per position: got " +
                                        std::to_string(logit_rows) + " and " + std::to_string(value_rows) + " for " +
                                        std::to_string(n));
        if (logit_cols != std::size_t(num_actions_))
            throw std::invalid_argument("the evaluator must give " + std::to_string(num_actions_) +
                                        " logits a position, got " + std::to_string(logit_cols));
        if (players_ == 2 ? value_cols < 1 : value_cols != std::size_t(players_))
            throw std::invalid_argument("the evaluator must give " + std::to_string(players_ == 2 ? 1 : players_) +
                                        " values a position, got " + std::to_string(value_cols));
        for (std::size_t i = 0; i < n; ++i) {
            const Shard& shard = shards_[std::size_t(order_[i].first)];
            const Pending& p = shard.pending[std::size_t(order_[i].second)];
            const std::int64_t* actions = shard.actions.data() + p.first_action;
            for (int k = 0; k < p.count; ++k)
                if (!std::isfinite(logits[i * logit_cols + std::size_t(actions[k])]))
                    throw std::invalid_argument(
                        "the evaluator gave a logit that is not finite for a legal move of row " + std::to_string(i));
            for (std::size_t v = 0; v < (players_ == 2 ? 1 : value_cols); ++v)
                if (!std::isfinite(values[i * value_cols + v]))
                    throw std::invalid_argument("the evaluator gave a value that is not finite in row " +
                                                std::to_string(i));
        }
        for (std::size_t i = 0; i < n; ++i) {
            const Shard& shard = shards_[std::size_t(order_[i].first)];
            const Pending& p = shard.pending[std::size_t(order_[i].second)];
            const float* row = logits + i * logit_cols;
            const float* value_row = values + i * value_cols;
            const std::int64_t* actions = shard.actions.data() + p.first_action;
            legal_.resize(std::size_t(p.count));
            for (std::size_t k = 0; k < legal_.size(); ++k) legal_[k] = row[actions[k]];
            if (p.keyed) cache_->put(p.key, legal_, value_row, value_cols);
            Node proto;
            proto.player = p.player;
            proto.key = p.position_key;
            proto.value = seat_values(p.player, value_row);
            Tree<G>& tree = *p.tree;
            int node = tree.add_node(proto, actions, shard.moves.data() + p.first_action, p.count, legal_.data());
            if (p.parent < 0) {
                tree.set_root(node);
            } else {
                tree.child[std::size_t(p.edge)] = node;
                backup(tree, shard.paths.data() + p.first_step, p.steps, tree.node(node).value);
            }
        }
        clear_wave();
        awaiting_ = false;
        if (live_.empty()) end_search();  // the roots of expand_roots()
    }

    // Root noise (drawn by Python): prior = (1 - fraction) * prior + fraction * noise.
    void mix_noise(Tree<G>& tree, const double* noise, std::size_t size, double fraction) const {
        const Node& r = searchable_root(tree, "mix noise into");
        if (size != std::size_t(r.count)) throw std::invalid_argument("noise must have one entry per root action");
        if (!(fraction >= 0 && fraction <= 1)) throw std::invalid_argument("the noise fraction must be in [0, 1]");
        check_finite(noise, size, "noise");
        for (int k = 0; k < r.count; ++k) {
            double& p = tree.prior[std::size_t(r.first + k)];
            p = (1 - fraction) * p + fraction * noise[k];
        }
    }

    void start_gumbel(Tree<G>& tree, const double* noise, std::size_t size, int budget, int considered_max) const {
        const Node& r = searchable_root(tree, "start a Gumbel search on");
        if (size != std::size_t(r.count))
            throw std::invalid_argument("gumbel noise must have one entry per root action");
        if (considered_max < 1) throw std::invalid_argument("gumbel_considered must be >= 1");
        if (budget < 0) throw std::invalid_argument("the simulation budget must be >= 0");
        check_finite(noise, size, "gumbel noise");
        tree.gumbel.assign(noise, noise + size);
        // A root move of zero prior (one a restricted root left out) is never a candidate.
        const bool bar_zero = any_prior(tree, r);
        int considered = std::min(considered_max, r.count);
        std::vector<double> scores(size);
        int allowed = 0;
        for (int k = 0; k < r.count; ++k) {
            const double p = tree.prior[std::size_t(r.first + k)];
            scores[std::size_t(k)] = bar_zero && p <= 0.0 ? -INFINITY : noise[k] + std::log(std::max(p, 1e-12));
            allowed += !bar_zero || p > 0.0;
        }
        considered = std::min(considered, allowed);
        std::vector<int> order(size);
        for (int k = 0; k < r.count; ++k) order[std::size_t(k)] = k;
        std::stable_sort(order.begin(), order.end(),
                         [&](int x, int y) { return scores[std::size_t(x)] > scores[std::size_t(y)]; });
        order.resize(std::size_t(considered));
        tree.candidates = order;
        int phases = std::max(1, int(std::ceil(std::log2(double(considered)))));
        tree.phase_visits = std::max(1, budget / (phases * considered));
        tree.phase_target = min_candidate_visits(tree) + tree.phase_visits;
        tree.gumbel_active = true;
    }

    // The training target over the root's actions: visit shares, or (Gumbel) the softmax of the
    // log-priors plus the scaled completed Q-values.
    std::vector<double> improved_policy(Tree<G>& tree, bool gumbel) const {
        const Node& r = searched_root(tree, "a policy");
        std::vector<double> out(std::size_t(r.count));
        if (tree.forced >= 0) {  // a proven win: all of the target on it
            for (int k = 0; k < r.count; ++k)
                out[std::size_t(k)] = tree.action[std::size_t(r.first + k)] == tree.forced;
            return out;
        }
        if (gumbel && r.has_logits) {
            out = completed_scores(tree, r, false, r.value[std::size_t(r.player)]);
            double top = -INFINITY;
            for (double x : out) top = std::max(top, x);
            double sum = 0;
            for (double& x : out) sum += (x = std::exp(x - top));
            for (double& x : out) x /= sum;
            return out;
        }
        double total = 0;
        for (int k = 0; k < r.count; ++k) total += tree.visits[std::size_t(r.first + k)];
        for (int k = 0; k < r.count; ++k)
            out[std::size_t(k)] = total > 0 ? tree.visits[std::size_t(r.first + k)] / total : 1.0 / r.count;
        return out;
    }

    // The move the search insists on (Gumbel's pick, or the shortest proven win), else the most
    // visited when `greedy`, else -1 (Python samples by visit counts).
    std::int64_t choose(Tree<G>& tree, bool greedy) const {
        const Node& r = searched_root(tree, "a move");
        if (tree.forced >= 0) return tree.forced;
        if (tree.gumbel_active) {
            std::vector<double> score = completed_scores(tree, r, true, 0.0);
            int best = tree.candidates[0];
            for (int c : tree.candidates)
                if (score[std::size_t(c)] > score[std::size_t(best)]) best = c;
            return tree.action[std::size_t(r.first + best)];
        }
        int win = -1;
        for (int k = 0; k < r.count; ++k) {
            int c = tree.child[std::size_t(r.first + k)];
            if (c < 0 || !tree.node(c).proven || tree.node(c).proof[std::size_t(r.player)] < 1.0) continue;
            if (win < 0) {
                win = k;
                continue;
            }
            int d = tree.node(c).depth, best_d = tree.node(tree.child[std::size_t(r.first + win)]).depth;
            if (d < best_d ||
                (d == best_d && tree.visits[std::size_t(r.first + k)] > tree.visits[std::size_t(r.first + win)]))
                win = k;
        }
        if (win >= 0) return tree.action[std::size_t(r.first + win)];
        if (!greedy) return -1;
        int best = 0;
        for (int k = 1; k < r.count; ++k)
            if (tree.visits[std::size_t(r.first + k)] > tree.visits[std::size_t(r.first + best)]) best = k;
        return tree.action[std::size_t(r.first + best)];
    }

    // The root of a tree whose game is still there, asked about after a search (for root_visits()).
    static const Node& current_root(const Tree<G>& tree) {
        if (!tree.has_root()) throw std::runtime_error("search() has not run on this tree");
        if (!tree.at_root())
            throw std::runtime_error(
                "the tree's game has moved since the search (moves were applied or undone on the "
                "game itself, not through the tree's advance): search again");
        return tree.node(tree.root());
    }

  private:
    // The root to read `what` from: the game must still be there and not over.
    static const Node& searched_root(const Tree<G>& tree, const char* what) {
        const Node& r = current_root(tree);
        if (r.count == 0)
            throw std::invalid_argument(std::string("the game is over at the tree's root: there is no ") + what +
                                        " to choose");
        return r;
    }

    // The root to change before a search: as searched_root, and no other search may hold the tree.
    const Node& searchable_root(Tree<G>& tree, const char* action) const {
        if (tree.owner() && tree.owner() != this)
            throw InUse(std::string("in use: cannot ") + action + " a tree that another search holds");
        return searched_root(tree, "move");
    }

    static void check_finite(const double* x, std::size_t n, const char* what) {
        for (std::size_t i = 0; i < n; ++i)
            if (!std::isfinite(x[i])) throw std::invalid_argument(std::string(what) + " must be finite numbers");
    }

    void require_no_wave(const char* call) const {
        if (awaiting_)
            throw std::logic_error(std::string(call) +
                                   "(): the last wave's positions wait for the network: receive() their outputs or "
                                   "abort() first");
    }

    // Every tree given once, its game of this search's shapes, and none held by another search.
    void check_trees(const std::vector<Tree<G>*>& trees) const {
        for (Tree<G>* tree : trees) {
            if (!tree) throw std::invalid_argument("trees must not be None");
            if (std::size_t(tree->game().num_planes()) * G::SQUARES_PER_PLANE != planes_size_ ||
                tree->game().num_actions() != num_actions_)
                throw std::invalid_argument(
                    "a tree's game has another observation shape or action count than the search");
            if (tree->owner() && tree->owner() != this) throw InUse("in use: a tree is held by another search");
        }
        std::vector<const Tree<G>*> sorted(trees.begin(), trees.end());
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
            throw std::invalid_argument("the same tree is given twice");
    }

    void hold(Tree<G>* tree) {
        if (tree->owner() == this) return;
        tree->set_owner(this);
        tree->game().holds().hold();
        members_.push_back(tree);
        ++members_version_;
    }

    void end_search() {
        live_.clear();
        if (members_.empty()) return;
        for (Tree<G>* tree : members_) {
            tree->set_owner(nullptr);
            tree->game().holds().release();
        }
        members_.clear();
        ++members_version_;
    }

    void revert_virtual_loss(Tree<G>& tree, const std::pair<int, int>* path, std::size_t steps) {
        const double vl = config_.virtual_loss;
        for (std::size_t i = 0; i < steps; ++i) {
            Node& at = tree.mutable_node(path[i].first);
            std::size_t e = std::size_t(at.first + path[i].second);
            tree.visits[e] -= vl;
            tree.values[e] += vl;
            at.visit_sum -= vl;
            at.value_sum += vl;
        }
    }

    // A leaf waiting for the network in row `row` of the planes. Its path from the root and its
    // legal actions and moves are slices of its shard's arrays (no allocation per leaf).
    struct Pending {
        Tree<G>* tree;
        std::size_t row;
        std::size_t first_step, steps;  // paths slice: (node, edge index k) from the root
        std::size_t first_action;       // actions / moves slice
        int count;
        int player;
        std::uint64_t position_key;  // the game's key at the leaf
        Key key;                     // the cache's
        bool keyed;
        int parent;  // node, -1 for a root
        int edge;    // absolute edge index into the tree's arrays
    };

    // What one thread collects in a wave, and its scratch space.
    struct Shard {
        std::vector<Pending> pending;
        std::vector<std::pair<int, int>> paths;
        std::vector<std::int64_t> actions, scratch_actions;
        std::vector<std::uint32_t> moves, scratch_moves;
        std::vector<unsigned char> scratch_row;
    };

    static int thread_index() {
#ifdef _OPENMP
        return omp_get_thread_num();
#else
        return 0;
#endif
    }

    // Threads pay off with several trees, each walking a game of its own.
    bool parallel() const {
        if (config_.threads < 2 || live_.size() < 2) return false;
        std::vector<const G*> games;
        for (Tree<G>* tree : live_) games.push_back(&tree->game());
        std::sort(games.begin(), games.end());
        return std::adjacent_find(games.begin(), games.end()) == games.end();
    }

    void clear_wave() {
        for (Shard& shard : shards_) {
            shard.pending.clear();
            shard.paths.clear();
            shard.actions.clear();
            shard.moves.clear();
        }
        order_.clear();
        next_row_ = 0;
    }

    // The pending leaves by row (each tree's in the order it queued them); returns the row count.
    int finish_wave() {
        order_.resize(next_row_);
        for (std::size_t s = 0; s < shards_.size(); ++s)
            for (std::size_t i = 0; i < shards_[s].pending.size(); ++i)
                order_[shards_[s].pending[i].row] = {int(s), int(i)};
        return int(order_.size());
    }

    void start_wave(Planes planes, std::size_t rows) {
        clear_wave();
        planes_ = planes;
        rows_ = rows;
    }

    std::size_t value_width() const { return players_ == 2 ? 1 : std::size_t(players_); }

    Values seat_values(int player, const float* output) const {
        Values v{};
        if (players_ == 2) {
            double x = double(output[0]);
            v[0] = player == 0 ? x : -x;
            v[1] = player == 0 ? -x : x;
        } else {
            for (int s = 0; s < players_; ++s) v[std::size_t(s)] = double(output[(s - player + players_) % players_]);
        }
        return v;
    }

    // A node for the tree's current game position: built at once (returned) when terminal or
    // cached; otherwise queued for the network (returns -1).
    int make_leaf(Tree<G>& tree, Shard& shard, const std::vector<std::pair<int, int>>& path, int parent, int edge) {
        G& game = tree.game();
        int player = game.side();
        Node proto;
        proto.player = player;
        proto.key = game.key();
        if (game.termination()) {
            proto.terminal = true;
            for (int s = 0; s < players_; ++s) proto.value[std::size_t(s)] = double(game.value(s));
            return tree.add_node(proto, nullptr, nullptr, 0, nullptr);
        }
        std::vector<std::int64_t>& actions = shard.scratch_actions;
        std::vector<std::uint32_t>& moves = shard.scratch_moves;
        actions.resize(std::size_t(game.num_moves()) + 1);
        moves.resize(actions.size());
        int count = game.legal_with_moves(actions.data(), moves.data());
        // The planes go straight into the next free row: claimed now when there is no cache, claimed
        // on a miss when one thread searches; with a cache and several threads they go into the
        // thread's scratch row, copied to a row claimed on a miss. A hit leaves no hole in the rows.
        const bool keyed = cache_->enabled(), shared = keyed && config_.threads > 1;
        std::size_t index = shared ? 0 : keyed ? next_row_.load() : next_row_++;
        if (!shared && index >= rows_) throw std::length_error("the planes buffer has too few rows for this wave");
        const std::size_t row_bytes = planes_size_ * (planes_.floats ? sizeof(float) : 1);
        if (shared) shard.scratch_row.resize(row_bytes);
        void* row = shared           ? static_cast<void*>(shard.scratch_row.data())
                    : planes_.floats ? static_cast<void*>(planes_.floats + index * planes_size_)
                                     : static_cast<void*>(planes_.bytes + index * planes_size_);
        if (planes_.floats) game.observation(player, static_cast<float*>(row));
        else game.observation(player, static_cast<std::uint8_t*>(row));
        Key key;
        if (keyed) {
            // The seat count is in the key: searches of other seat counts may share the cache.
            key = hash_bytes(row, row_bytes, Key{std::uint64_t(players_), 0});
            key = hash_bytes(actions.data(), std::size_t(count) * sizeof(std::int64_t), key);
            std::unique_lock<std::mutex> lock(cache_mutex_, std::defer_lock);  // lookups reorder the LRU list
            if (shared) lock.lock();
            const Cache::Entry* hit = cache_->get(key);  // entries stay put until receive()
            if (hit && (hit->logits.size() != std::size_t(count) || hit->values.size() < value_width())) hit = nullptr;
            if (hit) {
                if (shared) lock.unlock();
                proto.value = seat_values(player, hit->values.data());
                return tree.add_node(proto, actions.data(), moves.data(), count, hit->logits.data());
            }
        }
        if (shared) {
            index = next_row_++;
            if (index >= rows_) throw std::length_error("the planes buffer has too few rows for this wave");
            std::memcpy(planes_.floats ? static_cast<void*>(planes_.floats + index * planes_size_)
                                       : static_cast<void*>(planes_.bytes + index * planes_size_),
                        row, row_bytes);
        } else if (keyed) {
            ++next_row_;
        }
        // The leaf's slices first, then the leaf: a failed allocation leaves no leaf without its path.
        Pending leaf{&tree,  index,  shard.paths.size(), path.size(), shard.actions.size(),
                     count,  player, proto.key,          key,         keyed,
                     parent, edge};
        shard.paths.insert(shard.paths.end(), path.begin(), path.end());
        shard.actions.insert(shard.actions.end(), actions.begin(), actions.begin() + count);
        shard.moves.insert(shard.moves.end(), moves.begin(), moves.begin() + count);
        shard.pending.push_back(leaf);
        return -1;
    }

    // Up to `count` simulations in one tree: descents to leaves that are backed up at once (terminal,
    // proven, cached) or queued for the network. The game is back at the root when it returns or
    // throws; a throw also takes back the virtual loss of the descent it interrupted.
    int collect_tree(Tree<G>& tree, Shard& shard, int count) {
        int started = 0;
        const double vl = config_.virtual_loss;
        std::size_t waiting_from = shard.pending.size();
        G& game = tree.game();
        std::vector<std::pair<int, int>> path;
        for (int i = 0; i < count; ++i) {
            int node = tree.root();
            path.clear();
            int child = -1, walked = 0, leaf = -1;
            bool waiting = false;
            try {
                while (true) {
                    int k = select(tree, node, path.empty());
                    path.emplace_back(node, k);
                    Node& at = tree.mutable_node(node);
                    std::size_t e = std::size_t(at.first + k);
                    tree.visits[e] += vl;
                    tree.values[e] -= vl;
                    at.visit_sum += vl;
                    at.value_sum -= vl;
                    game.play_move(tree.move[e]);
                    ++walked;
                    child = tree.child[e];
                    if (child < 0 || tree.node(child).proven) break;
                    node = child;
                }
                if (child >= 0) {
                    leaf = child;
                } else {
                    int edge = tree.node(path.back().first).first + path.back().second;
                    for (std::size_t p = waiting_from; p < shard.pending.size(); ++p)
                        if (shard.pending[p].edge == edge) waiting = true;
                    if (!waiting) leaf = make_leaf(tree, shard, path, path.back().first, edge);
                }
            } catch (...) {
                for (; walked > 0; --walked) game.undo();
                revert_virtual_loss(tree, path.data(), path.size());
                throw;
            }
            for (; walked > 0; --walked) game.undo();
            auto [parent, k] = path.back();
            int edge = tree.node(parent).first + k;
            if (waiting) {  // the same leaf already waits for the network: stop this wave
                revert_virtual_loss(tree, path.data(), path.size());
                break;
            }
            ++started;
            if (leaf >= 0) {
                if (child < 0) tree.child[std::size_t(edge)] = leaf;
                const Node& l = tree.node(leaf);
                backup(tree, path.data(), path.size(), l.proven ? l.proof : l.value);
            }
        }
        return started;
    }

    void backup(Tree<G>& tree, const std::pair<int, int>* path, std::size_t steps, Values value) {
        const double vl = config_.virtual_loss;
        for (std::size_t i = 0; i < steps; ++i) {
            auto [n, k] = path[i];
            Node& node = tree.mutable_node(n);
            std::size_t e = std::size_t(node.first + k);
            double gain = value[std::size_t(node.player)] + vl;
            tree.visits[e] += 1 - vl;
            tree.values[e] += gain;
            node.visit_sum += 1 - vl;
            node.value_sum += gain;
            node.n += 1;
        }
        simulations_done.fetch_add(1, std::memory_order_relaxed);
        for (std::size_t i = steps; i-- > 0;)
            if (!solve(tree, path[i].first, path[i].second)) break;
    }

    // An MCTS-solver step: mark the node proven when a child wins outright for its mover or every
    // child is proven; returns whether it is proven, so the parent is tried next.
    static bool solve(Tree<G>& tree, int n, int k) {
        Node& node = tree.mutable_node(n);
        if (node.proven) return true;
        int c = tree.child[std::size_t(node.first + k)];
        if (c < 0 || !tree.node(c).proven) return false;
        const Node& child = tree.node(c);
        std::size_t me = std::size_t(node.player);
        if (child.proof[me] >= 1.0) {
            node.proven = true;
            node.proof = child.proof;
            node.depth = child.depth + 1;
            return true;
        }
        int best = -1, deepest = 0;
        for (int j = 0; j < node.count; ++j) {
            int cj = tree.child[std::size_t(node.first + j)];
            if (cj < 0 || !tree.node(cj).proven) return false;
            const Node& x = tree.node(cj);
            deepest = std::max(deepest, x.depth);
            if (best < 0) {
                best = cj;
                continue;
            }
            const Node& b = tree.node(best);
            if (x.proof[me] > b.proof[me] || (x.proof[me] == b.proof[me] && x.depth < b.depth)) best = cj;
        }
        node.proven = true;
        node.proof = tree.node(best).proof;
        node.depth = deepest + 1;
        return true;
    }

    int select(Tree<G>& tree, int n, bool is_root) {
        if (is_root && tree.gumbel_active) return gumbel_select(tree);
        const Node& node = tree.node(n);
        std::size_t me = std::size_t(node.player);
        const std::size_t first = std::size_t(node.first);
        // No scan for a child that is a proven win (the reference's shortcut below the root): the
        // backup that proves such a child proves this node too (solve), and the descent stops at
        // proven nodes, so below the root the scan never finds one.
        const double total = node.visit_sum, value_sum = node.value_sum;
        double c = config_.c_puct_init + std::log((1 + total + config_.c_puct_base) / config_.c_puct_base);
        double unvisited;
        if (is_root && config_.has_root_fpu) {
            unvisited = config_.root_fpu;
        } else {
            double parent_value = total > 0 ? value_sum / total : node.value[me];
            unvisited = parent_value - config_.fpu_reduction;
        }
        double root_total = std::sqrt(std::max(total, 1.0));
        int best = 0;
        double best_score = -INFINITY;
        // An unvisited edge (no child yet) scores unvisited + c * prior * root_total, which never
        // falls as the prior rises when c >= 0: one whose prior is no higher than an earlier
        // unvisited one's cannot be strictly better (the first maximum wins), so it is skipped.
        double unvisited_prior = c >= 0 ? -INFINITY : INFINITY;
        // A root move of zero prior (one a restricted root left out) is never searched.
        const bool bar_zero = is_root && any_prior(tree, node);
        for (int k = 0; k < node.count; ++k) {
            std::size_t e = first + std::size_t(k);
            if (bar_zero && tree.prior[e] <= 0.0) continue;
            double v = tree.visits[e];
            int ch = tree.child[e];
            if (v == 0 && ch < 0 && unvisited_prior < INFINITY) {
                if (tree.prior[e] <= unvisited_prior) continue;
                unvisited_prior = tree.prior[e];
            }
            double q = v > 0 ? tree.values[e] / std::max(v, 1e-9) : unvisited;
            double score = q + c * tree.prior[e] * root_total / (1.0 + v);
            if (ch >= 0 && tree.node(ch).proven && tree.node(ch).proof[me] <= -1.0) score -= 1e6;
            if (score > best_score) {
                best_score = score;
                best = k;
            }
        }
        return best;
    }

    // Whether some edge of `node` has a prior above zero.
    static bool any_prior(const Tree<G>& tree, const Node& node) {
        for (int k = 0; k < node.count; ++k)
            if (tree.prior[std::size_t(node.first + k)] > 0.0) return true;
        return false;
    }

    static double min_candidate_visits(const Tree<G>& tree) {
        const Node& r = tree.node(tree.root());
        double low = INFINITY;
        for (int c : tree.candidates) low = std::min(low, tree.visits[std::size_t(r.first + c)]);
        return low;
    }

    double sigma_scale(const Tree<G>& tree, const Node& r) const {
        double most = 0;
        for (int k = 0; k < r.count; ++k) most = std::max(most, tree.visits[std::size_t(r.first + k)]);
        return (config_.gumbel_c_visit + most) * config_.gumbel_c_scale;
    }

    // log prior + sigma(q) for every root action, q = `unvisited` where the edge has no visit, plus the
    // Gumbel noise when `with_gumbel` (with q = 0: the scores Gumbel's halving and choice rank by).
    std::vector<double> completed_scores(const Tree<G>& tree, const Node& r, bool with_gumbel, double unvisited) const {
        double scale = sigma_scale(tree, r);
        std::vector<double> score(std::size_t(r.count));
        for (int k = 0; k < r.count; ++k) {
            std::size_t e = std::size_t(r.first + k);
            double q = tree.visits[e] > 0 ? tree.values[e] / tree.visits[e] : unvisited;
            double noise = with_gumbel ? tree.gumbel[std::size_t(k)] : 0.0;
            score[std::size_t(k)] = noise + std::log(std::max(tree.prior[e], 1e-12)) + scale * q;
        }
        return score;
    }

    int gumbel_select(Tree<G>& tree) {
        const Node& r = tree.node(tree.root());
        if (tree.candidates.size() > 1 && min_candidate_visits(tree) >= tree.phase_target) {
            std::vector<double> score = completed_scores(tree, r, true, 0.0);
            std::size_t keep = std::max<std::size_t>(1, tree.candidates.size() / 2);
            std::stable_sort(tree.candidates.begin(), tree.candidates.end(),
                             [&](int x, int y) { return score[std::size_t(x)] > score[std::size_t(y)]; });
            tree.candidates.resize(keep);
            tree.phase_visits *= 2;
            tree.phase_target = min_candidate_visits(tree) + tree.phase_visits;
        }
        int best = tree.candidates[0];
        for (int c : tree.candidates)
            if (tree.visits[std::size_t(r.first + c)] < tree.visits[std::size_t(r.first + best)]) best = c;
        return best;
    }

    Config config_;
    int players_;
    std::shared_ptr<Cache> cache_;
    std::size_t planes_size_;
    int num_actions_;
    std::vector<Shard> shards_;               // one per thread
    std::vector<std::pair<int, int>> order_;  // row -> (shard, pending index), after a wave
    std::atomic<std::size_t> next_row_{0};    // the next free row of the planes
    std::mutex cache_mutex_;
    std::vector<Tree<G>*> live_;       // the trees the running search still descends
    std::vector<Tree<G>*> members_;    // the trees (and games) this search holds
    std::size_t members_version_ = 0;  // changes whenever members_ does
    bool awaiting_ = false;            // a wave's rows wait for receive()
    std::vector<float> legal_;
    Planes planes_;
    std::size_t rows_ = 0;
};

}  // namespace search
}  // namespace chess_envs
