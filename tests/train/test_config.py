"""The one config system: a flag per field grouped by section, one validation, no disk in constructors."""

from __future__ import annotations

import dataclasses

import pytest

from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
from chess_envs.train.config import Config, arg, build, from_dict, parse_args, section, settings, to_dict
from chess_envs.train.distill import DistillConfig
from chess_envs.train.dqn.config import DQNConfig

CONFIGS = (AlphaZeroConfig, DistillConfig, DQNConfig)


@pytest.mark.parametrize("cls", CONFIGS)
def test_help_documents_every_field_by_section(cls, capsys) -> None:
    with pytest.raises(SystemExit):
        parse_args(cls, {}, ["--help"])
    text = capsys.readouterr().out
    for name, (part, item) in settings(cls).items():
        if name != "preset":
            assert f"--{name.replace('_', '-')}" in text and item.metadata["help"].split("(")[0][:30] in text
        assert f"\n{part}:\n" in text, part


@pytest.mark.parametrize("cls", CONFIGS)
def test_defaults_are_valid_and_round_trip_through_json(cls) -> None:
    config = cls()
    assert from_dict(cls, to_dict(config)) == config
    flat = {name: getattr(config, name) for name in settings(cls)}
    assert from_dict(cls, flat) == config  # 0.2's args.json was flat


def test_settings_are_read_by_name_or_through_their_section() -> None:
    config = build(AlphaZeroConfig, **PRESETS["los_alamos"])
    assert config.simulations == config.search.simulations == PRESETS["los_alamos"]["simulations"]
    assert config.run.run_name == "alphazero" and config.run_name == "alphazero"
    with pytest.raises(AttributeError, match="no setting 'simulation'"):
        config.simulation  # noqa: B018


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_is_a_valid_config(preset) -> None:
    config = build(AlphaZeroConfig, **PRESETS[preset])
    assert all(getattr(config, name) == value for name, value in PRESETS[preset].items())
    if preset == "quick":  # the README's main job: a few minutes, a game of two players
        assert 0 < config.minutes <= 3 and config.game == "los_alamos"


@pytest.mark.parametrize(
    "values, message",
    [
        ({"simulations": 0}, "simulations must be >= 1, got 0"),
        ({"batch_size": 10**6}, "batch_size must be <= 65,536"),
        ({"optimizer": "lion"}, "optimizer must be one of adamw, sgd; got 'lion'"),
        ({"learning_rate": float("nan")}, "learning_rate must be a finite number"),
        ({"blocks": "two"}, "blocks must be int, got 'two'"),
        ({"gumbel": 1}, "gumbel must be bool"),
        ({"game": "go"}, "unknown game"),
        ({"device": "tpu:9"}, "device"),
        ({"simulatons": 8}, "no setting 'simulatons'"),
    ],
)
def test_one_validation_names_what_is_wrong(values, message) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("+", r"\+")):
        build(AlphaZeroConfig, **values)


def test_an_int_is_a_float_where_a_float_is_asked() -> None:
    assert build(AlphaZeroConfig, learning_rate=1).learning_rate == 1.0


def test_building_a_config_reads_no_file(tmp_path) -> None:
    """--init names a checkpoint: it is read when the run starts, not when the config is built."""
    missing = tmp_path / "nowhere.pt"
    config = build(AlphaZeroConfig, init=str(missing), runs_dir=str(tmp_path / "runs"))
    assert config.init == str(missing) and not (tmp_path / "runs").exists()
    from chess_envs.train.alphazero.loop import run

    with pytest.raises(SystemExit):
        run(config)


def test_a_name_in_two_sections_is_refused() -> None:
    @dataclasses.dataclass
    class A:
        size: int = arg(1, "a size")

    @dataclasses.dataclass
    class B:
        size: int = arg(2, "another size")

    @dataclasses.dataclass
    class Both(Config):
        a: A = section(A)
        b: B = section(B)

    with pytest.raises(TypeError, match="'size' names two settings"):
        build(Both)
