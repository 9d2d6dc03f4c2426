"""A link to a hypothetical system opens on a cold server, follows a typed change, and reopens.

"A GPU with 3.6 TB/s of scale-up per direction and 4 x 800G NICs" is a link
(``gpu=custom&gpu_bw=3.6 TB/s&nic=custom&nic_bw=800 Gbit/s&nics=4``); it must open as the first
request a server ever sees, and the URL must follow a change typed into the custom GPU's fields.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from browser_helpers import (
    METRIC_VALUE,
    assert_healthy,
    open_cold,
    open_page,
    poll,
    query_of,
    wait_for_first_chart,
    widget,
)

pytestmark = pytest.mark.browser

NEXT = {"gpu": "custom", "gpu_base": "h100-sxm", "gpu_bw": "3.6 TB/s", "gpu_name": "Next GPU", "nic": "custom",
        "nic_bw": "800 Gbit/s", "nics": "4", "dir": "per", "unit": "GBps", "basis": "spec"}


def like_for_like(page) -> str:
    return page.locator(METRIC_VALUE).first.inner_text()


def test_cold_link_to_a_custom_gpu_opens_and_follows_a_typed_change(cold_server, page):
    open_cold(page, cold_server, "/Bandwidth_cliff?" + urlencode(NEXT))
    assert_healthy(page, cold_server)
    wait_for_first_chart(page)  # the live chart: view=auto adds none for this link
    # 3,600 GB/s per direction against 4 x 100 GB/s shared by 8 GPUs.
    assert poll(page, lambda: like_for_like(page) == "72 : 1"), like_for_like(page)
    page.wait_for_timeout(500)
    assert query_of(page.url) == NEXT, page.url
    # Its sources pop-over: the typed figure has no source but the viewer.
    page.get_by_role("button", name="Sources: Next GPU").click()
    mentions = page.get_by_text("custom (your input)")
    assert poll(page, lambda: any(mentions.nth(i).is_visible() for i in range(mentions.count()))), "no source line"
    page.keyboard.press("Escape")

    field = widget(page, "cliff.gpu_bw").locator("input").first
    field.fill("1.8 TB/s")
    field.press("Enter")
    assert poll(page, lambda: query_of(page.url).get("gpu_bw") == "1.8 TB/s", timeout_s=20), page.url
    assert poll(page, lambda: like_for_like(page) == "36 : 1", timeout_s=20), like_for_like(page)

    # The address bar reopens the same hypothetical system in a new session.
    again = page.context.new_page()
    open_page(again, cold_server, page.url.removeprefix(cold_server.base_url))
    wait_for_first_chart(again)
    assert like_for_like(again) == "36 : 1"
    assert query_of(again.url) == query_of(page.url)
