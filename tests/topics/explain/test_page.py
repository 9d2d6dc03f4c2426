"""AppTest of the Explain page: a pasted log gives the findings, the tables and the All-reduce link; junk is one
error; nothing from the log becomes markup or goes into the link."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import run_page

PAGE = "pages/11_Explain.py"
DATA = Path(__file__).resolve().parents[2] / "data" / "nccl_debug_logs"


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown) + "\n".join(w.value for w in at.warning)


def test_empty_page_renders():
    at = run_page(PAGE)
    assert not at.exception and not at.error
    assert dict(at.query_params) == {}


def test_pasted_log_is_explained():
    at = run_page(PAGE)
    text = (DATA / "deepspeed-2931-shm-p2p-ibext-gdr-mix.log").read_text(encoding="utf-8")
    at.text_area(key="explain.paste").input(text).run()
    assert not at.exception and not at.error
    shown = _markdown(at)
    assert "GPUDirect RDMA is only partly on" in shown and "line 8" in shown
    assert len(at.dataframe) == 2  # connections by transport, NICs
    assert "All\\_reduce?gpu=" in shown or "All_reduce?gpu=" in shown
    assert "explain.paste" not in at.query_params and not any("PHLRR" in v for v in at.query_params.values())


def test_junk_is_one_error_and_markup_is_escaped():
    at = run_page(PAGE)
    at.text_area(key="explain.paste").input("hello\nworld").run()
    assert not at.exception and len(at.error) == 1 and "not NCCL" in at.error[0].value
    hostile = "<b>x</b>:1:1 [0] NCCL INFO Using network [evil](http://x)\n"
    at.text_area(key="explain.paste").input(hostile).run()
    assert not at.exception
    assert "<b>" not in _markdown(at).replace("\\<b\\>", "")


def test_uploaded_log_draws_the_node_and_the_fabric():
    at = run_page(PAGE)
    at.text_area(key="explain.paste").input((DATA / "nv-peer-memory-56-ib-gdr-distance.log").read_text()).run()
    assert not at.exception and not at.error
    charts = at.get("plotly_chart")
    assert len(charts) == 2  # one node, and the two nodes with the network between them
    titles = [m.value for m in at.markdown if m.value.startswith(("**One node", "**Between nodes"))]
    # above each drawing, as text
    assert len(titles) == 2 and "master" in titles[0] and "Between nodes: 2 node" in titles[1]
    assert "secondary" in charts[1].proto.spec  # the fabric names each node under its box


@pytest.mark.parametrize("name", ["nccl-278-socket-one-of-two-nics.log", "synthetic/per-node-links.log",
                                  "synthetic/inspector-per-node.jsonl"])
def test_page_and_cli_json_give_the_same_findings(capsys, name):
    import json

    from interconnect.cli import main
    from interconnect.ui.markdown import escape_markdown

    path = DATA / name
    assert main(["explain", str(path), "--json"]) == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    at = run_page(PAGE)
    at.text_area(key="explain.paste").input(path.read_text(encoding="utf-8")).run()
    shown = _markdown(at)
    for finding in findings:
        where = f"line {finding['line']}" if finding["line"] else "no line"
        assert f"**{where}** · {escape_markdown(finding['text'])}" in shown


def test_log_with_nccl_tests_rows_draws_measured_over_the_model():
    at = run_page(PAGE)
    at.text_area(key="explain.paste").input((DATA / "azure-aks-30-ib-gdrdma-cumem.log").read_text()).run()
    assert not at.exception and not at.error
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    assert len(specs) == 3 and "the model's band" in specs[2] and "measured (the log's rows)" in specs[2]


def test_link_to_all_reduce_is_built_from_the_pages_reader():
    at = run_page(PAGE)
    at.text_area(key="explain.paste").input((DATA / "azure-aks-30-ib-gdrdma-cumem.log").read_text()).run()
    assert "(./All_reduce?gpu=h100-sxm&gpn=8&nodes=2&fabric=infiniband)" in _markdown(at)
    # the GPU's assumption is said once, whatever order the assumptions were written in
    link_line = next(m for m in _markdown(at).split("\n") if "(./All_reduce?" in m)
    assert "check the GPU: " in link_line and "GPU: GPU:" not in link_line


def test_look_here_first_lists_the_odd_node_before_the_findings():
    from interconnect.topics.explain.model import explain_source
    from interconnect.ui.markdown import escape_markdown

    path = DATA / "synthetic" / "per-node-links.log"
    ranked = explain_source(path.read_bytes()).ranked()
    at = run_page(PAGE)
    at.text_area(key="explain.paste").input(path.read_text(encoding="utf-8")).run()
    assert not at.exception and not at.error
    items = [m.value for m in at.markdown if m.value[:3] in {f"{n}. " for n in range(1, 10)}]
    # the same sentences, in the same order, as the JSON's "ranked" list
    assert items == [f"{n}. **line {f.line}** · {escape_markdown(f.text)}" for n, f in enumerate(ranked, start=1)]
    assert any("Node gpu" in item and "lists 2 RDMA NIC" in item for item in items)
    subheaders = [h.value for h in at.subheader]
    assert subheaders.index("Look here first") < subheaders.index("What the log says")
    assert "Node by node" in subheaders  # the table of what each host's lines show
    table = at.dataframe[-1].value
    assert list(table["host"]) == ["gpu-b", "gpu-c", "gpu-d", "gpu-a"] and list(table["NICs listed"])[1] == "2"
