"""``interconnect export``: offline HTML that holds the figure and plotly.js, CSV of its points."""

import re

from interconnect.cli import main


def test_export_writes_self_contained_charts_and_an_index(tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path), "/Bandwidth_cliff?gpu=b200&dir=per"]) == 0
    index = (tmp_path / "index.html").read_text()
    assert "/Bandwidth_cliff?gpu=b200&amp;dir=per" in index
    charts = sorted(tmp_path.glob("view01-chart*.html"))
    assert len(charts) >= 2
    page = charts[0].read_text()
    assert "B200" in page  # the figure's own data
    assert len(page) > 1_000_000  # plotly.js is embedded, not fetched
    assert not re.search(r"<script[^>]+src=[\"']?https?:", page)  # no network script
    assert not re.search(r"<link[^>]+href=[\"']?https?:", page)
    csv_text = (tmp_path / "view01-chart1.csv").read_text()
    assert csv_text.startswith("trace,x,y,text") and csv_text.count("\n") > 3
    assert "wrote 1 views" in capsys.readouterr().out


def test_export_refuses_unknown_pages_and_empty_requests(tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path), "/No_such_page"]) == 2
    assert "no page at '/No_such_page'" in capsys.readouterr().err
    assert main(["export", "--out", str(tmp_path)]) == 2
    assert "nothing to export" in capsys.readouterr().err
