"""Command lines from dataclasses: every field is a flag, its ``help`` metadata the flag's help.

``parse_args(Args, presets, argv)`` applies ``--preset NAME`` first, then the flags given.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def arg(default: Any, help: str) -> Any:  # noqa: A002  (mirrors argparse's name)
    """A dataclass field with a help text for the command line."""
    return dataclasses.field(default=default, metadata={"help": help})


def _boolean(text: str) -> bool:
    value = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}.get(text.lower())
    if value is None:
        raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
    return value


def parse_args(
    cls: type[T], presets: dict[str, dict[str, Any]], argv: list[str] | None = None, description: str = ""
) -> T:
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--preset", choices=sorted(presets), help="a named set of defaults; flags override it")
    for field in dataclasses.fields(cls):
        if field.name == "preset":
            continue
        flag = "--" + field.name.replace("_", "-")
        kind = field.type if isinstance(field.type, type) else eval(field.type, {})  # noqa: S307
        if kind is bool:
            parser.add_argument(
                flag,
                default=None,
                type=_boolean,
                nargs="?",
                const=True,
                metavar="{true,false}",
                help=f"{field.metadata.get('help', '')} (default: {field.default})",
            )
        else:
            parser.add_argument(
                flag, default=None, type=kind, help=f"{field.metadata.get('help', '')} (default: {field.default})"
            )
    namespace = parser.parse_args(argv)
    values = dict(presets.get(namespace.preset, {})) if namespace.preset else {}
    values.update({k: v for k, v in vars(namespace).items() if v is not None and k != "preset"})
    if namespace.preset:
        values["preset"] = namespace.preset
    try:
        return cls(**values)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
        raise  # unreachable: parser.error exits
