"""Each search setting is declared once (chess_envs.search.settings): every surface that exposes one
(the native binding's defaults and limits, the settings class, the agent's spec options, the
trainer's flags, the UCI options) agrees with the table, but for the overrides it lists on purpose."""

from __future__ import annotations

import dataclasses

import pytest

from chess_envs.agents import make_agent
from chess_envs.agents.alphazero.agent import PLAY_SEARCH
from chess_envs.agents.shipped import play_options, shipped_agent
from chess_envs.apps.uci import OPTIONS as UCI_OPTIONS
from chess_envs.native import core
from chess_envs.search.settings import SETTINGS, SPEC_NAMES, MCTSConfig, native_settings, spec_options
from chess_envs.train.alphazero.config import PRESETS, SELF_PLAY_SEARCH, AlphaZeroConfig
from chess_envs.train.config import build, parse_args, settings

UCI_DEFAULTS = {"simulations": 800}
"""the UCI engine's own default where it is not the table's (a stronger default budget per move)"""


def bounded(name: str) -> tuple[float | None, float | None]:
    meta = SETTINGS[name].metadata
    return meta["low"] if meta["low"] is not None else meta["above"], meta["high"]


def past(value: float, step: int) -> float:
    return value + step if isinstance(value, int) else value + step * 1e-3 * max(1.0, abs(value))


def test_the_native_search_has_the_rows_marked_native_with_their_defaults_and_bounds() -> None:
    native = core.search_settings()
    assert set(native) == {name for name, item in SETTINGS.items() if item.metadata["native"]}
    for name, (default, low, high) in native.items():
        assert default == SETTINGS[name].default, name
        assert (low, high) == bounded(name), name


@pytest.mark.parametrize("name", [name for name, item in SETTINGS.items() if item.metadata["native"]])
def test_the_native_search_refuses_just_past_each_bound_and_takes_each_bound(name: str) -> None:
    low, high = bounded(name)
    search = core.LosAlamosSearch
    for value in (low, high):
        search(2, core.EvaluationCache(1.0), 10, 10, **{name: value})
        with pytest.raises(ValueError, match=name):
            search(2, core.EvaluationCache(1.0), 10, 10, **{name: past(value, -1 if value == low else 1)})
    with pytest.raises(TypeError, match="unknown search setting"):
        search(2, core.EvaluationCache(1.0), 10, 10, fpu=0.0)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_the_settings_class_checks_each_row(name: str) -> None:
    item = SETTINGS[name]
    low, high = bounded(name)
    for value, step in ((low, -1), (high, 1)):
        if value is None:
            continue
        if item.metadata["low"] is not None or value == high:
            MCTSConfig(**{name: value})
        with pytest.raises(ValueError, match=name):
            MCTSConfig(**{name: past(value, step)})
    if item.metadata["choices"]:
        with pytest.raises(ValueError, match=name):
            MCTSConfig(**{name: "neither"})
    assert native_settings(MCTSConfig()) == {n: SETTINGS[n].default for n in core.search_settings()}


@pytest.mark.parametrize("spec", sorted(SPEC_NAMES))
def test_the_agent_spec_options_are_the_table_rows_with_a_spec_name(spec: str) -> None:
    name = SPEC_NAMES[spec]
    low, high = bounded(name)
    for value, step in ((low, -1), (high, 1)):
        if value is not None:
            assert spec_options({spec: str(value)}) == {name: value}
            with pytest.raises(ValueError, match=f"option {spec}"):
                spec_options({spec: str(past(value, step))})
    with pytest.raises(ValueError, match=f"option {spec}"):
        spec_options({spec: "x"})


def test_an_agent_searches_with_the_table_defaults_but_its_own_play_settings() -> None:
    agent = make_agent("alphazero:@los_alamos", "los_alamos")
    expected = MCTSConfig(**PLAY_SEARCH)
    assert agent.search.config == expected
    assert {n for n in SETTINGS if getattr(expected, n) != SETTINGS[n].default} == set(PLAY_SEARCH)
    # The widest bounds the native search takes are the agent's too (0.3 refused leaves past 256).
    config = make_agent("alphazero:@los_alamos?leaves=4096&mate=5", "los_alamos").search.config
    assert (config.leaves_per_tree, config.mate_depth) == (4096, 5)
    # The shipped networks' play options are overrides on purpose; each is a row of the table or the agent's.
    for game in ("chess", "los_alamos", "four_player"):
        options = play_options(game)
        agent = make_agent(shipped_agent(game), game)
        search_options = {k: v for k, v in options.items() if k in SPEC_NAMES}
        for name, value in spec_options(dict(search_options)).items():
            assert getattr(agent.search.config, name) == value


def test_the_trainer_flags_are_the_table_rows_and_self_play_lists_its_overrides() -> None:
    flags = settings(AlphaZeroConfig)
    for name, item in SETTINGS.items():
        section, field = flags[name]
        assert section == "search" and field is item  # the table's own field, not a copy
    config = build(AlphaZeroConfig)
    differing = {n for n in SETTINGS if getattr(config.search, n) != SETTINGS[n].default}
    assert differing == set(SELF_PLAY_SEARCH)
    for preset, values in PRESETS.items():  # a preset overrides a search setting by naming it
        assert dataclasses.asdict(build(AlphaZeroConfig, **values).search) == {
            **dataclasses.asdict(config.search),
            **{k: v for k, v in values.items() if k in SETTINGS},
        }, preset
    assert parse_args(AlphaZeroConfig, PRESETS, ["--leaves-per-tree", "4096", "--root-fpu", "none"]).search == (
        dataclasses.replace(config.search, leaves_per_tree=4096, root_fpu=None)
    )
    for flag in (["--fpu-reduction", "2.5"], ["--mate-depth", "6"], ["--leaves-per-tree", "4097"]):
        with pytest.raises(SystemExit):
            parse_args(AlphaZeroConfig, PRESETS, flag)


def test_the_uci_options_that_set_a_search_setting_stay_within_its_row() -> None:
    rows = [option for option in UCI_OPTIONS if option.setting is not None]
    assert {option.setting for option in rows} == {"simulations", "cache_mb"}
    for option in rows:
        assert option.setting is not None and not callable(option.bounds)
        low, high = bounded(option.setting)
        assert low is not None and high is not None
        assert low <= option.bounds[0] and option.bounds[1] <= high, option.name
        assert option.default == UCI_DEFAULTS.get(option.setting, SETTINGS[option.setting].default), option.name


def test_the_native_search_names_a_setting_of_the_wrong_type() -> None:
    search = core.LosAlamosSearch
    with pytest.raises(TypeError, match="search setting 'threads' must be an integer, got '2'"):
        search(2, core.EvaluationCache(1.0), 10, 10, threads="2")
    with pytest.raises(TypeError, match="search setting 'leaves_per_tree' must be an integer"):
        search(2, core.EvaluationCache(1.0), 10, 10, leaves_per_tree=2**40)
    with pytest.raises(TypeError, match="search setting 'fpu_reduction' must be a number"):
        search(2, core.EvaluationCache(1.0), 10, 10, fpu_reduction="high")
