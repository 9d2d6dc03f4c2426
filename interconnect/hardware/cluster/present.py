"""The cluster in words and as plain data: what the pages, the CLI and the JSON output show of it.

These read only a cluster's fields and properties (:class:`~interconnect.hardware.cluster.Cluster`'s
``describe`` and ``as_dict`` hand on to them), so this module imports no cluster type.
"""

from __future__ import annotations

from typing import Any

from interconnect.hardware.cluster.transports import FABRICS


def describe_cluster(cluster: Any) -> str:
    """Describe a cluster in one line.

    Returns
    -------
    str
        For example ``2 x 8 NVIDIA H100 SXM5 80GB, NVLink 4 (8-GPU domains), 8 x 400 Gbit/s InfiniBand``.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> describe_cluster(resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)[0]).endswith("8 x 400 Gbit/s InfiniBand")
    True
    """
    nic_gbit = cluster.nic_line_gbps * 8
    text = (
        f"{cluster.nodes} x {cluster.gpus_per_node} {cluster.gpu_name}, {cluster.scaleup_link} "
        f"({cluster.domain_size}-GPU domains), {cluster.nics_per_node} x {nic_gbit:g} Gbit/s "
        f"{FABRICS[cluster.fabric].label}"
    )
    if cluster.hop_latency_override_us is not None:
        text += f", {cluster.hop_latency_override_us:g} µs extra per network hop"
    if cluster.extra_latency_us:
        text += f", {cluster.extra_latency_us:+g} µs on every collective"
    if cluster.host_issue_us:
        text += f", every collective at least {cluster.host_issue_us:.3g} µs (one process issues each GPU's call)"
    if cluster.topology is not None:
        t = cluster.topology
        text += (f"; fabric: {t.topology}, leaf groups of {t.servers_per_group} servers, "
                 f"{t.oversubscription:g}:1 at the leaves")
        if t.shared:
            text += f", {t.shared:.0%} of the spine taken by other traffic"
    if cluster.gpu_custom:
        text += (f"; custom GPU: {cluster.scaleup_spec_gbps:g} GB/s scale-up per direction "
                 f"({2 * cluster.scaleup_spec_gbps:g} GB/s both directions), otherwise like the {cluster.gpu} entry")
    return text


def cluster_as_dict(cluster: Any) -> dict[str, object]:
    """Describe a cluster as plain JSON-ready data (numbers carry their unit in the key).

    Returns
    -------
    dict of str to object
        Counts, bandwidths in GB/s (``*_gbps``) or Gbit/s (``nic_line_gbit_s``) and latency in µs.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster_as_dict(resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)[0])["nic_line_gbit_s"]
    400.0
    """
    return {
        "gpu": cluster.gpu,
        "gpu_name": cluster.gpu_name,
        **({"gpu_custom": True} if cluster.gpu_custom else {}),  # only then: catalog clusters read as before
        "architecture": cluster.architecture,
        "gpus_per_node": cluster.gpus_per_node,
        "nodes": cluster.nodes,
        "ranks": cluster.ranks,
        "scaleup_domain": cluster.domain_size,
        "domains": cluster.domains,
        "scaleup_link": cluster.scaleup_link,
        "nvls": cluster.nvls_enabled,
        "intra_bw_gbps": round(cluster.intra_bw_gbps, 3),
        "nic": cluster.nic,
        "nic_line_gbit_s": round(cluster.nic_line_gbps * 8, 3),
        "nic_achieved_gbps": round(cluster.nic_achieved_gbps, 3),
        "nics_per_node": cluster.nics_per_node,
        "nic_bw_per_gpu_gbps": round(cluster.nic_bw_per_gpu_gbps, 3),
        "node_egress_gbps": round(cluster.node_egress_gbps, 3),
        "nic_devices_per_domain": cluster.nic_devices_per_domain,
        "fabric": cluster.fabric,
        "hop_latency_extra_us": round(cluster.net_hop_latency_us, 3),
        "hop_latency_source": "user" if cluster.hop_latency_override_us is not None else "fabric",
        "in_network_reduction": cluster.in_network_reduction,
        "library": cluster.library,
    }
