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
from interconnect.topics.cliff.model import cliff_bars, cliff_summary

__all__ = ["NIC_COUNTS", "PAYLOAD_GRID_BYTES", "NicFamily", "live_nic_counts", "nic_family"]

#: The slider's NICs per server (the page allows 1 to 144).
NIC_COUNTS: tuple[int, ...] = (1, 2, 4, 8, 16, 24, 32, 48, 64, 72, 96, 144)
#: Payloads per GPU, 1 GB to 10 TB (B), four points a decade: the chart's x axis.
PAYLOAD_GRID_BYTES: np.ndarray = np.geomspace(1e9, 1e13, 17)


@dataclass(frozen=True, eq=False)
class NicFamily:
    """Per-GPU bandwidths (B/s) and transfer times (s) at each NIC count, for one basis (spec or achieved).

    The ``*_bytes_per_s`` rates are per direction: a transfer goes one way, so the times are computed
    from them. ``*_shown`` are the same rates in the page's chosen direction (per direction, or both
    summed), for the readouts. ``network_s`` has shape ``(NIC counts, payloads)``; the scale-up and
    host rows do not depend on the NIC count.
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
    direction: str = "per_direction"
    basis: str = "spec"
    network_shown: np.ndarray | None = None
    scaleup_shown: float | None = None


def live_nic_counts(current: int) -> tuple[int, ...]:
    """Return the slider's NIC counts: :data:`NIC_COUNTS` and the page's own count.

    >>> live_nic_counts(8) == NIC_COUNTS, live_nic_counts(3)[:4]
    (True, (1, 2, 3, 4))
    """
    return tuple(sorted({*NIC_COUNTS, max(1, min(int(current), 144))}))


def _rates(catalog: Catalog, gpu_id: str, nic_id: str | None, nics: int, direction: str,
           basis: str) -> tuple[float, float, float]:
    """One GPU's scale-up, host-link and network rates (B/s) as the page's bars give them."""
    bars = {bar.key: bar for bar in cliff_bars(catalog, gpu_id, nic_id, direction=direction, basis=basis,
                                               nics_per_node=nics)}
    return tuple(float(bars[key].bandwidth.to("B/s").magnitude) for key in ("scaleup", "host", "nic"))


def nic_family(catalog: Catalog, gpu_id: str, nic_id: str | None, nic_counts: Sequence[int],
               payload_bytes: Sequence[float] = tuple(PAYLOAD_GRID_BYTES), *, direction: str = "per_direction",
               basis: str = "spec") -> NicFamily:
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
    direction : {"per_direction", "both_directions"}
        How the readouts' rates are given (the page's Direction); the times are always one way.
    basis : {"spec", "achieved"}
        Spec-sheet figures, or what the collective library achieves (a link without an achieved
        figure keeps its spec), as the page's bars (:func:`~interconnect.topics.cliff.model.cliff_bars`).

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
    one_way = [_rates(catalog, gpu_id, nic_id, int(n), "per_direction", basis) for n in counts]
    shown = [_rates(catalog, gpu_id, nic_id, int(n), direction, basis) for n in counts]
    network = np.array([r[2] for r in one_way])
    scaleup, host = one_way[0][0], one_way[0][1]
    payload = np.asarray(payload_bytes, dtype=float)
    summaries = [cliff_summary(catalog, gpu_id, nic_id, nics_per_node=int(n)) for n in counts]
    # The page's own ratios (its metrics), so the readout and the metric agree to the last digit.
    ratios = [(s.ratio_achieved if basis == "achieved" else s.ratio_like_for_like) for s in summaries]
    ratio = np.array([scaleup / net if r is None else r for r, net in zip(ratios, network, strict=True)])
    return NicFamily(
        nic_counts=counts, gpus_per_server=summaries[0].gpus_per_node, payload_bytes=payload,
        network_bytes_per_s=network, scaleup_bytes_per_s=scaleup, host_bytes_per_s=host,
        ratio_like_for_like=ratio,
        network_s=payload[None, :] / network[:, None], scaleup_s=payload / scaleup, host_s=payload / host,
        direction=direction, basis=basis, network_shown=np.array([r[2] for r in shown]), scaleup_shown=shown[0][0],
    )
