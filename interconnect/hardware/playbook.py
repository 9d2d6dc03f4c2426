"""The Ultra-Scale Playbook's measured all-reduce at 256 MB against node count, and its cluster.

Shared by the All-reduce page (the overlay) and the Fabric page (what the Playbook's cluster was).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interconnect.datafiles.playbook import load_playbook_allreduce

__all__ = ["PLAYBOOK_CLUSTER", "PLAYBOOK_SIZE", "PublishedCurve", "playbook_curve"]


@dataclass(frozen=True, eq=False)
class PublishedCurve:
    """A published curve to overlay, with its citation (``low``/``high``: a published spread, or None)."""

    label: str
    source_title: str
    source_url: str
    x: np.ndarray
    busbw_gbps: np.ndarray
    note: str
    low_gbps: np.ndarray | None = None
    high_gbps: np.ndarray | None = None
    spread_label: str = ""


#: The Ultra-Scale Playbook's cluster as the model describes it: AWS p5.48xlarge, 8 x H100 and
#: 32 x 100 Gbit/s EFA per node. The Playbook itself says "1-64 nodes of 8xH100s" on "our cluster"
#: and that the inter-node network is EFA (tensor-parallel section); the same team's Smol Training
#: Playbook describes its cluster as AWS p5 with four 100 Gbit/s EFA adapters per GPU. That the two
#: are the same machines is an inference (same team, same EFA launch settings).
PLAYBOOK_CLUSTER: dict[str, object] = {"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 8, "nic": "efa-v2",
                                       "nics_per_node": 32, "fabric": "efa"}
#: The message size of the Playbook's node-count chart (256 MB, decimal).
PLAYBOOK_SIZE = "256 MB"


def playbook_curve() -> PublishedCurve:
    """Load the Ultra-Scale Playbook's measured all-reduce bandwidth at 256 MB against node count.

    Returns
    -------
    PublishedCurve
        Node counts (8 x H100 each) and the median busbw with the 5th-95th percentile range, GB/s.

    Notes
    -----
    From the chart's own data (``assets/data/benchmarks/pp_comm_bandwidth.html`` of the Playbook's
    Space, https://huggingface.co/spaces/nanotron/ultrascale-playbook), stored in
    ``interconnect/data/published/playbook-allreduce-256mb.csv`` (read by
    :func:`interconnect.datafiles.playbook.load_playbook_allreduce`).

    Examples
    --------
    >>> curve = playbook_curve()
    >>> [f"{b:g} GB/s" for b in curve.busbw_gbps[[0, -1]]]
    ['436 GB/s', '32.9 GB/s']
    """
    data = load_playbook_allreduce()
    return PublishedCurve(
        label="Ultra-Scale Playbook, measured median (256 MB)",
        source_title="Hugging Face, The Ultra-Scale Playbook: all-reduce bandwidth vs node count",
        source_url="https://huggingface.co/spaces/nanotron/ultrascale-playbook",
        x=np.array(data.nodes),
        busbw_gbps=np.array(data.median_gbps),
        note="The Playbook's chart reports bandwidth per GPU at a fixed 256 MB message; read here as busbw.",
        low_gbps=np.array(data.p5_gbps),
        high_gbps=np.array(data.p95_gbps),
        spread_label="Playbook, 5th-95th percentile of its runs",
    )
