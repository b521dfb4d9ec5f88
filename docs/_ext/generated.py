"""Sphinx directives whose tables are read from the code, so a new setting, option, preset or command
appears in the site without editing a page:

- ``settings-table module:Class``: a dataclass of settings declared with :func:`chess_envs.fields.arg`
  (name, type, default, range, what); ``:spec:`` shows the agent spec's names (and only the rows that
  have one), ``:defaults: module:DICT`` the defaults meant on purpose over the table's.
- ``config-table module:Class``: every flag of a trainer's config, by section, with the trainer's defaults.
- ``presets-table module:DICT``: a trainer's presets and what each sets.
- ``uci-options``: the UCI engine's options (:data:`chess_envs.apps.uci.OPTIONS`).
- ``commands-table``: the ``chess-envs`` subcommands (:data:`chess_envs.by_name.COMMANDS`).
- ``model-card GAME``: the model card of a shipped network (``chess_envs/agents/networks/<game>.card.json``).
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


def load(target: str) -> Any:
    """The object named ``module:attribute``."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def cell(value: object, code: bool = False) -> nodes.entry:
    text = "" if value is None else str(value)
    inline: nodes.Node = nodes.literal(text, text) if code and text else nodes.Text(text)
    return nodes.entry("", nodes.paragraph("", "", inline))


def table(headers: list[str], rows: list[list[nodes.entry]], widths: list[int] | None = None) -> nodes.table:
    """A docutils table of ``rows`` (cells from :func:`cell`) under ``headers``."""
    group = nodes.tgroup(cols=len(headers))
    for width in widths or [1] * len(headers):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    head += nodes.row("", *[cell(text) for text in headers])
    body = nodes.tbody()
    for row in rows:
        body += nodes.row("", *row)
    group += head
    group += body
    return nodes.table("", group, classes=["generated"])


def kind_name(item: dataclasses.Field) -> str:
    return item.type if isinstance(item.type, str) else item.type.__name__


def bounds(item: dataclasses.Field) -> str:
    """What a field must keep, as text: ``0 .. 100``, ``> 0``, ``a | b``."""
    meta = item.metadata
    if meta.get("choices"):
        return " | ".join(meta["choices"])
    low, above, high = meta.get("low"), meta.get("above"), meta.get("high")
    if above is not None:
        return f"> {above:g}" + (f", <= {high:g}" if high is not None else "")
    if low is None and high is None:
        return ""
    return f"{'' if low is None else f'{low:,g}'} .. {'' if high is None else f'{high:,g}'}".strip()


def shown(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    return f"{value:g}" if isinstance(value, float) else str(value)


class SettingsTable(SphinxDirective):
    required_arguments = 1
    option_spec = {"spec": directives.flag, "defaults": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        cls = load(self.arguments[0])
        overrides = load(self.options["defaults"]) if "defaults" in self.options else {}
        spec = "spec" in self.options
        rows = []
        for item in dataclasses.fields(cls):
            if spec and not item.metadata.get("spec"):
                continue
            name = item.metadata["spec"] if spec else item.name
            default = overrides.get(item.name, item.default)
            rows.append(
                [
                    cell(name, code=True),
                    cell(kind_name(item)),
                    cell(shown(default), code=True),
                    cell(bounds(item)),
                    cell(item.metadata.get("help", "")),
                ]
            )
        return [table(["name", "type", "default", "range", "what"], rows, [2, 1, 1, 2, 6])]


class ConfigTable(SphinxDirective):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        config = load(self.arguments[0])()
        rows = []
        for part in dataclasses.fields(config):
            holder = getattr(config, part.name)
            for item in dataclasses.fields(holder):
                rows.append(
                    [
                        cell(part.name),
                        cell("--" + item.name.replace("_", "-"), code=True),
                        cell(shown(getattr(holder, item.name)), code=True),
                        cell(bounds(item)),
                        cell(item.metadata.get("help", "")),
                    ]
                )
        return [table(["section", "flag", "default", "range", "what"], rows, [1, 2, 1, 2, 6])]


class PresetsTable(SphinxDirective):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        presets: dict[str, dict[str, Any]] = load(self.arguments[0])
        rows = [
            [cell(name, code=True), cell(" ".join(f"{key}={shown(value)}" for key, value in values.items()))]
            for name, values in presets.items()
        ]
        return [table(["preset", "settings over the defaults"], rows, [1, 8])]


class UCIOptions(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        rows = []
        for option in load("chess_envs.apps.uci:OPTIONS"):
            span = "" if callable(option.bounds) else f"{option.bounds[0]:,} .. {option.bounds[1]:,}"
            rows.append(
                [
                    cell(option.name, code=True),
                    cell(option.type),
                    cell(shown(option.default), code=True),
                    cell(span if option.type == "spin" else " | ".join(option.values)),
                    cell(getattr(option, "help", "")),
                ]
            )
        return [table(["option", "type", "default", "range", "what"], rows, [2, 1, 1, 2, 6])]


class CommandsTable(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        commands = load("chess_envs.by_name:COMMANDS")
        rows = [
            [cell(f"chess-envs {name}", code=True), cell(extra and f"[{extra}]"), cell(text)]
            for name, (_, extra, text, _) in commands.items()
        ]
        return [table(["command", "extra", "what"], rows, [2, 1, 6])]


class ModelCard(SphinxDirective):
    """A shipped network's card as a definition list, its ratings and learning curve as tables."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        card = load("chess_envs.agents.cards:load_card")(self.arguments[0])
        architecture = card["architecture"]
        training = card["training"]
        facts = [
            ("network", f"{card['network']}: {card['summary']}"),
            (
                "architecture",
                f"{architecture['blocks']} residual blocks of {architecture['filters']} filters, "
                f"{architecture['activation']}, value head {architecture['value_hidden']}; "
                f"{architecture['parameters']:,} parameters",
            ),
            ("inputs", card["inputs"]),
            ("method", training["method"]),
            ("data", training["data"]),
            (
                "compute",
                f"{training['cpu_hours_training']:g} CPU-hours of training, {training['cpu_hours_labelling']:g} of "
                f"labelling ({training['hardware']}); rating time not counted",
            ),
            ("plays with", " ".join(f"{k}={v}" for k, v in card["play_options"].items()) or "the agent's defaults"),
        ]
        listing = nodes.definition_list()
        for term, text in facts:
            listing += nodes.definition_list_item(
                "", nodes.term(term, term), nodes.definition("", nodes.paragraph(text, text))
            )
        result: list[nodes.Node] = [listing, nodes.rubric("", "Reproduce")]
        commands = "\n".join(training["commands"])
        result.append(nodes.literal_block(commands, commands, language="bash"))
        result.append(nodes.rubric("", "Ratings"))
        rows = [
            [
                cell(rating["opponent"], code=True),
                cell(rating["network"], code=True),
                cell(rating["games"]),
                cell(f"{100 * rating['score']:.1f}%"),
                cell(" .. ".join(f"{100 * x:.1f}%" for x in rating["interval"])),
                cell("" if rating["wall_minutes"] is None else f"{rating['wall_minutes']:g}"),
            ]
            for rating in card["ratings"]
        ]
        header = ["against", "the network as", "games", "score", "95% interval", "minutes (wall)"]
        result.append(table(header, rows, [3, 3, 1, 1, 2, 1]))
        shared = (
            "Minutes: the wall time of each rating's command on the card's hardware, not counted in training "
            "(shared where one command rated several opponents; blank where it was not recorded)."
        )
        result.append(nodes.paragraph(shared, shared))
        measured = "\n".join(dict.fromkeys(rating["command"] for rating in card["ratings"]))
        result.append(nodes.paragraph("", "Measured by:"))
        result.append(nodes.literal_block(measured, measured, language="bash"))
        if card["learning_curve"]:
            result.append(nodes.rubric("", "Learning curve"))
            elo = load("chess_envs.arena.ratings:elo_of_score")
            rows = [
                [
                    cell(f"{x['cpu_minutes'] / 60:.2f}"),
                    cell(x["opponent"], code=True),
                    cell(f"{100 * x['score']:.1f}%"),
                    cell(f"{elo(x['score']):+.0f}"),
                ]
                for x in card["learning_curve"]
            ]
            result.append(table(["CPU-hours", "against", "score", "Elo"], rows, [1, 3, 1, 1]))
        if card["uci_elo"]:
            result.append(nodes.rubric("", "UCI_Elo levels"))
            rows = [
                [
                    cell(level["simulations"]),
                    cell(f"{level['temperature']:g}"),
                    cell(f"{level['elo']:.0f}"),
                    cell(f"{level.get('measured_elo', level['elo']):.0f} +/- {level['half']:.0f}"),
                ]
                for level in card["uci_elo"]["levels"]
            ]
            result.append(table(["simulations", "temperature", "Elo on the path", "measured"], rows, [1, 1, 1, 1]))
            scale = f"Scale: {card['uci_elo']['scale']}; made by: {card['uci_elo']['made_by']}"
            result.append(nodes.paragraph(scale, scale))
        result.append(nodes.rubric("", "Known weaknesses"))
        weaknesses = nodes.bullet_list()
        for text in card["weaknesses"]:
            weaknesses += nodes.list_item("", nodes.paragraph(text, text))
        result.append(weaknesses)
        if card["experiments"]:
            result.append(nodes.rubric("", "Experiments"))
            entries = nodes.bullet_list()
            for name in card["experiments"]:  # docs/experiments/<date>-<name>.md
                target = "/" + name.removeprefix("docs/").removesuffix(".md")
                link = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget=target, refexplicit=False)
                link += nodes.inline(target, target)
                entries += nodes.list_item("", nodes.paragraph("", "", link))
            result.append(entries)
        return result


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("settings-table", SettingsTable)
    app.add_directive("config-table", ConfigTable)
    app.add_directive("presets-table", PresetsTable)
    app.add_directive("uci-options", UCIOptions)
    app.add_directive("commands-table", CommandsTable)
    app.add_directive("model-card", ModelCard)
    return {"parallel_read_safe": True, "version": "1"}
