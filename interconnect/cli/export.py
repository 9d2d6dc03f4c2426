"""``interconnect export``: write views of the app as offline files a talk can run from.

``interconnect export --out talk/ --tour`` writes every step of the guided tour, each with exactly the
view the live tour shows at that step (the step's own link parameters, which hold its whole state);
``interconnect export --out talk/ "/All_reduce?nodes=8" "http://host/Bandwidth_cliff?gpu=b200"``
writes the given views. The folder gets:

* ``index.html``: every view with its caption and links to its files;
* ``deck.html``: one slide per view with its caption and charts, arrow keys and a step counter. It
  loads the folder's ``plotly.min.js`` when beside it and otherwise unpacks its own gzip-compressed
  copy, so the file alone runs on a borrowed laptop with no network (in a browser from 2023 on), and
  the folder holds plotly.js once plus that packed copy (the tour: about 7.5 MB in all);
* ``viewNN-chartM.html`` and ``.csv`` per chart, loading the folder's one ``plotly.min.js``;
* with ``--png``, ``viewNN-chartM.png`` per chart, drawn by a headless Chromium (``--chromium PATH``,
  else the ``CHROMIUM`` environment variable, else ``chromium``, ``chromium-browser``,
  ``google-chrome`` or ``google-chrome-stable`` on the PATH); without one the rest is written and a
  message says so.

The folder is written whole or not at all: every file goes into a new private folder beside it
(``.NAME.partial-XXXX``, created empty, each file opened with ``O_CREAT | O_EXCL | O_NOFOLLOW``, so
no link planted anywhere is followed), which is renamed into place once complete. ``--out`` must
name a new or empty folder; one that holds an earlier export (only the files an export writes) is
replaced with ``--force``, and a folder holding anything else, the current folder or one above it
never is. Any file-system error (no space, no permission, a name too long, a file where the folder
should be) is one line on stderr, exit status 2, and leaves nothing behind.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

from interconnect.cli.output import CliError

MAX_VIEWS = 50
#: Browser names tried on the PATH for ``--png``, in order.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: Width of a chart's PNG in pixels (a 16:9 slide's width at 1280 x 720).
PNG_WIDTH_PX = 1280
PNG_TIMEOUT_S = 60


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("export", help="write views of the app as offline HTML files with an index")
    parser.add_argument("--out", required=True, help="folder to write: new or empty (created if missing)")
    parser.add_argument("--force", action="store_true",
                        help="replace the folder of an earlier export (a folder holding other files is never replaced)")
    parser.add_argument("--tour", action="store_true", help="export every step of the guided tour")
    parser.add_argument("--png", action="store_true", help="also draw each chart as PNG (needs Chromium)")
    parser.add_argument("--chromium", default=None, help="the Chromium or Chrome program for --png")
    parser.add_argument("views", nargs="*", help="links to views, e.g. '/All_reduce?nodes=8'")
    parser.set_defaults(handler=run)


def _view_of(link: str) -> tuple[str | None, dict[str, str], str]:
    from interconnect.site import page_for_path, pages
    known = pages()

    parts = urlsplit(link)
    path = parts.path.rstrip("/")
    script = None if path in ("", "/") else page_for_path(path)
    if path not in ("", "/") and script is None:
        names = ", ".join("/" + Path(s).stem.split("_", 1)[1] for s, _ in known.values() if s.startswith("pages/"))
        raise CliError(f"no page at '{path[:60]}'; pages: {names}")
    params = {key: values[-1] for key, values in parse_qs(parts.query, keep_blank_values=True).items()}
    return script, params, f"{path or '/'}?{urlencode(params)}" if params else (path or "/")


def tour_jobs() -> list[tuple[str | None, dict[str, str], str, str, str, str]]:
    """The tour's steps as export jobs: (script, params, link, title, caption, the step's chart key).

    The params are the step's link parameters, the same the live tour's Next link opens.
    """
    from interconnect.site import pages, tour_steps
    known = pages()

    jobs = []
    for step in tour_steps():
        script = None if step.page == "home" else known[step.page][0]
        path = "/" if script is None else "/" + Path(script).stem.split("_", 1)[1]
        params = dict(step.params)
        link = f"{path}?{urlencode(params)}" if params else path
        jobs.append((script, params, link, step.title, step.caption, step.chart))
    return jobs


def _further_charts(script: str | None, params: dict[str, str], drawn: set[str]) -> list:
    """For a link that names no ``view``, the page's further charts it did not draw, one view at a time.

    A page draws its main chart and at most one further chart (``view=``); an exported link without a
    ``view`` holds all of them, as the page held them before it drew one at a time, and the live
    chart, which has no static form, is left out. A tour step is exported exactly as the tour shows it.
    """
    from interconnect.inputs.links import VIEW_KEY
    from interconnect.site import page_views, pages
    from interconnect.ui.export import render_charts
    known = pages()

    name = next((page for page, (path, _) in known.items() if path == script), None)
    views = page_views().get(name or "")
    if views is None or VIEW_KEY in params:
        return []
    further = []
    for view in views.labels:
        for key, figure in render_charts(script, {**params, VIEW_KEY: view}):
            if key not in drawn:
                drawn.add(key)
                further.append((key, figure))
    return further


def find_chromium(given: str | None) -> str | None:
    """The browser for PNGs: ``--chromium``, else ``$CHROMIUM``, else the first of :data:`CHROMIUM_NAMES`."""
    for candidate in (given, os.environ.get("CHROMIUM")):
        if candidate:
            return shutil.which(candidate) or (candidate if Path(candidate).is_file() else None)
    return next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)


def chart_png(browser: str, figure, folder: Path, png: Path) -> bool:
    """Draw ``figure`` to ``png`` with headless Chromium, using the folder's plotly.js; True if written."""
    from interconnect.figures.export import PLOTLY_JS_NAME

    height = int(figure.layout.height or 480)
    page = figure.to_html(include_plotlyjs=PLOTLY_JS_NAME, full_html=True, default_width=f"{PNG_WIDTH_PX}px",
                          default_height=f"{height}px", config={"staticPlot": True})
    page = page.replace("<head>", "<head><style>body{margin:0;background:#fff}</style>", 1)
    with tempfile.NamedTemporaryFile("w", suffix=".html", dir=folder, delete=False, encoding="utf-8") as handle:
        handle.write(page)
    try:
        result = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--virtual-time-budget=5000", f"--window-size={PNG_WIDTH_PX},{height}",
             f"--screenshot={png.resolve()}", Path(handle.name).resolve().as_uri()],
            capture_output=True, timeout=PNG_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        Path(handle.name).unlink(missing_ok=True)
    return result.returncode == 0 and png.is_file() and png.stat().st_size > 0

#: The names an export writes; a folder holding only these is an earlier export, which ``--force`` replaces.
EXPORT_FILE = re.compile(r"(index\.html|deck\.html|plotly\.min\.js|view\d{2,}-chart\d+\.(html|csv|png))")


def _problem(exc: OSError, what: str) -> CliError:
    """One line for a file-system error: what was being done, the system's reason, and the path it names.

    >>> str(_problem(OSError(28, "No space left on device", "talk/deck.html"), "write the export to 'talk'"))
    "export: could not write the export to 'talk': No space left on device (talk/deck.html)"
    """
    reason = exc.strerror or str(exc) or type(exc).__name__
    where = f" ({str(exc.filename)[:200]})" if exc.filename else ""
    return CliError(f"export: could not {what}: {reason}{where}")


def _check_out(text: str, force: bool) -> Path:
    """The output folder ``--out`` names, refused (one line, exit 2) unless it is new, empty or, with
    ``force``, an earlier export."""
    if not text.strip():
        raise CliError("export: --out is empty; name a new folder such as --out talk")
    out = Path(text)
    try:
        resolved, here = out.resolve(), Path.cwd().resolve()
        if resolved == here or resolved in here.parents:
            raise CliError(f"export: --out '{text[:100]}' is the current folder or one above it; name a new folder")
        if out.is_symlink():
            raise CliError(f"export: --out '{text[:100]}' is a symbolic link; name a new folder")
        if not out.exists():
            return out
        if not out.is_dir():
            raise CliError(f"export: --out '{text[:100]}' is a file, not a folder; name a new folder")
        names = [entry.name for entry in os.scandir(out)]
    except OSError as exc:
        raise _problem(exc, f"read --out '{text[:100]}'") from exc
    if not names:
        return out
    others = sorted(name for name in names if not EXPORT_FILE.fullmatch(name))
    if others:
        shown = ", ".join(others[:3]) + (" …" if len(others) > 3 else "")
        raise CliError(f"export: --out '{text[:100]}' holds files that are not an export's ({shown[:200]}); "
                       "name a new folder")
    if not force:
        raise CliError(f"export: --out '{text[:100]}' holds an earlier export; pass --force to replace it, or name "
                       "a new folder")
    return out


def _make_parents(folder: Path) -> list[Path]:
    """Create ``folder``'s missing parents; the ones created, outermost first (removed again on failure)."""
    missing = [parent for parent in reversed(folder.absolute().parents) if not parent.exists()]
    for parent in missing:
        parent.mkdir()
    return missing


class _Writer:
    """Files written into a private folder that nothing else has touched: each one new (``O_EXCL``), never
    through a link (``O_NOFOLLOW``)."""

    FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def write_bytes(self, name: str, data: bytes) -> None:
        descriptor = os.open(self.folder / name, self.FLAGS, 0o666)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)

    def write_text(self, name: str, text: str) -> None:
        self.write_bytes(name, text.encode("utf-8"))

    def copy(self, source: Path, name: str) -> None:
        descriptor = os.open(self.folder / name, self.FLAGS, 0o666)
        with os.fdopen(descriptor, "wb") as handle, source.open("rb") as original:
            shutil.copyfileobj(original, handle)


def _put_in_place(partial: Path, out: Path) -> None:
    """Rename the finished folder to ``out``; an earlier export there is moved aside first, then removed."""
    mask = os.umask(0)
    os.umask(mask)
    partial.chmod(0o777 & ~mask)  # as a plain mkdir would have made it (mkdtemp's folder is private)
    if out.exists() and any(out.iterdir()):
        old = Path(tempfile.mkdtemp(prefix=f".{out.name[:50]}.old-", dir=out.parent))
        os.replace(out, old)  # an empty folder is replaced by rename; the earlier export moves to old
        try:
            os.rename(partial, out)
        except OSError:
            os.replace(old, out)  # put the earlier export back
            raise
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(partial, out)  # atomic; replaces an empty folder, refuses a non-empty one


def run(args: argparse.Namespace) -> int:
    jobs = tour_jobs() if args.tour else []
    given = len(jobs)  # the links given after the tour's steps: exported with every chart of their page
    for link in args.views:
        script, params, shown = _view_of(link)
        jobs.append((script, params, shown, shown, "", ""))
    if not jobs:
        raise CliError("nothing to export: give --tour or one or more links such as '/All_reduce?nodes=8'")
    if len(jobs) > MAX_VIEWS:
        raise CliError(f"{len(jobs)} views is more than {MAX_VIEWS}; export them in smaller sets")
    browser = None
    if args.png:
        browser = find_chromium(args.chromium)
        if browser is None:
            print("PNG: no Chromium found (tried --chromium, $CHROMIUM, " + ", ".join(CHROMIUM_NAMES) + "); "
                  "writing HTML, CSV and the deck without PNGs. Install Chromium or pass --chromium PATH.",
                  file=sys.stderr)
    out = _check_out(args.out, args.force)
    created: list[Path] = []
    partial: Path | None = None
    done = False
    try:
        created = _make_parents(out)
        partial = Path(tempfile.mkdtemp(prefix=f".{out.name[:50]}.partial-", dir=out.absolute().parent))
        exported, failed_png = _write_views(_Writer(partial), jobs, given, browser)
        _put_in_place(partial, out)
        done = True
    except OSError as exc:
        raise _problem(exc, f"write the export to '{str(out)[:100]}'") from exc
    finally:
        if not done:  # nothing half-written is left: the partial folder, then the parents made for it
            if partial is not None:
                shutil.rmtree(partial, ignore_errors=True)
            for parent in reversed(created):
                with contextlib.suppress(OSError):
                    parent.rmdir()
    charts_written = sum(len(view.files) for view in exported)
    try:
        size_mb = sum(path.stat().st_size for path in out.iterdir() if path.is_file()) / 1e6
        deck_mb = (out / "deck.html").stat().st_size / 1e6
    except OSError as exc:
        raise _problem(exc, f"read the export written to '{str(out)[:100]}'") from exc
    if failed_png:
        print(f"PNG: {failed_png} chart(s) could not be drawn by {browser}", file=sys.stderr)
    print(f"wrote {len(exported)} views, {charts_written} charts, to {out / 'index.html'}; "
          f"one-file deck {out / 'deck.html'} ({deck_mb:.1f} MB); folder {size_mb:.1f} MB")
    return 0


def _write_views(writer: _Writer, jobs: list, given: int, browser: str | None) -> tuple[list, int]:
    """Render every view and write its files, the deck and the index with ``writer``; (views, PNGs that failed)."""
    from interconnect.figures.export import (
        PLOTLY_JS_NAME,
        DeckStep,
        ExportedView,
        deck_html,
        figure_csv,
        figure_html,
        index_html,
        plotly_js_path,
    )
    from interconnect.figures.theme import presentation_figure
    from interconnect.ui.export import ViewError, render_charts

    out = writer.folder
    writer.copy(plotly_js_path(), PLOTLY_JS_NAME)  # the folder's one copy, loaded by every chart file
    exported, slides, failed_png = [], [], 0
    for number, (script, params, link, title, caption, focus) in enumerate(jobs, start=1):
        print(f"[{number}/{len(jobs)}] {link}", file=sys.stderr, flush=True)
        try:
            charts = render_charts(script, params)
            if number > given:
                charts += _further_charts(script, params, {key for key, _ in charts})
        except ViewError as exc:
            raise CliError(f"could not render {link}: {exc}") from exc
        # The step's own chart first, as presentation mode shows it right under the caption.
        charts.sort(key=lambda pair: pair[0] != focus if focus else False)
        files, pictures = [], []
        for index, (_, figure) in enumerate(charts, start=1):
            stem = f"view{number:02d}-chart{index}"
            writer.write_text(f"{stem}.html", figure_html(figure, title=title, caption=caption,
                                                          plotly_src=PLOTLY_JS_NAME))
            writer.write_text(f"{stem}.csv", figure_csv(figure))
            files.append(f"{stem}.html")
            if browser:
                if chart_png(browser, presentation_figure(figure), out, out / f"{stem}.png"):
                    pictures.append(f"{stem}.png")
                else:
                    failed_png += 1
        exported.append(ExportedView(title, caption, link, tuple(files), tuple(pictures)))
        slides.append(DeckStep(title, caption, link, tuple(presentation_figure(f) for _, f in charts)))
    writer.write_text("deck.html", deck_html(slides))
    writer.write_text("index.html", index_html(exported, deck="deck.html"))
    return exported, failed_png
