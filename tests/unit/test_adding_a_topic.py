"""docs/adding-a-topic.md, followed in a copy of the package: a new topic is one folder, one page script and
one line in the list of topics, and then the sidebar, the home card and the known link keys have it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

INPUTS = '''
from interconnect.inputs.params import QuantityParam


def hello_specs() -> list:
    return [QuantityParam("rate", "400 Gbit/s", "Rate", dimension="bandwidth", minimum="1 bit/s",
                          maximum="1000 Tbit/s")]
'''
MODEL = '''
def gbytes_per_s(gbit_per_s: float) -> float:
    return gbit_per_s / 8
'''
PAGE = '''
import streamlit as st

from interconnect.topics.hello.inputs import hello_specs
from interconnect.topics.hello.model import gbytes_per_s
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.state import PageState
from interconnect.units import parse_quantity


def render() -> None:
    page_setup("Hello", "One rate, three units.")
    state = PageState("hello", hello_specs())
    state.show_warnings()
    st.text_input("Rate", key=state.key("rate"))
    state.sync_url()
    gbit = parse_quantity(state["rate"], "bandwidth").quantity.to("Gbit/s").magnitude
    st.metric("GB/s", f"{gbytes_per_s(gbit):g}")
    footer()
'''
SCRIPT = '''"""Page: one rate, three units."""

from interconnect.topics.hello.page import render

render()
'''
CHECK = '''
from streamlit.testing.v1 import AppTest
from interconnect.site import known_link_keys, pages
page = AppTest.from_file("app.py", default_timeout=60)
page.query_params["rate"] = "800 Gbit/s"
page.switch_page("pages/11_Hello.py")
page.run()
assert not page.exception, page.exception
assert [m.value for m in page.metric] == ["100"], [m.value for m in page.metric]
home = AppTest.from_file("app.py", default_timeout=60).run()
assert not home.exception
assert any("Hello" in str(link.proto.label) for link in home.get("page_link")), "no home card"
assert "rate" in known_link_keys() and pages()["hello"] == ("pages/11_Hello.py", "Hello")
print("ok")
'''


def test_the_recipe_adds_a_working_page(tmp_path):
    shutil.copytree(ROOT / "interconnect", tmp_path / "interconnect", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "pages", tmp_path / "pages")
    shutil.copytree(ROOT / ".streamlit", tmp_path / ".streamlit")
    shutil.copy(ROOT / "app.py", tmp_path / "app.py")
    topic = tmp_path / "interconnect" / "topics" / "hello"
    topic.mkdir()
    (topic / "__init__.py").write_text('"""Hello: one rate, three units."""\n')
    (topic / "inputs.py").write_text(INPUTS)
    (topic / "model.py").write_text(MODEL)
    (topic / "page.py").write_text(PAGE)
    (tmp_path / "pages" / "11_Hello.py").write_text(SCRIPT)
    site = tmp_path / "interconnect" / "site.py"
    text = site.read_text()
    line = '    Topic("hello", "pages/11_Hello.py", "Hello", "Hello", "One rate, three units."),\n)\n'
    assert text.count("\n)\n") >= 1
    site.write_text(text.replace("\n)\n", "\n" + line, 1))  # the one shared line: the end of TOPICS
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(CHECK)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stdout + done.stderr
