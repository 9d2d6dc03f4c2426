"""``interconnect export``: write views of the app as offline HTML files with an index page.

``interconnect export --out talk/ --tour`` writes every step of the guided tour;
``interconnect export --out talk/ "/All_reduce?nodes=8" "http://host/Bandwidth_cliff?gpu=b200"``
writes the given views. Each chart becomes a self-contained HTML file (plotly.js embedded) and a
CSV of its points; ``index.html`` lists them with the captions, so a talk runs with no network and
no server.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

from interconnect.cli.output import CliError

MAX_VIEWS = 50


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("export", help="write views of the app as offline HTML files with an index")
    parser.add_argument("--out", required=True, help="folder to write (created if missing)")
    parser.add_argument("--tour", action="store_true", help="export every step of the guided tour")
    parser.add_argument("views", nargs="*", help="links to views, e.g. '/All_reduce?nodes=8'")
    parser.set_defaults(handler=run)


def _view_of(link: str) -> tuple[str | None, dict[str, str], str]:
    from interconnect.ui.page import PAGES, page_for_path

    parts = urlsplit(link)
    path = parts.path.rstrip("/")
    script = None if path in ("", "/") else page_for_path(path)
    if path not in ("", "/") and script is None:
        names = ", ".join("/" + Path(s).stem.split("_", 1)[1] for s, _ in PAGES.values() if s.startswith("pages/"))
        raise CliError(f"no page at '{path[:60]}'; pages: {names}")
    params = {key: values[-1] for key, values in parse_qs(parts.query, keep_blank_values=True).items()}
    return script, params, f"{path or '/'}?{urlencode(params)}" if params else (path or "/")


def run(args: argparse.Namespace) -> int:
    from interconnect.figures.export import ExportedView, figure_csv, figure_html, index_html
    from interconnect.ui.export import ViewError, render_view
    from interconnect.ui.page import PAGES, tour_steps

    jobs: list[tuple[str | None, dict[str, str], str, str, str]] = []
    if args.tour:
        for number, step in enumerate(tour_steps(), start=1):
            script = None if step.page == "home" else PAGES[step.page][0]
            path = "/" if script is None else "/" + Path(script).stem.split("_", 1)[1]
            params = dict(step.params)
            link = f"{path}?{urlencode(params)}" if params else path
            jobs.append((script, params, link, f"{number}. {step.title}", step.caption))
    for link in args.views:
        script, params, shown = _view_of(link)
        jobs.append((script, params, shown, shown, ""))
    if not jobs:
        raise CliError("nothing to export: give --tour or one or more links such as '/All_reduce?nodes=8'")
    if len(jobs) > MAX_VIEWS:
        raise CliError(f"{len(jobs)} views is more than {MAX_VIEWS}; export them in smaller sets")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    exported = []
    for number, (script, params, link, title, caption) in enumerate(jobs, start=1):
        print(f"[{number}/{len(jobs)}] {link}", file=sys.stderr, flush=True)
        try:
            figures = render_view(script, params)
        except ViewError as exc:
            raise CliError(f"could not render {link}: {exc}") from exc
        files = []
        for index, figure in enumerate(figures, start=1):
            stem = f"view{number:02d}-chart{index}"
            (out / f"{stem}.html").write_text(figure_html(figure, title=title, caption=caption), encoding="utf-8")
            (out / f"{stem}.csv").write_text(figure_csv(figure), encoding="utf-8")
            files.append(f"{stem}.html")
        exported.append(ExportedView(title, caption, link, tuple(files)))
    (out / "index.html").write_text(index_html(exported), encoding="utf-8")
    charts = sum(len(view.files) for view in exported)
    print(f"wrote {len(exported)} views, {charts} charts, to {out / 'index.html'}")
    return 0
