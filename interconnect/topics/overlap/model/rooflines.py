"""Rooflines: at how many tokens per GPU data-parallel communication hides behind compute.

The Scaling Book's GPU rooflines, this cluster's, and the Ultra-Scale Playbook's ratios.
"""

from __future__ import annotations

from dataclasses import dataclass

from interconnect.catalog import Catalog, get_catalog
from interconnect.hardware.cluster import Cluster
from interconnect.topics.overlap.model.workload import GRADIENT_BYTES, ModelShape, gpu_rates

__all__ = [
    "Roofline",
    "cluster_roofline_tokens",
    "playbook_ratios",
    "scaling_book_rooflines",
]


@dataclass(frozen=True)
class Roofline:
    """The Scaling Book's data-parallel threshold C / W, rebuilt from catalog figures.

    ``tokens`` is ours (catalog C over catalog W); ``published_tokens`` is the book's figure.
    """

    label: str
    flops_per_s: float
    bandwidth_bytes_per_s: float
    tokens: float
    published_tokens: float
    bandwidth_basis: str
    source_ids: tuple[str, ...]


def scaling_book_rooflines(catalog: Catalog | None = None) -> list[Roofline]:
    """Rebuild the three data-parallel rooflines of the Scaling Book's GPU chapter from the catalog.

    Parameters
    ----------
    catalog : interconnect.catalog.Catalog, optional
        The catalog (the packaged one by default).

    Returns
    -------
    list of Roofline
        Tokens per GPU above which data parallelism is compute-bound, ours and the book's.

    Notes
    -----
    Compute-bound data parallelism needs

    .. math:: D > C / W

    tokens per GPU, with bf16 gradients (in place of the book's per-layer MLP derivation), W the
    GPU's NVLink egress inside a node and the node's scale-out egress beyond it (the book:
    990e12 / 450e9 = 2,200; 990e12 / 400e9 = 2,475; B200 2250e12 / 400e9 = 5,625;
    :data:`SCALING_BOOK_URL`, section "Rooflines for LLM Scaling on GPUs"). Here C is the catalog's
    dense BF16 figure and W the catalog's NVLink rate per direction, or the reference server's NICs
    x the NIC line rate per direction.

    Examples
    --------
    >>> [f"{r.tokens:,.0f} tokens" for r in scaling_book_rooflines()]
    ['2,199 tokens', '2,474 tokens', '5,625 tokens']
    """
    catalog = catalog or get_catalog()
    rows = []
    h100 = catalog.gpu("h100-sxm")
    c_h100 = float(h100.bf16_dense.quantity.to("FLOP/s").magnitude)
    nvlink = float(h100.scaleup_bandwidth.per_direction().to("B/s").magnitude)
    rows.append(Roofline("H100, inside a node (NVLink 4, 450 GB/s per GPU)", c_h100, nvlink, c_h100 / nvlink, 2200,
                         "NVLink per direction per GPU", (*h100.bf16_dense.source_ids,
                                                          *h100.scaleup_bandwidth.source_ids)))
    for gpu_id, node_id, published in (("h100-sxm", "dgx-h100", 2475), ("b200", "hgx-b200", 5625)):
        gpu = catalog.gpu(gpu_id)
        node = catalog.node(node_id)
        nic = catalog.nic(node.nic)
        c = float(gpu.bf16_dense.quantity.to("FLOP/s").magnitude)
        w = node.nics * float(nic.bandwidth.per_direction().to("B/s").magnitude)
        name = "H100" if gpu_id == "h100-sxm" else "B200"
        rows.append(Roofline(f"{name}, across nodes ({node.nics} x {nic.name.split(' (')[0]}, {w / 1e9:.0f} GB/s "
                             "per node)", c, w, c / w, published, "node egress per direction",
                             (*gpu.bf16_dense.source_ids, *nic.bandwidth.source_ids, *node.source_ids)))
    return rows


def cluster_roofline_tokens(cluster: Cluster, gradient_dtype: str = "bf16", catalog: Catalog | None = None) -> float:
    r"""Compute the Scaling Book's C / W threshold for a cluster (spec figures), scaled by gradient bytes / 2.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    gradient_dtype : {"bf16", "fp16", "fp32"}
        Bytes per gradient element (the book assumes 2).
    catalog : interconnect.catalog.Catalog, optional
        Where the GPU's rates come from.

    Returns
    -------
    float
        Tokens per GPU.

    Notes
    -----
    .. math:: D^* = \frac{C}{W} \cdot \frac{g}{2}

    W is the GPU's scale-up rate per direction when the job fits in one NVLink domain, else the
    domain's NIC line rate per direction added up (:data:`SCALING_BOOK_URL`).

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("b200", gpus_per_node=8, nodes=4)
    >>> f"{cluster_roofline_tokens(cluster):,.0f} tokens per GPU"
    '5,625 tokens per GPU'
    """
    flops, _ = gpu_rates(cluster.gpu if catalog is not None else cluster.gpu_spec(), catalog)
    if cluster.domains <= 1:
        w = cluster.scaleup_spec_gbps * 1e9
    else:
        w = cluster.nic_line_gbps * cluster.nics_per_domain * 1e9
    return flops / w * GRADIENT_BYTES[gradient_dtype] / 2


def playbook_ratios(workload: ModelShape, tokens_per_gpu: float, cluster: Cluster,
                    catalog: Catalog | None = None) -> dict[str, float]:
    r"""Compute t_comm / t_compute for each kind of parallelism, from the Ultra-Scale Playbook's overlap conditions.

    Parameters
    ----------
    workload : ModelShape
        The model (width h and layers L).
    tokens_per_gpu : float
        D, tokens per GPU.
    cluster : Cluster
        The cluster.
    catalog : interconnect.catalog.Catalog, optional
        Where the GPU's rates come from.

    Returns
    -------
    dict of str to float
        ``dp``, ``zero3``, ``tp`` and ``pp`` ratios (dimensionless; at most 1: the communication
        can hide).

    Notes
    -----
    The Playbook's appendix A3 (``ultrascale-playbook``), evaluated for this cluster, with C the
    GPU's dense BF16 rate and W as in :func:`cluster_roofline_tokens` (per-GPU NIC for pp):

    .. math::

        r_{dp} = \frac{DP - 1}{DP} \frac{C}{D W}, \quad
        r_{zero3} = \frac{r_{dp}}{2}, \quad
        r_{tp} = \frac{TP - 1}{2 h} \frac{C}{W_{NVLink}}, \quad
        r_{pp} = \frac{C}{32 \, h \, L_{stage} \, W_{NIC}}

    The Playbook prints :math:`(N / 2D) ((DP-1)/DP) (C / W)` for dp, which keeps a stray factor of
    N (it compares one bucket with the whole backward pass); the form above is our dimensionally
    consistent one for the whole gradient (bf16) against the backward pass. For zero3,
    seq x mbs = the tokens per GPU; TP = GPUs per NVLink domain (at most 8); one pipeline stage per
    node.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> ratios = playbook_ratios(ModelShape.from_params(8e9, 32), 4096, cluster)
    >>> f"dp {ratios['dp']:.2f}, zero3 {ratios['zero3']:.2f}"
    'dp 0.59, zero3 0.29'
    """
    flops, _ = gpu_rates(cluster.gpu if catalog is not None else cluster.gpu_spec(), catalog)
    dp = max(cluster.ranks, 1)
    dp_term = (dp - 1) / dp
    w_dp = cluster_roofline_tokens(cluster, "bf16", catalog)  # C / W
    tp = max(min(cluster.domain_size, 8), 1)
    w_nvlink = cluster.scaleup_spec_gbps * 1e9
    w_nic = cluster.nic_line_gbps * 1e9 * cluster.nics_per_node / cluster.gpus_per_node
    h = workload.hidden
    layers_per_stage = max(workload.layers / max(cluster.domains, 1), 1.0)
    return {
        "dp": dp_term * w_dp / tokens_per_gpu,
        "zero3": dp_term * w_dp / (2 * tokens_per_gpu),
        "tp": (tp - 1) / (2 * h) * flops / w_nvlink,
        "pp": flops / (32 * h * layers_per_stage * w_nic),
    }
