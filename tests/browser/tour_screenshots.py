"""Screenshots of every guided-tour step in presentation mode, the view a room sees first.

Starts ``streamlit run app.py`` on 127.0.0.1, opens each tour step's link with ``present=1`` in
headless Chromium and writes ``tour-step<N>-<W>x<H>.png`` (what fits in the window, nothing scrolled)
into ``assets/screenshots/``, at 1280x720 (a common projector) unless ``--sizes`` says otherwise.

Rerun after a change to the tour or to presentation mode: ``python tests/browser/tour_screenshots.py``
(``--sizes 1920x1080`` for a large screen, ``--out DIR`` for another folder). Needs the ``chromium``
binary and the ``playwright`` package, as the browser tests do. Asserts nothing (the browser test
``test_tour_presentation.py`` does).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from browser_helpers import CHROMIUM_ARGS, REPO_ROOT, StreamlitServer, open_page  # noqa: E402
from screenshots import OUT_DIR, SCREENSHOT_TIMEOUT_MS, page_path, settle, shrink  # noqa: E402

from interconnect.ui.talk import tour_query, tour_steps  # noqa: E402


def step_path(number: int) -> str:
    """The link of tour step ``number`` in presentation mode, as the tour's own Next link writes it."""
    step = tour_steps()[number - 1]
    return f"{page_path(step.page)}?{urlencode(tour_query(number, True))}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="*", default=["1280x720"], help="window sizes, WxH")
    parser.add_argument("--steps", nargs="*", type=int, default=None, help="step numbers (default: all)")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="folder for the PNGs")
    args = parser.parse_args(argv)
    executable = shutil.which("chromium")
    if executable is None:
        print("chromium is missing: install Debian's chromium package", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    numbers = args.steps or list(range(1, len(tour_steps()) + 1))
    args.out.mkdir(parents=True, exist_ok=True)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        server = StreamlitServer(Path(tmp) / "streamlit.log").start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
                try:
                    for size in args.sizes:
                        width, height = (int(part) for part in size.lower().split("x"))
                        for number in numbers:
                            context = browser.new_context(viewport={"width": width, "height": height})
                            try:
                                page = context.new_page()
                                open_page(page, server, step_path(number))
                                settle(page)
                                path = args.out / f"tour-step{number}-{width}x{height}.png"
                                page.screenshot(path=str(path), animations="disabled", timeout=SCREENSHOT_TIMEOUT_MS)
                                shrink(path)
                                print(path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path)
                            except Exception as exc:  # one step failing must not lose the others
                                failures += 1
                                print(f"step {number} at {size}: {type(exc).__name__}: {exc}".splitlines()[0],
                                      file=sys.stderr)
                            finally:
                                context.close()
                finally:
                    browser.close()
        finally:
            server.stop()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
