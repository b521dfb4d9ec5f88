"""The web app in a real headless Chromium (Debian's chromium and chromium-driver, driven by
Selenium) against a real uvicorn server on loopback: moves by clicking, a refused illegal drag,
a four-player game with three agents, a Los Alamos checkmate, the PGN download. Set
CHESS_ENVS_SCREENSHOTS=1 to write the screenshots to docs/images/."""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agents.test_agents import IN_CI

uvicorn = pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from tests.evaluate.web_server import game_in_play, serve  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
ROOT = Path(__file__).resolve().parents[2]
needs_browser = pytest.mark.skipif(
    (CHROMIUM is None or DRIVER is None) and not IN_CI, reason="chromium and chromium-driver are not installed"
)
AGENTS = ["random?seed=1", "greedy?seed=1", "alphazero:@los_alamos?sims=16"]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve(AGENTS) as url:
        yield url


@pytest.fixture
def browser() -> Iterator:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM or "chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,800"):
        options.add_argument(flag)
    service = webdriver.ChromeService(executable_path=DRIVER or "chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


def start(driver, url: str, game: str, seats: list[str], fen: str = "", mode: str | None = None) -> None:
    driver.get(url)
    wait(driver, lambda d: game in choices(d, "game"))
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    for seat, who in enumerate(seats):
        Select(driver.find_element(By.ID, f"seat-{seat}")).select_by_value(who)
    if mode is not None:
        Select(driver.find_element(By.ID, "mode")).select_by_value(mode)
    driver.find_element(By.ID, "fen").send_keys(fen)
    driver.find_element(By.ID, "new-game").click()


def choices(driver, select: str) -> list[str]:
    return [option.get_attribute("value") for option in Select(driver.find_element(By.ID, select)).options]


def wait(driver, condition, seconds: float = 60):
    return WebDriverWait(driver, seconds, poll_frequency=0.05).until(condition)


def square(driver, row: int, col: int):
    return driver.find_element(By.CSS_SELECTOR, f"rect[data-square='{row},{col}']")


def drag(driver, source: tuple[int, int], target: tuple[int, int]) -> None:
    """Press on one square, move to another and let go (the board is redrawn on the press, so the
    target is reached by its offset)."""
    start, end = square(driver, *source).rect, square(driver, *target).rect
    chain = ActionChains(driver).click_and_hold(square(driver, *source))
    chain.move_by_offset(int(end["x"] - start["x"]), int(end["y"] - start["y"])).release().perform()


def moves_shown(driver) -> list[str]:
    return driver.execute_script("return [...document.querySelectorAll('#moves li')].map(li => li.textContent)")


def status(driver) -> str:
    return driver.execute_script("return document.getElementById('status').textContent")


def screenshot(driver, name: str, tmp_path: Path) -> Path:
    folder = ROOT / "docs" / "images" if os.environ.get("CHESS_ENVS_SCREENSHOTS") else tmp_path
    path = folder / f"web_{name}.png"
    driver.save_screenshot(str(path))
    return path


@needs_browser
def test_chess_against_greedy_by_clicking_and_an_illegal_drag_is_refused(server, browser, tmp_path) -> None:
    start(browser, server, "chess", ["human", "greedy?seed=1"])
    wait(browser, lambda d: status(d).startswith("Your move"))
    square(browser, 6, 4).click()  # e2: its targets are shown
    assert len(browser.find_elements(By.CSS_SELECTOR, "circle.target")) == 2
    square(browser, 4, 4).click()  # e4
    wait(browser, lambda d: len(moves_shown(d)) == 1 and len(moves_shown(d)[0].split()) == 2)  # greedy replied
    assert moves_shown(browser)[0].startswith("e4 ")
    wait(browser, lambda d: status(d).startswith("Your move"))
    drag(browser, (7, 0), (3, 0))
    wait(browser, lambda d: d.find_element(By.ID, "error").text == "illegal move")  # a1-a5 through a pawn
    assert len(moves_shown(browser)) == 1
    drag(browser, (7, 6), (5, 5))
    wait(browser, lambda d: moves_shown(d)[-1].startswith("Nf3") or len(moves_shown(d)) == 2)
    wait(browser, lambda d: status(d).startswith("Your move"))
    assert moves_shown(browser)[1].startswith("Nf3 ")
    screenshot(browser, "chess", tmp_path)
    browser.find_element(By.ID, "download").click()  # the PGN holds the moves the page shows
    link = wait(browser, lambda d: d.find_elements(By.ID, "pgn-link"))[0]
    import chess.pgn

    game = chess.pgn.read_game(io.StringIO(link.get_attribute("data-text")))
    sans, board = [], game.board()
    for move in game.mainline_moves():
        sans.append(board.san(move))
        board.push(move)
    assert " ".join(sans) == " ".join(moves_shown(browser))


@needs_browser
def test_four_player_with_three_agents_and_one_human_seat_plays_in_turn(server, browser, tmp_path) -> None:
    start(browser, server, "four_player", ["human", "random?seed=1", "greedy?seed=1", "random?seed=1"], mode="ffa")
    wait(browser, lambda d: status(d).startswith("Your move (Red)"))
    for rounds in range(2):  # two rounds: Red (us) moves a pawn, then the three agents answer
        legal = browser.execute_script("return view.legal.filter(m => m.to[0] === m.from[0] - 1)")[0]
        square(browser, *legal["from"]).click()
        square(browser, *legal["to"]).click()
        wait(browser, lambda d, n=rounds + 1: len(moves_shown(d)) == n and len(moves_shown(d)[-1].split(" .. ")) == 4)
        wait(browser, lambda d: status(d).startswith("Your move"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#standings div")) == 4
    screenshot(browser, "four_player", tmp_path)


@needs_browser
def test_the_seats_start_with_the_shipped_network_of_the_mode(browser) -> None:
    networks = ["alphazero:@four_player?sims=8", "alphazero:@four_player_teams?sims=8"]
    with serve(["random?seed=1", *networks]) as url:
        browser.get(url)
        wait(browser, lambda d: "four_player" in choices(d, "game"))
        Select(browser.find_element(By.ID, "game")).select_by_value("four_player")
        for mode, network in (("teams", networks[1]), ("ffa", networks[0]), ("teams", networks[1])):
            Select(browser.find_element(By.ID, "mode")).select_by_value(mode)
            seats = [Select(browser.find_element(By.ID, f"seat-{seat}")).first_selected_option for seat in range(4)]
            assert [option.get_attribute("value") for option in seats] == ["human", network, network, network]
            teams_only = browser.find_element(By.CSS_SELECTOR, f"#seat-1 option[value='{networks[1]}']")
            assert teams_only.get_property("disabled") == (mode == "ffa"), "the Teams network is not offered in FFA"


@needs_browser
def test_a_los_alamos_game_ends_in_checkmate_and_the_result_is_shown(server, browser, tmp_path) -> None:
    start(browser, server, "los_alamos", ["human", "alphazero:@los_alamos?sims=16"], fen="k5/6/KQ4/6/6/6 w - - 0 1")
    wait(browser, lambda d: status(d).startswith("Your move"))
    square(browser, 2, 1).click()  # the queen on b4
    square(browser, 1, 1).click()  # b5 mate
    wait(browser, lambda d: d.find_element(By.ID, "status").get_attribute("data-result") == "checkmate")
    assert "Game over: checkmate (White 1, Black 0)" in status(browser)
    screenshot(browser, "los_alamos", tmp_path)


@needs_browser
def test_watching_a_network_play_shows_its_analysis(server, browser, tmp_path) -> None:
    start(browser, server, "los_alamos", ["alphazero:@los_alamos?sims=16", "greedy?seed=1"])
    wait(browser, lambda d: d.find_element(By.ID, "analysis").text.startswith("White's search: value"))
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "line.arrow")) >= 1)


@needs_browser
def test_a_tournament_is_watched_and_a_game_stepped_through(browser, tmp_path) -> None:
    from chess_envs.arena.game import random_openings
    from chess_envs.arena.tournament import TournamentConfig, run_tournament

    folder = tmp_path / "cup"
    run_tournament(TournamentConfig("los_alamos", AGENTS[:2], 2, random_openings("los_alamos", 1, 4, seed=0)), folder,
                   progress=False)  # fmt: skip
    with serve(AGENTS[:2], tournaments=[folder]) as url:
        browser.get(url)
        wait(browser, lambda d: not d.find_element(By.ID, "watch-label").get_attribute("hidden"))
        Select(browser.find_element(By.ID, "watch")).select_by_value("cup")
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".tournament-game")) == 2)
        browser.find_elements(By.CSS_SELECTOR, ".tournament-game")[0].click()
        wait(browser, lambda d: status(d).startswith("Replay, ply "))
        plies = int(status(browser).split("ply ")[1].split(":")[0])
        browser.find_element(By.ID, "back").click()
        wait(browser, lambda d: status(d).startswith(f"Replay, ply {plies - 1}:"))
        assert len(" ".join(moves_shown(browser)).split()) >= plies - 1


@needs_browser
def test_a_tournament_game_being_played_is_followed_to_its_end(browser, tmp_path) -> None:
    from chess_envs.arena.results import ResultsWriter, live_path
    from chess_envs.arena.tournament import RESULTS_FILE

    folder, record, at = game_in_play(tmp_path, AGENTS[:2])
    with serve(AGENTS[:2], tournaments=[folder]) as url:
        browser.get(url)
        wait(browser, lambda d: not d.find_element(By.ID, "watch-label").get_attribute("hidden"))
        Select(browser.find_element(By.ID, "watch")).select_by_value("cup")
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".tournament-live")) == 1)
        browser.find_element(By.CSS_SELECTOR, ".tournament-live").click()
        wait(browser, lambda d: status(d).startswith("Live, ply 2:"))
        at(6)  # the worker playing it writes its next moves
        wait(browser, lambda d: status(d).startswith("Live, ply 6:"))
        assert len(" ".join(moves_shown(browser)).split()) == 6
        with ResultsWriter(folder / RESULTS_FILE) as writer:  # the game ends
            writer.append(record)
        live_path(folder, record.id).unlink()
        wait(browser, lambda d: status(d) == f"Replay, ply {len(record.moves)}: {record.termination}")
        assert browser.find_element(By.ID, "replay-nav").is_displayed()
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".tournament-game")) == 1)  # listed as finished


@needs_browser
def test_a_reload_reconnects_to_its_game(server, browser) -> None:
    start(browser, server, "los_alamos", ["human", "greedy?seed=1"])
    wait(browser, lambda d: status(d).startswith("Your move"))
    legal = browser.execute_script("return view.legal[0]")
    square(browser, *legal["from"]).click()
    square(browser, *legal["to"]).click()
    wait(browser, lambda d: len(moves_shown(d)) == 1 and len(moves_shown(d)[0].split()) == 2)
    before = moves_shown(browser)
    browser.refresh()
    wait(browser, lambda d: moves_shown(d) == before and status(d).startswith("Your move"))
