// The two 2-player variants as traits of Position: standard chess and Los Alamos chess.
#pragma once
#include "position.hpp"

namespace chess_envs {

struct StandardChess {
    static constexpr int N = 8;
    static constexpr bool CASTLING = true;
    static constexpr bool DOUBLE_STEP = true;
    static constexpr bool EN_PASSANT = true;
    static constexpr int PROMOTIONS[4] = {QUEEN, KNIGHT, BISHOP, ROOK};
    static constexpr int PLANES_PER_STEP = 14;  // 6 + 6 pieces, 2 repetition planes
    static constexpr int META_PLANES = 7;
    static constexpr int NO_PROGRESS_SCALE = 150;
    static constexpr const char* NAME = "chess";
};

// Rules of Fairy-Stockfish's "losalamos": no bishops, castling, double step or en passant;
// promotion to queen, rook or knight.
struct LosAlamos {
    static constexpr int N = 6;
    static constexpr bool CASTLING = false;
    static constexpr bool DOUBLE_STEP = false;
    static constexpr bool EN_PASSANT = false;
    static constexpr int PROMOTIONS[3] = {QUEEN, ROOK, KNIGHT};
    static constexpr int PLANES_PER_STEP = 12;  // 5 + 5 pieces, 2 repetition planes
    static constexpr int META_PLANES = 3;
    static constexpr int NO_PROGRESS_SCALE = 100;
    static constexpr const char* NAME = "los_alamos";
};

}  // namespace chess_envs
