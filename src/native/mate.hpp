// A short forced-win probe for the search's root in two-player games: can the side to move force a
// win within n of its own moves? An exhaustive AND-OR search over the game's own legal moves (its
// draw rules included: a repetition or a stalemate on the way is no win), under a budget of moves
// played. It is sound: a win is reported only when every defence was refuted; running out of budget
// reports none. Moves are tried in the game's legal-action order (descending action), the order of
// the Python reference (chess_envs/search/python_mcts.py), which plays exactly the same moves.
#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace chess_envs {
namespace search {

// Only the two-player games (they know whether the mover is in check) have the probe.
template <class G, class = void>
struct HasMateProbe : std::false_type {};
template <class G>
struct HasMateProbe<G, std::void_t<decltype(std::declval<const G&>().in_check())>> : std::true_type {};

template <class G>
class MateProbe {
  public:
    MateProbe(G& game, long budget) : game_(game), left_(budget), attacker_(game.side()) {}

    // Moves played so far (each one counts against the budget).
    long plays() const { return plays_; }

    // Whether playing `move` (legal here, the attacker to move) forces a win within `n` moves.
    bool wins_with(std::uint32_t move, int n) {
        if (!spend()) return false;
        game_.play_move(move);
        bool won = after_attack(n);
        game_.undo();
        return won;
    }

  private:
    bool spend() {
        if (left_ <= 0) return false;
        --left_;
        ++plays_;
        return true;
    }

    // The moves of the position at `ply` of the probe, in legal-action order.
    int moves_at(std::size_t ply) {
        if (scratch_.size() <= ply) scratch_.resize(ply + 1);
        auto& [actions, moves] = scratch_[ply];
        actions.resize(std::size_t(game_.num_moves()) + 1);
        moves.resize(actions.size());
        return game_.legal_with_moves(actions.data(), moves.data());
    }

    // The attacker has just moved, `n` of its moves counted with this one.
    bool after_attack(int n) {
        if (n == 1 && !game_.in_check()) return false;  // only a checkmate ends these games in a win
        if (game_.termination()) return game_.value(attacker_) > 0;
        return n > 1 && defence_fails(n - 1);
    }

    // The defender to move (the game goes on): every reply loses within `n` more attacker moves.
    bool defence_fails(int n) {
        std::size_t ply = depth_++;
        int count = moves_at(ply);
        bool lost = true;
        for (int i = 0; i < count && lost; ++i) {
            if (!spend()) {
                lost = false;
                break;
            }
            game_.play_move(scratch_[ply].second[std::size_t(i)]);
            lost = game_.termination() ? game_.value(attacker_) > 0 : attack_wins(n);
            game_.undo();
        }
        --depth_;
        return lost;
    }

    // The attacker to move (the game goes on): some move wins within `n` moves.
    bool attack_wins(int n) {
        std::size_t ply = depth_++;
        int count = moves_at(ply);
        bool won = false;
        for (int i = 0; i < count && !won; ++i) {
            if (!spend()) break;
            game_.play_move(scratch_[ply].second[std::size_t(i)]);
            won = after_attack(n);
            game_.undo();
        }
        --depth_;
        return won;
    }

    G& game_;
    long left_;
    long plays_ = 0;
    int attacker_;
    std::size_t depth_ = 0;
    std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::uint32_t>>> scratch_;
};

}  // namespace search
}  // namespace chess_envs
