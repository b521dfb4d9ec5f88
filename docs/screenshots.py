"""Screenshots of the built site in headless Chromium, for the docs' own pictures
(``docs/images/site_*.png``): the home page, an environment page and the API reference.

    sphinx-build -W --keep-going -n docs docs/_build && python docs/screenshots.py docs/_build
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from selenium import webdriver

PAGES = {"site_home.png": "index.html", "site_chess.png": "chess.html", "site_api.png": "api.html"}
IMAGES = Path(__file__).resolve().parent / "images"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site (sphinx-build's output folder)")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    args = parser.parse_args()
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={args.width},{args.height}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(shutil.which("chromedriver")))
    try:
        for image, page in PAGES.items():
            driver.get((args.site / page).resolve().as_uri())
            driver.save_screenshot(str(IMAGES / image))
            print(f"wrote {IMAGES / image}")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
