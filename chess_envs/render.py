"""Text, SVG and RGB pictures of any game state that offers ``board_cells()``.

``board_cells()`` gives the rows top (the far side from seat 0) to bottom; each cell is None
for an empty square, False for a square that is not on the board (four-player corners) or
``(piece letter, seat)``. A state may name its seats' colours in ``seat_colours`` (four-player:
red, blue, yellow, green, then grey for dead pieces). A state with its own ``to_svg()``
(standard chess, through python-chess) uses it for SVG.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

SQUARE_PX = 48
LIGHT, DARK = (240, 217, 181), (181, 136, 99)
OFF_BOARD = (255, 255, 255)
SEAT_FILL = ((250, 250, 250), (30, 30, 30))


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def render_ansi(state) -> str:
    """The board as text, then the position's notation.

    Two seats: white upper case, black lower case. More seats: a colour letter then the piece
    (``rK``, ``bQ``; ``d`` for dead pieces), corners left blank.
    """
    letters = state.seat_letters
    lines = []
    for row in state.board_cells():
        lines.append(" ".join(_ansi_cell(cell, letters) for cell in row))
    return "\n".join(lines) + f"\n{state.to_text()}\n"


def _ansi_cell(cell: tuple[str, int] | None | bool, letters: str | None) -> str:
    if cell is False:
        return "  " if letters else " "
    if not isinstance(cell, tuple):
        return " ." if letters else "."
    letter, seat = cell
    if letters:
        return letters[seat] + letter
    return letter.upper() if seat == 0 else letter.lower()


def _colours(state) -> tuple[tuple[tuple[int, int, int], ...], tuple[tuple[int, int, int], ...]]:
    fills = state.seat_colours or SEAT_FILL
    inks = tuple((0, 0, 0) if sum(fill) > 450 else (255, 255, 255) for fill in fills)
    return fills, inks


def render_svg(state, size: int = 400) -> str:
    """An SVG picture of the board: the game's own picture (python-chess's for chess)."""
    return state.to_svg(size=size)


def board_svg(state, size: int = 400) -> str:
    """An SVG picture of any game's ``board_cells()``, in its seat colours."""
    cells = state.board_cells()
    fills, inks = _colours(state)
    rows, cols = len(cells), len(cells[0])
    unit = size / max(rows, cols)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * unit:g}" height="{rows * unit:g}">']
    for r, row in enumerate(cells):
        for c, cell in enumerate(row):
            if cell is False:
                continue
            square = _hex(LIGHT if (r + c) % 2 == 0 else DARK)
            parts.append(
                f'<rect x="{c * unit:g}" y="{r * unit:g}" width="{unit:g}" height="{unit:g}" fill="{square}"/>'
            )
            if cell is not None:
                letter, seat = cell
                cx, cy = (c + 0.5) * unit, (r + 0.5) * unit
                fill, ink = _hex(fills[seat]), _hex(inks[seat])
                parts.append(f'<circle cx="{cx:g}" cy="{cy:g}" r="{unit * 0.4:g}" fill="{fill}" stroke="black"/>')
                parts.append(
                    f'<text x="{cx:g}" y="{cy:g}" font-size="{unit * 0.5:g}" text-anchor="middle" '
                    f'dominant-baseline="central" fill="{ink}">{letter}</text>'
                )
    parts.append("</svg>")
    return "".join(parts)


@lru_cache(maxsize=4)
def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def render_rgb(state, square_px: int = SQUARE_PX) -> np.ndarray:
    """An RGB picture of the board, uint8 of shape (rows * square_px, cols * square_px, 3): a new,
    writable array (video recorders and wrappers draw on the frames they get)."""
    cells = state.board_cells()
    fills, inks = _colours(state)
    rows, cols = len(cells), len(cells[0])
    image = Image.new("RGB", (cols * square_px, rows * square_px), OFF_BOARD if _has_holes(cells) else LIGHT)
    draw = ImageDraw.Draw(image)
    font = _font(int(square_px * 0.55))
    margin = square_px * 0.1
    for r, row in enumerate(cells):
        for c, cell in enumerate(row):
            x, y = c * square_px, r * square_px
            if cell is False:
                continue
            draw.rectangle((x, y, x + square_px - 1, y + square_px - 1), fill=DARK if (r + c) % 2 else LIGHT)
            if cell is not None:
                letter, seat = cell
                box = (x + margin, y + margin, x + square_px - margin, y + square_px - margin)
                draw.ellipse(box, fill=fills[seat], outline=(0, 0, 0), width=2)
                centre = (x + square_px / 2, y + square_px / 2)
                draw.text(centre, letter, fill=inks[seat], font=font, anchor="mm")
    return np.array(image, dtype=np.uint8)  # a copy: np.asarray of an image is read-only


def _has_holes(cells: list[list]) -> bool:
    return any(cell is False for row in cells for cell in row)
