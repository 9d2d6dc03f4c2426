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
