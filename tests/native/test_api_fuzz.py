"""The stateful API fuzz harness (tests/native/api_fuzz.py) at CI size: every kind of call runs,
and nothing but clear exceptions comes out (the sanitizer run repeats it on the sanitizer build)."""

from __future__ import annotations

import os

from tests.native.api_fuzz import Harness

CALLS = int(os.environ.get("CHESS_ENVS_API_FUZZ_CALLS", "4000"))


def test_api_fuzz_runs_every_kind_of_call_cleanly():
    harness = Harness(seed=int(os.environ.get("CHESS_ENVS_API_FUZZ_SEED", "0")))
    harness.run(CALLS)
    assert set(harness.counts) >= set(Harness.KINDS)
    # Most calls go through: the harness exercises the API, not only its refusals.
    for kind in ("create", "apply", "search", "vector", "advance"):
        assert harness.failures[kind] < harness.counts[kind], (kind, harness.counts, harness.failures)
