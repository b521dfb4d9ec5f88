"""Sphinx configuration of the chess-envs site: ``pip install -e ".[docs]"`` then
``sphinx-build -W --keep-going -n docs docs/_build`` (the folder is not committed).

Pages are Markdown (MyST); the API reference is autodoc over each package's ``__all__``; the CLI
pages come from the real parsers (sphinx-argparse); the option tables, presets and model cards are
generated from the code by ``docs/_ext/generated.py``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

from chess_envs import __version__  # noqa: E402  (after the path of the local extension)

project = "chess-envs"
author = "the chess-envs authors"
copyright = "2026, the chess-envs authors"  # noqa: A001  (Sphinx's name)
release = version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx_autodoc_typehints",
    "sphinxarg.ext",
    "generated",
]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
html_theme = "furo"
html_title = f"chess-envs {version}"
html_static_path: list[str] = []

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_default_options = {"show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_inherit_docstrings = False  # gymnasium's own docstrings are not ours to check
autodoc_typehints = "description"
typehints_use_signature_return = True
always_document_param_types = False

# Offline build: no other project's inventory can be fetched, so references into these third-party
# namespaces stay plain text. Every reference to a chess_envs name must resolve (-n makes it an error).
THIRD_PARTY = (
    "np.",
    "numpy",
    "torch",
    "gym.",
    "gymnasium",
    "pettingzoo",
    "stable_baselines3",
    "sb3_contrib",
    "chess.",
    "ray",
    "argparse",
    "collections.abc",
    "typing",
    "concurrent",
    "threading",
    "pathlib",
    "starlette",
    "onnxruntime",
    "openvino",
    "PIL",
    "io",
    "enum",
    "subprocess",
    "dataclasses",
    "datetime",
    "random",
)
nitpick_ignore_regex = [(r"py:.*", re.escape(prefix) + ".*") for prefix in THIRD_PARTY]
nitpick_ignore_regex += [
    (r"py:class", r"(int|float|str|bool|bytes|object|dict|list|tuple|set|type|None|AutoresetMode)"),
    (r"py:data", r"Ellipsis"),
    (r"py:class", r"Path"),
    # type variables of generic signatures (``build(cls: type[C]) -> C``): not API names
    (r"py:class", r"chess_envs\.(train\.config\.C|fields\.T)"),
]
