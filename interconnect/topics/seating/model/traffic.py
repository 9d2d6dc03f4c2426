"""What each dimension sends, and how long a collective takes on a group of the cluster.

Closed forms for the bytes (tested against their sources), and collective times from
:mod:`interconnect.hardware.collectives`, tabulated over message size and interpolated log-log.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives import collective
from interconnect.units import expects

__all__ = [
    "dp_traffic_bytes",
    "tp_bytes_per_layer",
]


#: Message sizes at which each collective is tabulated (two per octave, 1 B to 1 TiB); times between
#: them are interpolated log-log, which keeps one layout's bill and the search in exact agreement.
_TABLE_SIZES = 2.0 ** np.arange(0, 40.5, 0.5)




@expects(gradient_bytes="B")
def dp_traffic_bytes(gradient_bytes: float, dp: int, zero: int = 0) -> float:
    r"""Compute the bytes each GPU sends per step for data parallelism.

    Parameters
    ----------
    gradient_bytes : float
        G, the gradient each GPU holds, B (or a data-size Quantity).
    dp : int
        n, the data-parallel degree.
    zero : int, default 0
        The ZeRO stage.

    Returns
    -------
    float
        Bytes sent per GPU per step, B.

    Notes
    -----
    .. math::

        V = \begin{cases}
        2 \frac{n-1}{n} G & \text{ZeRO-0, 1, 2} \\
        3 \frac{n-1}{n} G & \text{ZeRO-3}
        \end{cases}

    ZeRO-0 all-reduces the gradients; ZeRO-1/2 reduce-scatter the gradients and all-gather the
    updated BF16 weights, :math:`(n-1)/n \cdot G` each, the same total; ZeRO-3 adds a second
    all-gather of the weights (forward and backward): "3Ψ instead of 2Ψ" (``ultrascale-playbook``,
    ZeRO-3 section; ZeRO paper, https://arxiv.org/abs/1910.02054, section 7). The
    :math:`(n-1)/n` factors are nccl-tests' bus factors (``nccl-tests-performance``).

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> f"{dp_traffic_bytes(1e9, 8) / 1e9} GB", f"{dp_traffic_bytes(1e9, 8, zero=3) / 1e9} GB"
    ('1.75 GB', '2.625 GB')
    >>> dp_traffic_bytes(Q_(1, "GB"), 8) == dp_traffic_bytes(1e9, 8)
    True
    """
    if dp <= 1:
        return 0.0
    share = (dp - 1) / dp
    return gradient_bytes * share * (3.0 if zero >= 3 else 2.0)


@expects(dtype_bytes="B")
def tp_bytes_per_layer(seq_len: int, micro_batch: int, hidden: int, tp: int, dtype_bytes: int = 2) -> float:
    r"""Compute the bytes each GPU sends per transformer layer in the forward pass of Megatron TP.

    Parameters
    ----------
    seq_len : int
        s, tokens per sequence.
    micro_batch : int
        b, sequences per micro-batch.
    hidden : int
        h, the model width.
    tp : int
        t, the tensor-parallel degree.
    dtype_bytes : int, default 2
        Bytes per activation element, B (2 for BF16).

    Returns
    -------
    float
        Bytes per GPU per layer, forward pass, B (the backward pass moves as much again).

    Notes
    -----
    Two all-reduces of the activations :math:`A = s b h` (after attention and after the MLP), or
    with sequence parallelism 2 all-gathers and 2 reduce-scatters of the same volume
    (``ultrascale-playbook``, "Sequence Parallelism"; Korthikanti et al.,
    https://arxiv.org/abs/2205.05198, section 4.2.2):

    .. math:: V = 2 \cdot 2 \frac{t-1}{t} A = 4 \frac{t-1}{t} \, s \, b \, h \cdot \mathrm{bytes}

    Examples
    --------
    >>> f"{tp_bytes_per_layer(4096, 1, 8192, 8) / 2**20} MiB"  # 4 x 7/8 x 64 MiB
    '224.0 MiB'
    """
    if tp <= 1:
        return 0.0
    return 4 * (tp - 1) / tp * seq_len * micro_batch * hidden * dtype_bytes




def _group_cluster(cluster: Cluster, per_domain: int, domains: int) -> Cluster:
    """Shrink the cluster to what one group sees.

    ``per_domain`` GPUs in each of ``domains`` NVLink domains, each GPU with its share of the node's
    NICs (all groups of a dimension run at the same time).
    """
    share = cluster.nics_per_node / cluster.gpus_per_node
    return replace(
        cluster,
        gpus_per_node=per_domain,
        nodes=domains,
        scaleup_domain=per_domain,
        nics_per_node=per_domain,
        nic_achieved_gbps=cluster.nic_achieved_gbps * share,
        nic_line_gbps=cluster.nic_line_gbps * share,
    )


@functools.lru_cache(maxsize=4096)
def _table(cluster: Cluster, name: str, per_domain: int, domains: int) -> np.ndarray:
    """log(time in µs) of ``name`` over ``_TABLE_SIZES`` on a group of the cluster."""
    if per_domain * domains <= 1:
        return np.full(_TABLE_SIZES.size, -np.inf)
    group = _group_cluster(cluster, per_domain, domains)
    times = collective(group, name, _TABLE_SIZES, chooser="fastest" if name != "all_reduce" else "nccl").time_us
    # keep the table non-decreasing so interpolation never makes a larger message faster
    return np.log(np.maximum.accumulate(np.maximum(times, 1e-3)))


def _time_s(cluster: Cluster, name: str, per_domain: np.ndarray, domains: np.ndarray,
            size_bytes: np.ndarray) -> np.ndarray:
    """Time (s) of one call of ``name`` per layout (arrays of equal length)."""
    out = np.zeros(size_bytes.shape, dtype=float)
    if size_bytes.size == 1:  # one layout (a plan, a published run): no grouping of shapes to do
        pd, dm = int(np.ravel(per_domain)[0]), int(np.ravel(domains)[0])
        size = np.ravel(size_bytes)[:1]
        if size[0] > 0 and pd * dm > 1:
            out[...] = _interpolated_s(cluster, name, pd, dm, size).reshape(out.shape)
        return out
    # each group shape once: GPUs per domain and domains packed into one integer key (both far below 2**31)
    keys = np.unique(np.asarray(per_domain, dtype=np.int64) * 2**31 + np.asarray(domains, dtype=np.int64))
    for pd, dm in zip((keys // 2**31).tolist(), (keys % 2**31).tolist(), strict=True):
        mask = (per_domain == pd) & (domains == dm) & (size_bytes > 0)
        if mask.any() and pd * dm > 1:
            out[mask] = _interpolated_s(cluster, name, pd, dm, size_bytes[mask])
    return out


def _interpolated_s(cluster: Cluster, name: str, per_domain: int, domains: int, sizes: np.ndarray) -> np.ndarray:
    """Seconds of ``name`` at each of ``sizes`` bytes on one group shape, log-log between the table's sizes."""
    x = np.log(np.clip(sizes, 1.0, _TABLE_SIZES[-1]))
    return np.exp(np.interp(x, np.log(_TABLE_SIZES), _table(cluster, name, per_domain, domains))) * 1e-6
