"""The reference pages in docs/reference/ are what the code gives, and the README stays a five-minute read."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_pages_are_generated_from_the_code():
    generator = _generator()
    for name, render in generator.PAGES.items():
        committed = (ROOT / "docs" / "reference" / name).read_text(encoding="utf-8")
        assert committed == render() + "\n", f"docs/reference/{name} is out of date: run python docs/generate.py"


def test_every_link_key_of_every_page_is_in_the_reference():
    from interconnect.site import page_specs

    text = (ROOT / "docs" / "reference" / "link-keys.md").read_text(encoding="utf-8")
    for specs in page_specs().values():
        for spec in specs():
            assert f"| `{spec.key}`" in text, spec.key


def test_the_readme_is_short_and_links_to_the_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) < 12_000
    for page in ("docs/pages.md", "docs/reference/link-keys.md", "docs/reference/cli.md", "docs/adding-a-topic.md",
                 "docs/performance.md", "docs/accuracy.md", "docs/deploying.md"):
        assert f"({page})" in readme, page
        assert (ROOT / page).is_file(), page


def _relative_links(path: Path) -> list[str]:
    """The targets of ``[text](target)`` links in a Markdown file that are neither web addresses nor anchors."""
    import re

    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)  # code blocks hold no links
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t.split("#", 1)[0] for t in targets if not t.startswith(("http://", "https://", "mailto:", "#"))]


def test_every_relative_link_in_the_readme_and_docs_opens_a_file():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "benchmarks").glob("*.md"))]
    broken = [f"{page.relative_to(ROOT)} -> {target}" for page in pages for target in _relative_links(page)
              if target and not (page.parent / target).exists()]
    assert not broken, broken
