// Many games stepped together: the batched core of the vector environments. Every step writes the
// observations, masks, rewards and end flags of all games into caller-provided arrays, resetting
// games that ended on the previous step (Gymnasium's next-step autoreset).
#pragma once
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "game.hpp"
#include "in_use.hpp"

namespace chess_envs {

// splitmix64: small, fast and good enough to pick random moves.
struct Random {
    u64 state = 0;
    u64 next() { return splitmix64(state); }
    int below(int n) { return int((unsigned __int128)next() * unsigned(n) >> 64); }
};

constexpr std::int8_t ILLEGAL_ACTION = -1;

// for (i = 0; i < n; ++i) body(i), on `threads` OpenMP threads when more than one. An exception
// never leaves an OpenMP region (that would std::terminate): the first one is rethrown after it.
template <class Body>
void parallel_for(int n, int threads, Body body) {
    if (threads <= 1) {
        for (int i = 0; i < n; ++i) body(i);
        return;
    }
    std::exception_ptr error;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int i = 0; i < n; ++i) {
        try {
            body(i);
        } catch (...) {
#pragma omp critical(chess_envs_vector_error)
            if (!error) error = std::current_exception();
        }
    }
    if (error) std::rethrow_exception(error);
}

// G is a game (Game<V> or four::FourGame) with restart(), side(), apply(), termination(), value(seat),
// num_moves(), play_index(), action_of(), observation() and legal_mask(); every env starts as `prototype`.
// Not thread-safe: a caller takes claim() for each call, and a second caller is refused (InUse).
template <class G>
class VectorEnv {
  public:
    VectorEnv(int num_envs, const G& prototype, int num_players, bool random_opponent, int agent_seat, int max_plies,
              int threads)
        : random_opponent_(random_opponent), agent_seat_(agent_seat), max_plies_(max_plies), threads_(threads) {
        if (num_envs < 1 || num_envs > 65536) throw std::invalid_argument("num_envs must be in [1, 65536]");
        if (agent_seat < 0 || agent_seat >= num_players)
            throw std::invalid_argument("agent_seat is not a seat of this game");
        if (max_plies < 0) throw std::invalid_argument("max_plies must be >= 0 (0: no limit)");
        if (threads < 1 || threads > 256) throw std::invalid_argument("threads must be in [1, 256]");
        games_.reserve(std::size_t(num_envs));
        for (int i = 0; i < num_envs; ++i) games_.push_back(prototype);
        random_.resize(std::size_t(num_envs));
        action_random_.resize(std::size_t(num_envs));
        plies_.assign(std::size_t(num_envs), 0);
        done_.assign(std::size_t(num_envs), 0);
        for (int i = 0; i < num_envs; ++i) {
            random_[std::size_t(i)].state = u64(i);
            action_random_[std::size_t(i)].state = ~u64(i);
        }
    }

    std::size_t size() const { return games_.size(); }
    std::size_t observation_size() const { return std::size_t(games_[0].num_planes()) * G::SQUARES_PER_PLANE; }
    int num_actions() const { return games_[0].num_actions(); }
    G& game(std::size_t i) { return games_[i]; }
    // The object for one call: refuses (InUse) while another call holds it.
    std::unique_lock<std::mutex> claim() {
        std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
        if (!lock.owns_lock())
            throw InUse(
                "in use: another thread is inside a call of this vector env; one env serves one thread "
                "at a time (give each thread its own env)");
        return lock;
    }

    std::size_t checked_index(int i) const {
        if (i < 0 || std::size_t(i) >= size()) throw std::out_of_range("env index out of range");
        return std::size_t(i);
    }

    void reset_all(u64 seed, bool seeded, float* obs, std::uint8_t* mask) {
        parallel_for(int(size()), threads_, [&](int i) {
            if (seeded) {
                random_[std::size_t(i)].state = seed + u64(i) * 0xD1B54A32D192ED03ULL;
                action_random_[std::size_t(i)].state = ~(seed + u64(i) * 0xD1B54A32D192ED03ULL);
            }
            reset_one(std::size_t(i));
            write(std::size_t(i), obs, mask);
        });
    }

    void step(const std::int64_t* actions, float* obs, std::uint8_t* mask, float* rewards, bool* terminated,
              bool* truncated, std::int8_t* termination) {
        parallel_for(int(size()), threads_, [&](int i) {
            std::size_t k = std::size_t(i);
            rewards[k] = 0.0f;
            terminated[k] = truncated[k] = false;
            termination[k] = ONGOING;
            if (done_[k]) {
                reset_one(k);
            } else {
                step_one(k, actions[k], rewards[k], terminated[k], truncated[k], termination[k]);
            }
            write(k, obs, mask);
        });
    }

    // Resets now the games that ended on the last step (instead of on the next one), rewriting their
    // rows: same-step autoreset, as Stable-Baselines3's VecEnv expects. Returns how many were reset.
    int reset_done(float* obs, std::uint8_t* mask) {
        int count = 0;
        for (std::size_t k = 0; k < size(); ++k)
            if (done_[k]) {
                reset_one(k);
                write(k, obs, mask);
                ++count;
            }
        return count;
    }

    // A uniformly random legal action per game (0 for a game that the next step resets), from a
    // stream of its own, so drawing actions does not change the random opponent's moves.
    void random_actions(std::int64_t* out) {
        for (std::size_t k = 0; k < size(); ++k) {
            G& g = games_[k];
            if (done_[k] || g.termination() || g.num_moves() == 0) {
                out[k] = 0;
                continue;
            }
            out[k] = g.action_of(action_random_[k].below(g.num_moves()));
        }
    }

  private:
    void reset_one(std::size_t k) {
        games_[k].restart();
        plies_[k] = 0;
        done_[k] = 0;
        play_opponent(k);
    }

    void step_one(std::size_t k, std::int64_t action, float& reward, bool& terminated, bool& truncated,
                  std::int8_t& why) {
        G& g = games_[k];
        int mover = g.side();
        if (action < 0 || action >= g.num_actions() || !g.apply(int(action))) {
            reward = -1.0f;
            terminated = true;
            why = ILLEGAL_ACTION;
            done_[k] = 1;
            return;
        }
        ++plies_[k];
        play_opponent(k);
        int end = g.termination();
        terminated = end != ONGOING;
        truncated = !terminated && max_plies_ && plies_[k] >= max_plies_;
        why = std::int8_t(end);
        if (terminated) reward = g.value(random_opponent_ ? agent_seat_ : mover);
        done_[k] = terminated || truncated;
    }

    // The random opponents move until the agent is to move or the game is over. They finish their
    // turns even past max_plies (the step then reports the truncation), so every live observation is
    // the agent's to act on.
    void play_opponent(std::size_t k) {
        if (!random_opponent_) return;
        G& g = games_[k];
        while (g.side() != agent_seat_ && !g.termination()) {
            int moves = g.num_moves();
            if (moves == 0) throw std::logic_error("a game that is not over has no legal move");
            g.play_index(random_[k].below(moves));
            ++plies_[k];
        }
    }

    void write(std::size_t k, float* obs, std::uint8_t* mask) {
        G& g = games_[k];
        int player = random_opponent_ ? agent_seat_ : g.side();
        g.observation(player, obs + k * observation_size());
        std::uint8_t* m = mask + k * std::size_t(num_actions());
        if (done_[k]) {
            std::memset(m, 0, std::size_t(num_actions()));
        } else {
            g.legal_mask(m);
        }
    }

    bool random_opponent_;
    int agent_seat_;
    int max_plies_;
    int threads_;
    std::vector<G> games_;
    std::vector<Random> random_;
    std::vector<Random> action_random_;
    std::vector<int> plies_;
    std::vector<std::uint8_t> done_;
    std::mutex busy_;
};

}  // namespace chess_envs
