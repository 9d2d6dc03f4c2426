"""``interconnect export``: chart files that share one local plotly.js, CSV, an index and a one-file deck."""

import base64
import gzip
import re
import shutil

import pytest

from interconnect.cli import main
from interconnect.cli.export import find_chromium
from interconnect.figures.export import plotly_js_path

NETWORK_SCRIPT = re.compile(r"<script[^>]+src=[\"']?https?:")
NETWORK_LINK = re.compile(r"<link[^>]+href=[\"']?https?:")


def test_export_writes_charts_with_one_local_plotly_a_deck_and_an_index(tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path), "/Bandwidth_cliff?gpu=b200&dir=per"]) == 0
    index = (tmp_path / "index.html").read_text()
    assert "/Bandwidth_cliff?gpu=b200&amp;dir=per" in index and "deck.html" in index
    charts = sorted(tmp_path.glob("view01-chart*.html"))
    assert len(charts) >= 2
    page = charts[0].read_text()
    assert "B200" in page  # the figure's own data
    assert len(page) < 100_000 and 'src="plotly.min.js"' in page  # plotly.js is the folder's one copy
    assert (tmp_path / "plotly.min.js").read_bytes() == plotly_js_path().read_bytes()
    assert len(list(tmp_path.glob("*.js"))) == 1
    deck = (tmp_path / "deck.html").read_text()
    assert deck.count("<section class='slide'") == 1 and "<script src='plotly.min.js'>" in deck
    packed = re.search(r"id='plotly-packed'>([^<]+)</script>", deck).group(1)  # for the deck opened alone
    assert gzip.decompress(base64.b64decode(packed)) == plotly_js_path().read_bytes()
    assert len(deck) < 0.5 * len(plotly_js_path().read_bytes())  # packed: the folder holds plotly.js once
    for text in (page, deck, index):
        assert not NETWORK_SCRIPT.search(text) and not NETWORK_LINK.search(text)  # nothing fetched
    csv_text = (tmp_path / "view01-chart1.csv").read_text()
    assert csv_text.startswith("trace,x,y,text") and csv_text.count("\n") > 3
    assert "wrote 1 views" in capsys.readouterr().out


def test_export_refuses_unknown_pages_and_empty_requests(tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path), "/No_such_page"]) == 2
    assert "no page at '/No_such_page'" in capsys.readouterr().err
    assert main(["export", "--out", str(tmp_path)]) == 2
    assert "nothing to export" in capsys.readouterr().err


def test_png_without_a_browser_says_so_and_writes_the_rest(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no browser on the PATH
    monkeypatch.delenv("CHROMIUM", raising=False)
    assert find_chromium(None) is None and find_chromium(str(tmp_path / "no-such-browser")) is None
    assert main(["export", "--out", str(tmp_path / "out"), "--png", "/Claims"]) == 0
    err = capsys.readouterr().err
    assert "no Chromium found" in err and "--chromium PATH" in err
    assert (tmp_path / "out" / "index.html").is_file() and not list((tmp_path / "out").glob("*.png"))


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs the chromium binary")
def test_png_of_each_chart_with_chromium(tmp_path):
    assert main(["export", "--out", str(tmp_path), "--png", "/Bandwidth_cliff?gpu=b200"]) == 0
    pngs = sorted(tmp_path.glob("view01-chart*.png"))
    assert len(pngs) == len(list(tmp_path.glob("view01-chart*.html"))) >= 2
    for png in pngs:
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000  # a drawn chart, not a blank page
    assert "PNG 1" in (tmp_path / "index.html").read_text()


# --- the output folder: new, whole or nothing, never through a link (interconnect.cli.export) -----------------------

VIEW = "/Claims"  # a page with few charts: these tests are about the folder


def _error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if not line.startswith("[")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("interconnect: error: export: ")
    return lines[0]


def _everything(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("out", ["", " ", ".", "./", "..", "sub/.."])
def test_the_current_folder_and_an_empty_name_are_refused(tmp_path, capsys, monkeypatch, out):
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.html").write_text("mine")
    monkeypatch.chdir(tmp_path)
    assert main(["export", "--out", out, "--force", VIEW]) == 2
    assert "name a new folder" in _error_line(capsys)
    assert (tmp_path / "index.html").read_text() == "mine" and _everything(tmp_path) == ["index.html", "sub"]


def test_an_earlier_export_is_replaced_only_with_force(tmp_path, capsys):
    out = tmp_path / "talk"
    assert main(["export", "--out", str(out), VIEW]) == 0
    (out / "view07-chart1.html").write_text("from an earlier export")
    capsys.readouterr()
    assert main(["export", "--out", str(out), VIEW]) == 2
    assert "pass --force" in _error_line(capsys)
    assert (out / "view07-chart1.html").is_file()
    assert main(["export", "--out", str(out), "--force", VIEW]) == 0
    assert not (out / "view07-chart1.html").exists() and (out / "index.html").is_file()
    assert _everything(tmp_path) == ["talk", *(f"talk/{name}" for name in sorted(p.name for p in out.iterdir()))]


def test_a_folder_holding_other_files_is_never_replaced(tmp_path, capsys):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "index.html").write_text("mine")
    (out / "thesis.tex").write_text("mine too")
    assert main(["export", "--out", str(out), "--force", VIEW]) == 2
    assert "not an export's (thesis.tex)" in _error_line(capsys)
    assert (out / "index.html").read_text() == "mine" and (out / "thesis.tex").read_text() == "mine too"


def test_an_empty_folder_is_used(tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path), VIEW]) == 0
    assert (tmp_path / "index.html").is_file() and not list(tmp_path.glob(".*"))


def test_a_link_inside_the_folder_is_never_written_through(tmp_path, capsys):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    out = tmp_path / "talk"
    out.mkdir()
    (out / "index.html").symlink_to(outside)
    (out / "deck.html").symlink_to(outside)
    assert main(["export", "--out", str(out), "--force", VIEW]) == 0
    assert outside.read_text() == "keep me"
    assert not (out / "index.html").is_symlink() and "<html" in (out / "index.html").read_text().lower()


def test_out_as_a_link_is_refused(tmp_path, capsys):
    target = tmp_path / "target"
    target.mkdir()
    (tmp_path / "link").symlink_to(target)
    assert main(["export", "--out", str(tmp_path / "link"), VIEW]) == 2
    assert "symbolic link" in _error_line(capsys)
    assert not list(target.iterdir())


def test_a_file_as_the_folder_or_its_parent_is_one_line(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    assert main(["export", "--out", str(tmp_path / "afile"), VIEW]) == 2
    assert "is a file, not a folder" in _error_line(capsys)
    assert main(["export", "--out", str(tmp_path / "afile" / "sub"), VIEW]) == 2
    assert "Not a directory" in _error_line(capsys)
    assert _everything(tmp_path) == ["afile"] and (tmp_path / "afile").read_text() == "x"


def test_a_name_too_long_is_one_line(tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path / ("a" * 300)), VIEW]) == 2
    assert "File name too long" in _error_line(capsys)
    assert main(["export", "--out", str(tmp_path / ("b" * 300) / "talk"), VIEW]) == 2
    assert "File name too long" in _error_line(capsys)
    assert _everything(tmp_path) == []


def test_an_unwritable_folder_is_one_line_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(kwargs.get("dir")))

    monkeypatch.setattr(tempfile, "mkdtemp", refuse)  # as a read-only folder does (the tests may run as root)
    assert main(["export", "--out", str(tmp_path / "new" / "talk"), VIEW]) == 2
    assert "Permission denied" in _error_line(capsys)
    assert _everything(tmp_path) == []  # the parent it made is gone again


@pytest.mark.parametrize("after", [0, 2, 4])
def test_a_full_disk_is_one_line_and_leaves_nothing_behind(tmp_path, capsys, monkeypatch, after):
    import errno

    from interconnect.cli import export

    written = []
    original = export._Writer.write_bytes

    def fill(self, name, data):
        if len(written) >= after:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.folder / name))
        written.append(name)
        original(self, name, data)

    monkeypatch.setattr(export._Writer, "write_bytes", fill)
    assert main(["export", "--out", str(tmp_path / "talk"), "/Bandwidth_cliff"]) == 2
    assert "No space left on device" in _error_line(capsys)
    assert _everything(tmp_path) == []


def test_a_failed_replacement_keeps_the_earlier_export(tmp_path, capsys, monkeypatch):
    import errno

    from interconnect.cli import export

    out = tmp_path / "talk"
    assert main(["export", "--out", str(out), VIEW]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def full(self, name, data):
        raise OSError(errno.ENOSPC, "No space left on device", name)

    monkeypatch.setattr(export._Writer, "write_bytes", full)
    capsys.readouterr()
    assert main(["export", "--out", str(out), "--force", VIEW]) == 2
    assert "No space left" in _error_line(capsys)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert _everything(tmp_path) == sorted(["talk", *(f"talk/{name}" for name in before)])
