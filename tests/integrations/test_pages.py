"""Every page of docs/integrations runs as written: its ```python blocks, joined in order, run as
one script in a fresh interpreter (the libraries start threads, Ray a local instance and signal
handlers, none of which may leak into the test process)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "docs" / "integrations"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
# The modules each page needs (the test is skipped without them, except in CI, which installs the
# integrations extra) and the pages slower than about 20 s on two CPUs (imports and JIT included).
NEEDS = {
    "sb3.md": ("sb3_contrib",),
    "torchrl.md": ("torchrl", "tensordict"),
    "tianshou.md": ("tianshou",),
    "rllib.md": ("ray", "tree", "pyarrow", "ormsgpack"),
}
SLOW = {"torchrl.md", "tianshou.md", "rllib.md"}
LIBRARY_PAGES = ["sb3.md", "torchrl.md", "tianshou.md", "rllib.md"]


def python_blocks(page: Path) -> list[str]:
    return BLOCK.findall(page.read_text())


def test_the_index_links_every_page_and_each_library_page_has_code() -> None:
    index = (PAGES / "index.md").read_text()
    assert sorted(path.name for path in PAGES.glob("*.md")) == sorted(["index.md", *LIBRARY_PAGES])
    for name in LIBRARY_PAGES:
        assert f"]({name})" in index, name
        blocks = python_blocks(PAGES / name)
        assert blocks and not any(block.lstrip().startswith(">>>") for block in blocks), name
        assert (PAGES / name).read_text().startswith("# "), name


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=[pytest.mark.slow] if name in SLOW else []) for name in LIBRARY_PAGES]
)
def test_the_page_runs(name: str, tmp_path: Path) -> None:
    missing = [module for module in NEEDS.get(name, ()) if importlib.util.find_spec(module) is None]
    if missing and not os.environ.get("CI"):
        pytest.skip(f"{name} needs {', '.join(missing)} (pip install -e '.[integrations]')")
    script = tmp_path / f"page_{name.replace('.md', '')}.py"  # not torchrl.py: it would shadow torchrl
    script.write_text("\n\n".join(python_blocks(PAGES / name)))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "OMP_NUM_THREADS": "1",  # one thread per test worker: two spinning pools on two cores crawl
        "RAY_USAGE_STATS_ENABLED": "0",
        "HOME": str(tmp_path),  # where Ray and the libraries write their logs and caches
    }
    run = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, f"{name} failed:\n{run.stdout[-3000:]}\n{run.stderr[-6000:]}"
