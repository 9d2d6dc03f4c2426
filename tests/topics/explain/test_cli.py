"""``interconnect explain``: text and JSON output, standard input, one-line refusal with exit status 2."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from interconnect.cli import main

LOG = Path(__file__).resolve().parents[2] / "data" / "nccl_debug_logs" / "nccl-278-socket-one-of-two-nics.log"


def test_text_output_cites_lines(capsys):
    assert main(["explain", str(LOG)]) == 0
    out = capsys.readouterr().out
    assert "The network transport is sockets: InfiniBand was not used." in out
    assert "1 of the 2 NICs listed carry traffic" in out and "[    line 8]" in out
    # the look-here-first block comes before the full list and starts with the likeliest cause
    head, _, rest = out.partition("Everything the log says")
    assert head.startswith("Look here first") and "The network transport is sockets" in head.splitlines()[1]
    assert "1 of the 2 NICs listed carry traffic" in rest


def test_json_shape(capsys):
    assert main(["explain", str(LOG), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == {"ranked", "findings", "facts", "transports", "nics", "cluster_query", "assumptions",
                            "topology", "measured"}
    assert all(set(f) == {"topic", "text", "line", "warn", "severity"} for f in payload["findings"])
    # the ranked list is the warnings, heaviest first: sockets between two nodes before the idle NIC
    assert sorted(f["text"] for f in payload["ranked"]) == sorted(f["text"] for f in payload["findings"] if f["warn"])
    assert payload["ranked"][0]["text"].startswith("The network transport is sockets")
    assert [f["severity"] for f in payload["ranked"]] == sorted((f["severity"] for f in payload["ranked"]),
                                                               reverse=True)
    assert payload["facts"]["network"] == "Socket" and payload["facts"]["gdr"] is False
    assert payload["nics"][0]["nic"] == "NET/Socket/0" and payload["nics"][0]["name"] == "enP1p1s0f0"
    assert payload["cluster_query"]["fabric"] == "ethernet"


def test_standard_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(LOG.read_bytes())))
    assert main(["explain", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["facts"]["nodes"]["value"] == 2


def test_junk_is_one_line_and_exit_2(capsys, tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 100)
    assert main(["explain", str(junk)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not NCCL_DEBUG=INFO output" in err


def test_missing_file_exit_2(capsys, tmp_path):
    assert main(["explain", str(tmp_path / "nope.log")]) == 2
    assert "cannot read" in capsys.readouterr().err
