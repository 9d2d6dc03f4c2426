"""A link value a page cannot use is echoed once, inside a code span, never in the reason around it.

Streamlit's Markdown does not render raw HTML, but a reason that repeats the typed text shows it outside the
code span, where Markdown does act on it (emphasis, links). Every parameter of every page is tried.
"""

from __future__ import annotations

import re

import pytest

from interconnect.inputs.params import parse_state
from interconnect.site import page_specs

HOSTILE = ("<script>alert(1)</script>", "9<img src=x onerror=1>", "[a](javascript:1)", "**7B**")


@pytest.mark.parametrize("page", sorted(page_specs()))
def test_typed_text_appears_only_inside_code_spans(page):
    specs = page_specs()[page]()
    for spec in specs:
        for value in HOSTILE:
            _, warnings = parse_state(specs, {spec.key: value})
            for warning in warnings:
                outside = re.sub(r"`[^`]*`", "", warning.message())
                for piece in ("<script", "<img", "javascript:", "**7B**"):
                    assert piece not in outside, (page, spec.key, warning.message())
