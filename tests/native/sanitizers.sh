#!/usr/bin/env bash
# Build the native core with AddressSanitizer and UndefinedBehaviorSanitizer, then run the fuzz,
# perft and (smaller) differential tests, the boundary probes and the stateful API fuzz harness, and
# the native search against its reference, with that build. Any sanitizer report fails the run.
# Usage: bash tests/native/sanitizers.sh [build-dir]   (about 3 minutes on 2 cores)
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
"$python" -m pytest -q -p no:cacheprovider -o addopts="" tests/native \
  -k "fuzz or perft or other_history or adjudication or vector or boundary" --deselect tests/native/test_sanitizers.py
"$python" -m pytest -q -p no:cacheprovider -o addopts="" tests/agents/test_native_search.py
