"""Screenshots of every page at every width a visitor has, for the README and for looking at.

Starts ``streamlit run app.py`` on 127.0.0.1 (a free port), opens each page of
``interconnect.ui.pages.PAGES`` in headless Chromium at 800x900 (the sidebar open leaves the page about
500 px), 1280x720, 1440x900 and 1920x1080, and writes into ``assets/screenshots/``:

* ``<page>-<W>x<H>.png``: what fits in the window, the view a room sees first ("above the fold"), at
  every size;
* ``<page>-<W>x<H>-full.png``: the whole page, the window grown to the page's height, at the two
  projector sizes (``--full`` for every size: to look at, not to keep).

The PNGs are stored with a 256-colour palette to keep the repository small.

Rerun after a change to a page: ``python tests/browser/screenshots.py`` from the repository root
(``--pages cliff home`` for some pages only, ``--out DIR`` for another folder). Needs the ``chromium``
binary and the ``playwright`` package, as the browser tests do. Asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from browser_helpers import (  # noqa: E402
    CHART,
    CHROMIUM_ARGS,
    DRAWN_IN_CHART,
    LIVE_CHART_SVG,
    REPO_ROOT,
    StreamlitServer,
    open_page,
    settled_chart_count,
)

from interconnect.ui.pages import PAGES, page_exists  # noqa: E402

#: The sizes the app must read at: a split screen or tablet, the usual projector, a laptop, a 1080p screen.
VIEWPORTS = ((800, 900), (1280, 720), (1440, 900), (1920, 1080))
#: The sizes whose whole-page shots are kept in the repository.
FULL_PAGE_SIZES = ((1440, 900), (1280, 720))
OUT_DIR = REPO_ROOT / "assets" / "screenshots"
LIVE_CHART = ".live-chart"
#: A full page of charts takes a while to paint on a busy 2-core machine.
SCREENSHOT_TIMEOUT_MS = 120_000


def page_path(name: str) -> str:
    """The URL path of a page: ``/`` for home, ``/Bandwidth_cliff`` for ``pages/1_Bandwidth_cliff.py``."""
    script = PAGES[name][0]
    return "/" if name == "home" else "/" + Path(script).stem.split("_", 1)[1]


def settle(page) -> None:
    """Wait until every chart on the page is drawn (Plotly draws after Streamlit goes idle)."""
    charts = settled_chart_count(page)
    if page.locator(LIVE_CHART).count():  # a live chart draws its curves from its own script
        page.locator(LIVE_CHART_SVG).first.wait_for(state="attached", timeout=SCREENSHOT_TIMEOUT_MS)
    for index in range(charts):
        page.locator(CHART).nth(index).locator(DRAWN_IN_CHART).first.wait_for(state="attached")
    page.wait_for_timeout(800)  # fonts and Plotly's second layout pass


def main_height(page) -> int:
    """The height of the page's scrolling content (Streamlit scrolls inside ``stMain``, not the document)."""
    return int(page.evaluate(
        "() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
        " return Math.max(m ? m.scrollHeight : 0, document.documentElement.scrollHeight); }"
    ))


def shrink(path: Path) -> None:
    """Rewrite a PNG with a 256-colour palette: a third of the size, and text stays sharp (no dithering)."""
    from PIL import Image  # Streamlit depends on Pillow

    with Image.open(path) as image:
        palette = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT,
                                                dither=Image.Dither.NONE)
    palette.save(path, optimize=True)


def shoot(browser, server: StreamlitServer, name: str, size: tuple[int, int], out: Path,
          full_page: bool = True) -> list[Path]:
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        open_page(page, server, page_path(name))
        settle(page)
        fold = out / f"{name}-{width}x{height}.png"
        page.screenshot(path=str(fold), animations="disabled", timeout=SCREENSHOT_TIMEOUT_MS)
        if not full_page:
            shrink(fold)
            return [fold]
        page.set_viewport_size({"width": width, "height": max(height, main_height(page))})
        settle(page)
        page.set_viewport_size({"width": width, "height": max(height, main_height(page))})
        page.wait_for_timeout(300)
        full = out / f"{name}-{width}x{height}-full.png"
        page.screenshot(path=str(full), animations="disabled", timeout=SCREENSHOT_TIMEOUT_MS)
        for path in (fold, full):
            shrink(path)
        return [fold, full]
    finally:
        context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", nargs="*", default=[name for name in PAGES if page_exists(name)],
                        help="page names (default: every page)")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="folder for the PNGs")
    parser.add_argument("--sizes", nargs="*", default=[f"{w}x{h}" for w, h in VIEWPORTS],
                        help="window sizes, WxH (default: all four)")
    parser.add_argument("--full", action="store_true", help="whole-page shots at every size")
    args = parser.parse_args(argv)
    executable = shutil.which("chromium")
    if executable is None:
        print("chromium is missing: install Debian's chromium package", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        server = StreamlitServer(Path(tmp) / "streamlit.log").start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
                try:
                    for name in args.pages:
                        for size in [tuple(int(n) for n in text.split("x")) for text in args.sizes]:
                            try:
                                paths = shoot(browser, server, name, size, args.out,
                                              full_page=args.full or size in FULL_PAGE_SIZES)
                            except Exception as exc:  # one page failing must not lose the others
                                failures += 1
                                print(f"{name} at {size[0]}x{size[1]}: {type(exc).__name__}: {exc}".splitlines()[0],
                                      file=sys.stderr)
                                continue
                            for path in paths:
                                print(path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path)
                finally:
                    browser.close()
        finally:
            server.stop()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
