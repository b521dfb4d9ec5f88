"""Settings as dataclass fields that carry their doc, bounds and choices, and the one check of them.

The search's settings (:mod:`chess_envs.search.settings`), the agents' options and every trainer's
config sections declare their fields with :func:`arg`; :func:`check_fields` enforces what a field
declares, and :func:`parse_value` reads one from text (a spec option, a command-line flag).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")
"""a dataclass of settings"""

_KINDS = {"int": int, "float": float, "bool": bool, "str": str}


def arg(
    default: Any,
    help: str,  # noqa: A002  (argparse's name)
    *,
    low: float | None = None,
    above: float | None = None,
    high: float | None = None,
    choices: tuple[str, ...] | None = None,
    spec: str | None = None,
    native: bool = False,
) -> Any:
    """A setting: its default, one-line doc, and what it must keep: ``low <= value <= high``,
    ``value > above``, or one of ``choices``. ``spec``: its name in an agent spec string
    (``sims``), if agents take it; ``native``: the native search takes it by name."""
    metadata = dict(help=help, low=low, above=above, high=high, choices=choices, spec=spec, native=native)
    return dataclasses.field(default=default, metadata=metadata)


def kind_of(item: dataclasses.Field) -> tuple[type, bool]:
    """(the field's value type, whether None is allowed) from its annotation (``float | None``)."""
    text = item.type if isinstance(item.type, str) else item.type.__name__
    optional = text.endswith(" | None")
    return _KINDS[text.removesuffix(" | None")], optional


def check_fields(holder: Any) -> None:
    """Every field of the dataclass ``holder`` as :func:`check_value` checks it (an int given for a
    float becomes one); ValueError names the first that is wrong."""
    for item in dataclasses.fields(holder):
        object.__setattr__(holder, item.name, check_value(item, getattr(holder, item.name)))


def check_value(item: dataclasses.Field, value: Any, name: str | None = None) -> Any:
    """``value`` if it is what ``item`` declares: its type (an int for a float becomes one), finite
    if a float, within its bounds and choices; else ValueError naming ``name`` (default: the field's)."""
    meta, label = item.metadata, name or item.name
    kind, optional = kind_of(item)
    if value is None and optional:
        return value
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(f"{label} must be {kind.__name__}, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{label} must be a finite number, got {value}")
    if meta.get("choices") is not None and value not in meta["choices"]:
        raise ValueError(f"{label} must be one of {', '.join(meta['choices'])}; got {value!r}")
    if meta.get("low") is not None and value < meta["low"]:
        raise ValueError(f"{label} must be >= {meta['low']:,}, got {value:,}")
    if meta.get("above") is not None and not value > meta["above"]:
        raise ValueError(f"{label} must be > {meta['above']:,}, got {value:,}")
    if meta.get("high") is not None and value > meta["high"]:
        raise ValueError(f"{label} must be <= {meta['high']:,}, got {value:,}")
    return value


def parse_value(item: dataclasses.Field, text: str, name: str | None = None) -> Any:
    """The value of ``item`` written as ``text`` (``none`` for an optional one; true/false, 1/0,
    yes/no for a bool); ValueError names ``name`` (default: the field's)."""
    kind, optional = kind_of(item)
    label = name or item.name
    if optional and text.lower() == "none":
        return None
    if kind is bool:
        value = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}.get(text.lower())
        if value is None:
            raise ValueError(f"{label} must be true or false, got {text!r}")
        return value
    try:
        value = kind(text)
    except (TypeError, ValueError, OverflowError):
        article = "an integer" if kind is int else "a number" if kind is float else kind.__name__
        raise ValueError(f"{label} must be {article}, got {text!r}") from None
    return check_value(item, value, label)


def from_text(cls: type[T], texts: Mapping[str, str], label: str = "option", also: Iterable[str] = ()) -> T:
    """The dataclass ``cls`` of settings written as text by field name (a spec's options), each
    read by :func:`parse_value`; ValueError names an unknown or a bad one (and lists the known ones
    with ``also``, names taken before this call)."""
    fields = {item.name: item for item in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(texts) - set(fields))
    if unknown:
        raise ValueError(f"unknown {label} {', '.join(unknown)} (known: {', '.join([*also, *fields]) or 'none'})")
    return cls(**{name: parse_value(fields[name], text, f"{label} {name}") for name, text in texts.items()})
