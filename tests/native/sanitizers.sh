#!/usr/bin/env bash
# Build the native core with AddressSanitizer and UndefinedBehaviorSanitizer, then run the fuzz,
# perft and (smaller) differential tests, the boundary probes and the stateful API fuzz harness, and
# the native search against its reference, with that build. Any sanitizer report fails the run.
# Usage: bash tests/native/sanitizers.sh [build-dir]   (about 4 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/sanitize}
python=$("${PYTHON:-python}" -c 'import sys; print(sys.executable)')
cmake -S . -B "$build" -DCHESS_ENVS_SANITIZE=ON -DPython_EXECUTABLE="$python" >/dev/null
cmake --build "$build" -j 2 >/dev/null
core=$(cd "$build" && pwd)/$(cd "$build" && ls _core*.so)
export CHESS_ENVS_CORE="$core"
export LD_PRELOAD="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:verify_asan_link_order=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Left out here: the deepest perft record (Teams from the start, a fifth of the run under ASan; the
# other 27 records walk the same move generator) and the Python mate probe's comparison.
# Two pytest processes at once (each uses one core): the boundary probes (a fresh interpreter each),
# and the rest. Both run to the end; the script fails if either does.
probes=$(mktemp)
trap 'rm -f "$probes"' EXIT
"$python" -m pytest -q -p no:cacheprovider -o addopts="" tests/native/test_boundary.py >"$probes" 2>&1 &
probes_pid=$!
status=0
"$python" -m pytest -q -p no:cacheprovider -o addopts="" tests/native tests/agents/test_native_search.py \
  -k "fuzz or perft or other_history or adjudication or vector or native_search" \
  --deselect tests/native/test_sanitizers.py --ignore tests/native/test_boundary.py \
  --deselect "tests/native/test_four_player_board.py::test_every_public_perft_record[teams-start]" || status=$?
wait "$probes_pid" || status=$?
cat "$probes"
exit "$status"
