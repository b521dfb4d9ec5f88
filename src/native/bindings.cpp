// Python bindings of the native core (module chess_envs._core): one game class per variant with
// numpy buffers in and out, the batched vector environments and the search. Each area's classes
// are bound in their own file (bindings.hpp); the module itself is put together here.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <iterator>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "game.hpp"
#include "in_use.hpp"

namespace nb = nanobind;
using namespace chess_envs;

NB_MODULE(_core, m) {
    m.doc() = "The native rules engines, encoders and vector environments of chess_envs.";
    // The action tables are cached in Python module globals for the life of the process, and
    // processes that exit while they are alive made nanobind print false "leaked instance" reports.
    nb::set_leak_warnings(false);
    nb::exception<InUse>(m, "InUseError", PyExc_RuntimeError).attr("__doc__") =
        "Raised instead of using an object that another call is using: a vector env stepped by a "
        "second thread, a game or search tree held by a running search, an MCTS searching for "
        "another thread. A subclass of RuntimeError.";
    std::vector<std::string> names(std::begin(TERMINATION_NAMES), std::end(TERMINATION_NAMES));
    m.attr("TERMINATIONS") = names;
    bindings::bind_games(m);
    bindings::bind_four_player(m);
    bindings::bind_vectors(m);
    bindings::bind_search(m);
}
