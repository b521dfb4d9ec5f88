// Python bindings of the native core (module chess_envs._core), one file per area: each area's bind
// function adds its classes to the module (bindings.cpp calls them in order), and the helpers the
// areas share.
#pragma once
#include <nanobind/nanobind.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "buffers.hpp"

namespace chess_envs::bindings {

namespace nb = nanobind;

void bind_games(nb::module_& m);        // bindings_games.cpp: ActionTable, ChessGame, LosAlamosGame
void bind_four_player(nb::module_& m);  // bindings_four_player.cpp: the four-player board, action table, game
void bind_vectors(nb::module_& m);      // bindings_vector.cpp: the vector environments
void bind_search(nb::module_& m);       // bindings_search.cpp: the evaluation cache, search trees, searches

// Array inputs that are copied (tables) may be converted from other dtypes.
template <class T>
T* checked(buffers::Array<T>& array, std::size_t size, const char* what) {
    if (array.size() != size)
        throw std::invalid_argument(std::string(what) + " buffer has " + std::to_string(array.size()) +
                                    " elements, expected " + std::to_string(size));
    return array.data();
}

// A numpy array of its own with a copy of the `size` values at `values`.
template <class T>
buffers::Array<T> owned(const T* values, std::size_t size) {
    auto* data = new T[size];
    std::copy(values, values + size, data);
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<T*>(p); });
    return buffers::Array<T>(data, {size}, owner);
}
template <class T>
buffers::Array<T> owned(const std::vector<T>& values) {
    return owned(values.data(), values.size());
}

// The UTF-8 text of a Python str; strings that have none (lone surrogates) are a ValueError, not a TypeError.
inline std::string text_of(nb::handle object, const char* what) {
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

}  // namespace chess_envs::bindings
