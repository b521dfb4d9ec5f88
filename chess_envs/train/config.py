"""One config system for every trainer: a run's settings are sections (dataclasses) of fields,
each field a command-line flag with its help, bounds and choices, checked by one validation.

A trainer's config is a dataclass whose fields are sections::

    @dataclass
    class DQNConfig(Config):
        run: RunSection = section(RunSection, run_name="dqn")
        ...

``make_parser(DQNConfig, PRESETS)`` gives every field of every section a flag
(``--learning-rate``; names are unique across a config's sections), and :func:`parse_args` applies
``--preset NAME`` first and the flags given over it. :func:`build` does the same from keyword arguments, and
:func:`from_dict` reads a config written by :func:`to_dict` (nested; 0.3's renamed settings under
their new names, ``RENAMED``) or by 0.2 (flat).
Building a config validates it (``validate``) and touches nothing else: no file is read.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar, cast

from chess_envs.fields import arg, check_fields, kind_of, parse_value

C = TypeVar("C", bound="Config")
"""a trainer's config class"""

__all__ = ["Config", "arg", "build", "fail", "from_dict", "make_parser", "parse_args", "section", "settings", "to_dict"]

RENAMED = {"search_threads": "threads"}
"""settings renamed since a run folder may have been written: old name -> today's (0.3 -> 0.4)"""


def section(cls: type, **defaults: Any) -> Any:
    """A config's field holding section ``cls``, with this trainer's own defaults for some of its fields."""
    return dataclasses.field(default_factory=lambda: cls(**defaults))


class Config:
    """Base of a trainer's config: its dataclass fields are sections; building one validates it."""

    def __post_init__(self) -> None:
        validate(self)

    def check(self) -> None:
        """Rules across fields (ValueError); the field bounds are checked before this."""

    def __getattr__(self, name: str) -> Any:
        """A field by its flag name, whichever section holds it (``config.game``)."""
        if name.startswith("_"):
            raise AttributeError(name)
        for part in dataclasses.fields(self):  # type: ignore[arg-type]
            holder = self.__dict__.get(part.name)
            if holder is not None and name in holder.__dataclass_fields__:
                return getattr(holder, name)
        raise AttributeError(f"{type(self).__name__} has no setting {name!r}")


def settings(cls: type[Config]) -> dict[str, tuple[str, dataclasses.Field]]:
    """Every field of a config class by its name: (the section holding it, the field)."""
    found: dict[str, tuple[str, dataclasses.Field]] = {}
    for part in dataclasses.fields(cls):  # type: ignore[arg-type]
        for item in dataclasses.fields(_default(part)):
            if item.name in found or item.name in cls.__dataclass_fields__:  # type: ignore[attr-defined]
                raise TypeError(f"{cls.__name__}: {item.name!r} names two settings or a section and a setting")
            found[item.name] = (part.name, item)
    return found


def validate(config: Config) -> None:
    """Every field of every section: its type, finite if a float, within its bounds and choices;
    then the config's own :meth:`Config.check`. ValueError names the first field that is wrong."""
    for part in dataclasses.fields(config):  # type: ignore[arg-type]
        holder = getattr(config, part.name)
        check_fields(holder)
        if hasattr(holder, "check"):
            holder.check()
    config.check()


def build(cls: type[C], **values: Any) -> C:
    """A config from settings by name (``build(AlphaZeroConfig, game="chess", filters=32)``), the
    trainer's defaults for the rest; ValueError names a setting the config does not have."""
    known = settings(cls)
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ValueError(f"{cls.__name__} has no setting {', '.join(map(repr, unknown))}")
    sections = {}
    for part in dataclasses.fields(cls):  # type: ignore[arg-type]
        given = {name: value for name, value in values.items() if known[name][0] == part.name}
        sections[part.name] = dataclasses.replace(_default(part), **given)
    return cls(**sections)


def to_dict(config: Config) -> dict[str, dict[str, Any]]:
    """The config as JSON-ready nested sections (what ``config.json`` of a run holds)."""
    return dataclasses.asdict(config)  # type: ignore[call-overload]


def from_dict(cls: type[C], data: dict[str, Any]) -> C:
    """A config from :func:`to_dict`'s nested sections, or from a flat dict of settings (0.2's ``args.json``)."""
    names = {part.name for part in dataclasses.fields(cls)}  # type: ignore[arg-type]
    if data and all(isinstance(value, dict) and key in names for key, value in data.items()):
        data = {name: value for part in data.values() for name, value in part.items()}
    return build(cls, **{RENAMED.get(name, name): value for name, value in data.items()})


def make_parser(
    cls: type[Config], presets: dict[str, dict[str, Any]], description: str = "", prog: str | None = None
) -> argparse.ArgumentParser:
    """The command line of a trainer's config: ``--preset NAME``, and a flag per field, grouped by section."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--preset", choices=sorted(presets), help="a named set of defaults; flags override it")
    groups: dict[str, argparse._ArgumentGroup] = {}
    for name, (part, item) in settings(cls).items():
        if name == "preset":
            continue
        group = groups.setdefault(part, parser.add_argument_group(part))
        kind, _ = kind_of(item)
        default = getattr(_default(cls.__dataclass_fields__[part]), name)  # type: ignore[attr-defined]
        options: dict[str, Any] = {
            "default": argparse.SUPPRESS,
            "help": f"{item.metadata.get('help', '')} (default: {default})",
        }
        if item.metadata.get("choices"):
            options["choices"] = item.metadata["choices"]
        options["type"] = functools.partial(_flag_value, item)  # the parser of spec options too
        if kind is bool:
            options.update(nargs="?", const=True, metavar="{true,false}")
        names = [name, *(before for before, now in RENAMED.items() if now == name)]  # 0.3's flag still works
        group.add_argument(*("--" + flag.replace("_", "-") for flag in names), dest=name, **options)
    return parser


def parse_args(
    cls: type[C],
    presets: dict[str, dict[str, Any]],
    argv: list[str] | None = None,
    parser: argparse.ArgumentParser | None = None,
) -> C:
    """The config of a command line read by ``parser`` (default: :func:`make_parser`'s for ``cls`` and
    ``presets``): ``--preset NAME`` first, then the flags given; a bad value ends the program with
    argparse's usage error."""
    parser = parser or make_parser(cls, presets)
    namespace = parser.parse_args(argv)
    values = dict(presets.get(namespace.preset, {})) if namespace.preset else {}
    values.update({k: v for k, v in vars(namespace).items() if k != "preset"})  # only the flags given
    if namespace.preset:
        values["preset"] = namespace.preset
    try:
        return build(cls, **values)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
        raise  # unreachable: parser.error exits


def _default(part: dataclasses.Field) -> Any:
    """The section a config's field holds by default (with its trainer's defaults)."""
    return cast(Callable[[], Any], part.default_factory)()


def _flag_value(item: dataclasses.Field, text: str) -> Any:
    try:
        return parse_value(item, text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def fail(message: str) -> NoReturn:
    """End a command line with a one-line error and exit code 2 (argparse's code for bad usage)."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)
