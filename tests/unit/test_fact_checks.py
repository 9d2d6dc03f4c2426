"""The findings of the fact-check of issue 23, each pinned to its source."""

from __future__ import annotations

import pytest

from interconnect.catalog import get_catalog, load_claims
from interconnect.topics.reach.model import (
    INTERLNK_TAPE_BACKUP_BYTES_PER_S,
    NCCL_IB_RETRY_CNT_DEFAULT,
    NCCL_IB_TIMEOUT_BY_VERSION,
    TIMEOUTS,
    ib_ack_timeout_s,
    ib_give_up_s,
)

CATALOG = get_catalog()


def test_dgx_a100_wiring_counts_the_gpu_side_links():
    # NVIDIA: 12 NVLink 3 links per A100 (NVLink page), six NVSwitches in DGX A100 (DGX A100 blog).
    switch = CATALOG.link("nvswitch2")
    gpus, links_per_gpu, switches = 8, switch.links, 6
    assert gpus * links_per_gpu == 96 and links_per_gpu // switches == 2
    assert "96 GPU-side links" in switch.notes and "two from every GPU to every switch" in switch.notes
    assert any("72" in text for text in switch.disagreements)  # ml-engineering's count, kept as a disagreement


def test_nccl_ib_timeout_defaults_by_version_and_the_give_up_time():
    # NCCL env.rst: "20 (since 2.23; it was 18 since 2.14, and 14 before that)"; retry count 7.
    assert [t for _, t in NCCL_IB_TIMEOUT_BY_VERSION] == [14, 18, 20]
    assert NCCL_IB_RETRY_CNT_DEFAULT == 7
    assert ib_ack_timeout_s(20) == pytest.approx(4.096e-6 * 2**20)  # 4.29 s per try
    # The first try plus seven retries: 8 x 4.29 s = 34.4 s (NCCL's page rounds it to "about 30 s").
    assert ib_give_up_s(20) == pytest.approx(8 * 4.096e-6 * 2**20)
    assert 34 < ib_give_up_s(20) < 35
    assert {case.id for case in TIMEOUTS} >= {"ib-t14", "ib-t18", "ib-t20"}
    assert "34 s" in next(case.note for case in TIMEOUTS if case.id == "ib-t20")


def test_the_700k_per_minute_is_a_tape_backup_not_a_laplink_speed():
    # freeholdcomputer.com: 1.7 MB in 2:22 to a tape drive, compressed, "700K per minute".
    assert INTERLNK_TAPE_BACKUP_BYTES_PER_S == pytest.approx(700e3 / 60)
    assert "tape" in CATALOG.sources["freehold-interlnk"].title
    assert "compressed tape backup" in CATALOG.link("laplink-parallel").notes


def test_top500_verdict_follows_the_lists():
    claim = next(c for c in load_claims(CATALOG) if c.id == "infiniband-top500")
    # IBTA: June 2012, 210 of 500; TOP500 June 2016: Ethernet 218, InfiniBand 205.
    assert claim.verdict == "misleading"
    assert "June 2012" in claim.correction and "210" in claim.correction and "218" in claim.correction
    assert claim.source_ids[0] == "ibta-top500-june2012"
