"""Command lines from dataclasses: every field is a flag, its ``help`` metadata the flag's help.

``parse_args(Args, presets, argv)`` applies ``--preset NAME`` first, then the flags given.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from agents.base import check_device
from chess_envs.files import check_writable

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


def fail(message: str) -> NoReturn:
    """End a command line with a one-line error and exit code 2 (argparse's code for bad usage)."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def check_args(args: Any, upper_bounds: dict[str, int]) -> None:
    """Checks every training command shares: sizes at most ``upper_bounds`` (past them, a typing
    mistake that would exhaust memory), floats finite, learning rate positive, device usable."""
    for name, most in upper_bounds.items():
        if getattr(args, name) > most:
            raise ValueError(f"{name} must be <= {most:,}, got {getattr(args, name):,}")
    for field in dataclasses.fields(args):
        value = getattr(args, field.name)
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{field.name} must be a finite number, got {value}")
    if args.learning_rate <= 0:
        raise ValueError(f"learning_rate must be > 0, got {args.learning_rate}")
    check_device(args.device)


def check_memory(what: str, bytes_needed: int) -> None:
    """Refuse a buffer that cannot fit in this machine's memory, before allocating it."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not every system reports it
        return
    if bytes_needed > 0.8 * total:
        raise ValueError(
            f"{what} would take {bytes_needed / 1e9:.1f} GB, more than 80% of this machine's {total / 1e9:.1f} GB"
        )


def prepare_run_dir(run_dir: Path) -> None:
    """Create the run folder and prove it writable before any work starts (else :func:`fail`)."""
    try:
        check_writable(run_dir / "checkpoints" / "last.pt")
    except OSError as error:
        fail(f"cannot use the run folder {run_dir}: {error}")
