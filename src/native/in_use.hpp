// Objects that are not thread-safe refuse a second use while a first one runs: the error that says
// so, and the count of searches that hold a game at their tree's root.
#pragma once
#include <stdexcept>
#include <string>

namespace chess_envs {

// Raised (as chess_envs.InUseError, a RuntimeError) instead of touching an object another call is using.
struct InUse : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// How many searches hold a game (it must stay at their trees' roots until they end). A copy of the
// game is a new game that no search holds, so copies start at zero and assignment keeps the count.
class SearchHolds {
  public:
    SearchHolds() = default;
    SearchHolds(const SearchHolds&) {}
    SearchHolds& operator=(const SearchHolds&) { return *this; }

    void hold() { ++count_; }
    void release() { --count_; }
    bool held() const { return count_ > 0; }

    // Refuse `action` (a verb: "apply a move to") while a search holds the game.
    void check_free(const char* action) const {
        if (count_ > 0)
            throw InUse(std::string("in use: cannot ") + action +
                        " a game while a search holds it (the search walks it between its waves and needs it at "
                        "its tree's root); let the search finish or cancel it first");
    }

  private:
    int count_ = 0;
};

}  // namespace chess_envs
