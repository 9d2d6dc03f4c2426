"""How long data takes to leave a server, at a whole range of NIC counts: the family the cliff's live chart draws.

The Bandwidth cliff page's live chart lets the viewer drag the NICs per server and watch the time
one GPU needs to send its data out of the server close in on (or fall away from) the time it needs
to send the same data to a GPU of its own server. The browser can only follow at once if it already
holds every curve, so this module computes them for every NIC count the slider offers, from the
page's own arithmetic (:func:`~interconnect.topics.cliff.model.cliff_summary`, then :math:`t = S / B`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from interconnect.catalog import Catalog
from interconnect.topics.cliff.model import cliff_summary

__all__ = ["NIC_COUNTS", "PAYLOAD_GRID_BYTES", "NicFamily", "live_nic_counts", "nic_family"]

#: The slider's NICs per server (the page allows 1 to 144).
NIC_COUNTS: tuple[int, ...] = (1, 2, 4, 8, 16, 24, 32, 48, 64, 72, 96, 144)
#: Payloads per GPU, 1 GB to 10 TB (B), four points a decade: the chart's x axis.
PAYLOAD_GRID_BYTES: np.ndarray = np.geomspace(1e9, 1e13, 17)


@dataclass(frozen=True, eq=False)
class NicFamily:
    """Per-GPU bandwidths (B/s, per direction) and transfer times (s) at each NIC count.

    ``network_s`` has shape ``(NIC counts, payloads)``; the scale-up and host rows do not depend
    on the NIC count.
    """

    nic_counts: np.ndarray
    gpus_per_server: int
    payload_bytes: np.ndarray
    network_bytes_per_s: np.ndarray
    scaleup_bytes_per_s: float
    host_bytes_per_s: float
    ratio_like_for_like: np.ndarray
    network_s: np.ndarray
    scaleup_s: np.ndarray
    host_s: np.ndarray


def live_nic_counts(current: int) -> tuple[int, ...]:
    """Return the slider's NIC counts: :data:`NIC_COUNTS` and the page's own count.

    >>> live_nic_counts(8) == NIC_COUNTS, live_nic_counts(3)[:4]
    (True, (1, 2, 3, 4))
    """
    return tuple(sorted({*NIC_COUNTS, max(1, min(int(current), 144))}))


def nic_family(catalog: Catalog, gpu_id: str, nic_id: str | None, nic_counts: Sequence[int],
               payload_bytes: Sequence[float] = tuple(PAYLOAD_GRID_BYTES)) -> NicFamily:
    r"""Compute one GPU's network share and the time to send each payload, at every NIC count.

    Parameters
    ----------
    catalog : interconnect.catalog.Catalog
        The catalog (with any custom GPU or NIC the page built).
    gpu_id : str
        The GPU.
    nic_id : str or None
        The NIC; the GPU's reference server's when None.
    nic_counts : sequence of int
        NICs per server (the slider's positions).
    payload_bytes : sequence of float
        Data one GPU sends, B (the chart's x axis).

    Returns
    -------
    NicFamily
        Bandwidths per direction in B/s; times in s, shape ``(NIC counts, payloads)`` for the network.

    Notes
    -----
    One GPU's share of the network is the server's NICs shared out over its GPUs, and a payload
    :math:`S` takes

    .. math:: B_{net} = B_{NIC} \, n_{NIC} / n_{GPU}, \qquad t = S / B

    for the network, the scale-up link and the host link alike, each per direction
    (:func:`~interconnect.topics.cliff.model.cliff_summary`, :func:`~interconnect.topics.cliff.model.transfer_time`).

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> family = nic_family(get_catalog(), "h100-sxm", "ib-ndr", [8, 16], [50e9])
    >>> family.network_bytes_per_s.tolist(), family.ratio_like_for_like.tolist()
    ([50000000000.0, 100000000000.0], [9.0, 4.5])
    >>> [f"{t:.2f} s" for t in family.network_s[:, 0]], f"{family.scaleup_s[0]:.3f} s"
    (['1.00 s', '0.50 s'], '0.111 s')
    """
    counts = np.asarray(nic_counts, dtype=np.int64)
    summaries = [cliff_summary(catalog, gpu_id, nic_id, nics_per_node=int(n)) for n in counts]
    network = np.array([float(s.network_per_gpu_per_direction.to("B/s").magnitude) for s in summaries])
    first = summaries[0]
    scaleup = float(first.scaleup_per_direction.to("B/s").magnitude)
    host_link = catalog.link(first.gpu.host_link)
    host = float(host_link.bandwidth.per_direction().to("B/s").magnitude)
    payload = np.asarray(payload_bytes, dtype=float)
    return NicFamily(
        nic_counts=counts, gpus_per_server=first.gpus_per_node, payload_bytes=payload,
        network_bytes_per_s=network, scaleup_bytes_per_s=scaleup, host_bytes_per_s=host,
        ratio_like_for_like=np.array([s.ratio_like_for_like for s in summaries]),
        network_s=payload[None, :] / network[:, None], scaleup_s=payload / scaleup, host_s=payload / host,
    )
