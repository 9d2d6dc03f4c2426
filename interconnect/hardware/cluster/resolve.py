"""Resolution: a :class:`~interconnect.hardware.cluster.Cluster` from what people type, clamped once.

:func:`resolve_cluster` reads the catalog, fills in defaults from the GPU's reference server, and never
raises on a bad value: it clamps or replaces the value and returns a human-readable warning instead
("nodes: 0 is not allowed; using 1"). Unknown catalog ids are the one exception: they raise
:class:`~interconnect.catalog.UnknownIdError`, because guessing another GPU would silently answer a
different question.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from interconnect.catalog import Catalog, Gpu, Link, UnknownIdError, get_catalog
from interconnect.hardware.cluster.limits import (
    MAX_GPUS_PER_NODE,
    MAX_HOP_LATENCY_US,
    MAX_NIC_GBIT_S,
    MAX_NICS_PER_NODE,
    MAX_NODES,
    MAX_RANKS,
    MIN_NIC_GBIT_S,
)
from interconnect.hardware.cluster.transports import FABRICS, fabric_from_family
from interconnect.hardware.cluster.value import Cluster
from interconnect.hardware.custom import CUSTOM_GPU_ID, clean_name, custom_gpu, read_scaleup
from interconnect.units import QuantityInputError, QuantityText, magnitude_in, read_quantity

RACK_SCALE_DOMAIN = 16  # NVLink domains larger than this span servers (NVL72, NVL576)

# When a GPU's catalog entry has no "achieved" scale-up figure, NCCL-level all-reduce reaches about
# 80 % of the per-direction spec (one-node ring busbw against spec: A100 78 %, H200 82 %, ml-engineering
# network/README.md; NCCL topo.h plans 20.6 of
# 25 GB/s per NVLink 4 link = 82 %).
SCALEUP_ACHIEVED_FALLBACK = 0.80


def _clamp_int(name: str, value: object, default: int, low: int, high: int, warnings: list[str]) -> int:
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        warnings.append(f"{name}: {value!r} is not a number; using {default}")
        return default
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        warnings.append(f"{name}: {value!r} is not a number; using {default}")
        return default
    if not math.isfinite(number):
        warnings.append(f"{name}: {value!r} is not a finite number; using {default}")
        return default
    whole = int(round(number))
    if whole != number:
        warnings.append(f"{name}: {value!r} is not a whole number; using {whole}")
    if whole < low:
        warnings.append(f"{name}: {whole} is not allowed (minimum {low}); using {low}")
        return low
    if whole > high:
        warnings.append(f"{name}: {whole:,} is more than the {high:,} this model handles; using {high:,}")
        return high
    return whole


def _preset_for(catalog: Catalog, gpu_id: str) -> object | None:
    """Pick the catalog node preset for a GPU: the one with the biggest NVLink domain wins (NVL72)."""
    presets = [node for node in catalog.nodes.values() if node.gpu == gpu_id]
    if not presets:
        return None
    typical = catalog.gpu(gpu_id).typical_nic
    return max(presets, key=lambda node: (node.scaleup_domain, node.nic == typical, node.gpus))


def _nic_rates(link: Link, fabric: str) -> tuple[float, float]:
    line = magnitude_in(link.bandwidth.per_direction(), "GB/s")
    if link.achieved is not None:
        achieved = magnitude_in(link.achieved.per_direction(), "GB/s")
    else:
        achieved = line * FABRICS[fabric].efficiency
    return line, achieved


def _scaleup(catalog: Catalog, gpu: Gpu) -> tuple[float, float, bool, bool, str]:
    spec = magnitude_in(gpu.scaleup_bandwidth.per_direction(), "GB/s")
    if gpu.scaleup_achieved is not None:
        achieved = magnitude_in(gpu.scaleup_achieved.per_direction(), "GB/s")
    else:
        achieved = spec * SCALEUP_ACHIEVED_FALLBACK
    link = catalog.links.get(gpu.scaleup_link)
    switched = bool(link.switched) if link is not None else False
    reduction = bool(link.in_network_reduction) if link is not None else False
    name = link.name if link is not None else gpu.scaleup_link
    return spec, achieved, switched, reduction, name


def resolve_cluster(
    gpu: str = "h100-sxm",
    *,
    gpus_per_node: object = None,
    nodes: object = 1,
    nic: object = None,
    nics_per_node: object = None,
    fabric: object = None,
    scaleup_domain: object = None,
    node: str | None = None,
    in_network_reduction: object = None,
    hop_latency: object = None,
    gpu_base: object = None,
    scaleup_bandwidth: object = None,
    gpu_name: object = None,
    catalog: Catalog | None = None,
    topology: object = None,
) -> tuple[Cluster, list[str]]:
    """Build a :class:`Cluster` from user inputs, clamping absurd values and saying so.

    Parameters
    ----------
    gpu : str
        GPU catalog id (``h100-sxm``, ``mi300x``, ...). Unknown ids raise UnknownIdError.
    gpus_per_node, nodes : int-like
        Default: the GPU's node preset (DGX H100: 8 per node), and 1 node. Clamped to
        1..1024 GPUs per node, 1..100,000 nodes and 1,000,000 ranks in total.
    nic : str
        A scale-out NIC catalog id (``ib-ndr``) or a per-direction bandwidth per NIC
        (``"200 Gbit/s"``). Default: the GPU's typical NIC. A value that is neither is replaced by
        the default with a warning; rates are clamped to 1 Gbit/s..12.8 Tbit/s.
    nics_per_node : int-like
        Default: the preset's count, else one per GPU (the catalog's ``typical_nics_per_gpu``).
    fabric : str
        ``infiniband``, ``roce``, ``ethernet`` or ``efa``. Default: from the NIC's family, or for a
        bare bandwidth the family of the GPU's typical NIC.
    scaleup_domain : int-like
        GPUs per NVLink domain. Default: the preset's (8 on HGX, 72 for GB200 NVL72), at least
        ``gpus_per_node``.
    node : str
        A node preset id (``dgx-h100``) supplying defaults for the other fields.
    in_network_reduction : bool
        SHARP/CollNet in the switches (InfiniBand only). Default off: NCCL needs the SHARP plugin.
    hop_latency : str or float
        Extra latency per network hop on top of NCCL's own constants, replacing the fabric's
        (``"25 us"``, or a number of µs). Default (None or ``""``): the fabric's value. Used to make
        a cluster match a measured log; clamped to 0..100 ms.
    gpu_base, scaleup_bandwidth, gpu_name : str
        Only for ``gpu="custom"``, a hypothetical GPU: the catalog GPU it is built on (default
        ``h100-sxm``; compute, memory, tuning and server come from it), its scale-up bandwidth per
        direction (``"3.6 TB/s"``; default the base's; clamped to 1 GB/s..100 TB/s) and its name.
        See :mod:`interconnect.hardware.custom`.
    topology : TopologySpec, optional
        The scale-out fabric (:class:`interconnect.hardware.fabric.TopologySpec`). Default None: no
        fabric is modelled and every result is exactly what it is without this argument.

    Returns
    -------
    (Cluster, list of str)
        The cluster and the warnings, one sentence each.

    Examples
    --------
    >>> cluster, warnings = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=0, nic="5 parsecs")
    >>> cluster.nodes, cluster.nic
    (1, 'ib-ndr')
    >>> warnings[0]
    'nodes: 0 is not allowed (minimum 1); using 1'
    >>> cluster, _ = resolve_cluster("a100-sxm", gpus_per_node=8, nodes=2, nic="100 Gbit/s", nics_per_node=16,
    ...                              fabric="roce")
    >>> round(cluster.node_egress_gbps, 1), cluster.nic_label
    (184.0, '100 Gbit/s')
    >>> cluster, _ = resolve_cluster("custom", gpu_base="h100-sxm", scaleup_bandwidth="3.6 TB/s", gpu_name="X")
    >>> cluster.gpu, cluster.gpu_name, cluster.scaleup_spec_gbps, cluster.gpu_custom
    ('h100-sxm', 'X', 3600.0, True)
    """
    catalog = catalog or get_catalog()
    warnings: list[str] = []
    gpu, gpu_entry, preset, custom = _choose_gpu(catalog, gpu, node, gpu_base, scaleup_bandwidth, gpu_name,
                                                 warnings)
    g, k = _node_counts(preset, gpus_per_node, nodes, warnings)

    # Scale-up domain.
    preset_domain = int(getattr(preset, "scaleup_domain", g)) if preset is not None else g
    # Rack-scale domains (GB200 NVL72) span several servers and keep their size whatever a server
    # holds; a board-level domain (HGX, MI300X platform) is the server itself.
    default_domain = preset_domain if preset_domain > RACK_SCALE_DOMAIN else g
    domain = _clamp_int("scaleup_domain", scaleup_domain, default_domain, 1, MAX_RANKS, warnings)
    spec, achieved, switched, reduction, link_name = _scaleup(catalog, gpu_entry)
    mesh_peers = 0 if switched else max(preset_domain - 1, 1)

    # Scale-out: the NIC (a catalog id or a bandwidth), the fabric it runs on, and how many per node.
    default_nic_id = str(getattr(preset, "nic", gpu_entry.typical_nic)) if preset is not None else gpu_entry.typical_nic
    chosen_nic = _choose_nic(catalog, nic, default_nic_id, warnings)
    # A bare bandwidth runs on the fabric of the default NIC's family unless ``fabric`` says otherwise.
    implied = fabric_from_family((chosen_nic.link or catalog.link(default_nic_id)).family)
    chosen_fabric = _choose_fabric(fabric, implied, warnings)
    if chosen_nic.link is not None:
        line, achieved_nic = _nic_rates(chosen_nic.link, chosen_fabric)
    else:
        assert chosen_nic.rate_gbps is not None
        line = chosen_nic.rate_gbps
        achieved_nic = chosen_nic.rate_gbps * FABRICS[chosen_fabric].efficiency
    if preset is not None and g == int(getattr(preset, "gpus", -1)):
        default_nics = int(getattr(preset, "nics", g))
    else:
        default_nics = max(1, int(round(gpu_entry.typical_nics_per_gpu * g)))
    nics = _clamp_int("nics_per_node", nics_per_node, default_nics, 1, MAX_NICS_PER_NODE, warnings)

    hop_override = _hop_latency_us(hop_latency, warnings)

    sharp = bool(in_network_reduction) if in_network_reduction is not None else False
    if sharp and chosen_fabric != "infiniband":
        warnings.append("in_network_reduction: SHARP/CollNet needs an InfiniBand fabric; ignoring it")
        sharp = False

    cluster = Cluster(
        gpu=gpu,
        gpu_name=gpu_entry.name,
        architecture=gpu_entry.architecture,
        vendor=gpu_entry.vendor,
        gpus_per_node=g,
        nodes=k,
        scaleup_domain=domain,
        scaleup_link=link_name,
        scaleup_switched=switched,
        scaleup_in_network_reduction=reduction,
        scaleup_spec_gbps=spec,
        intra_bw_full_gbps=achieved,
        mesh_peers=mesh_peers,
        nic=chosen_nic.id,
        nic_label=chosen_nic.label,
        nic_line_gbps=line,
        nic_achieved_gbps=achieved_nic,
        nics_per_node=nics,
        fabric=chosen_fabric,
        in_network_reduction=sharp,
        hop_latency_override_us=hop_override,
        gpu_custom=custom,
        gpu_entry=gpu_entry,
    )
    if topology is not None:
        cluster = replace(cluster, topology=topology.for_servers(nics, line * 8))
    return cluster, warnings


# --- the steps of resolve_cluster, in its order (each appends its own warnings) --------------------


def _choose_gpu(catalog: Catalog, gpu: str, node: str | None, gpu_base: object, scaleup_bandwidth: object,
                gpu_name: object, warnings: list[str]) -> tuple[str, Gpu, Any, bool]:
    """Return the GPU id, its entry (a hypothetical one for ``custom``), the node preset and whether it is custom.

    A node preset's GPU wins over ``gpu``; without a preset, the GPU's own (the biggest domain) is used.
    """
    preset = None
    if node:
        preset = catalog.node(node)
        gpu = preset.gpu
    custom = gpu == CUSTOM_GPU_ID
    if custom:
        gpu = str(gpu_base or "h100-sxm")
    gpu_entry = catalog.gpu(gpu)
    if custom:
        base_gbps = float(gpu_entry.scaleup_bandwidth.per_direction().to("GB/s").magnitude)
        gpu_entry = custom_gpu(gpu_entry, read_scaleup(scaleup_bandwidth, base_gbps, warnings),
                               clean_name(gpu_name, warnings))
    if preset is None:
        preset = _preset_for(catalog, gpu)
    return gpu, gpu_entry, preset, custom


def _node_counts(preset: Any, gpus_per_node: object, nodes: object, warnings: list[str]) -> tuple[int, int]:
    """Return GPUs per node (default: the preset's) and nodes, clamped, with at most ``MAX_RANKS`` GPUs in all."""
    default_g = int(getattr(preset, "gpus", 8)) if preset is not None else 8
    g = _clamp_int("gpus_per_node", gpus_per_node, default_g, 1, MAX_GPUS_PER_NODE, warnings)
    k = _clamp_int("nodes", nodes, 1, 1, MAX_NODES, warnings)
    if g * k > MAX_RANKS:
        capped = max(1, MAX_RANKS // g)
        warnings.append(
            f"nodes: {g * k:,} GPUs is more than the {MAX_RANKS:,} this model handles; using {capped:,} nodes"
        )
        k = capped
    return g, k


@dataclass(frozen=True)
class _NicChoice:
    """The scale-out NIC as read: its id (a bare bandwidth is its own id), label, catalog link or user rate."""

    id: str
    label: str
    link: Link | None
    rate_gbps: float | None = None


def _choose_nic(catalog: Catalog, nic: object, default_id: str, warnings: list[str]) -> _NicChoice:
    """Read ``nic``: a scale-out link id of the catalog, or a per-direction bandwidth clamped to the allowed range.

    Anything else falls back to ``default_id`` with a warning; text that looks like an id but names no
    link raises :class:`~interconnect.catalog.UnknownIdError`.
    """
    default = _NicChoice(default_id, default_id, catalog.link(default_id))
    if nic is None or str(nic).strip() == "":
        return default
    text = str(nic).strip()
    if text in catalog.links:
        candidate = catalog.links[text]
        if candidate.layer != "scale-out":
            warnings.append(f"nic: '{text}' is a {candidate.layer} link, not a NIC; using {default_id}")
            return default
        return _NicChoice(text, text, candidate)
    try:
        rate = read_quantity(nic if isinstance(nic, QuantityText) else text, "bandwidth")  # read once, where typed
    except QuantityInputError as exc:
        looks_like_id = all(ch.isalnum() or ch in "-." for ch in text) and not text[:1].isdigit()
        if looks_like_id:
            raise UnknownIdError("NIC", text, catalog.nics()) from exc
        warnings.append(f"nic: {exc}; using {default_id}")
        return default
    rate_gbit = float(rate.to("Gbit/s").magnitude)
    if rate_gbit < MIN_NIC_GBIT_S:
        warnings.append(f"nic: {text} is below {MIN_NIC_GBIT_S:g} Gbit/s; using {MIN_NIC_GBIT_S:g} Gbit/s")
        rate_gbit = MIN_NIC_GBIT_S
    elif rate_gbit > MAX_NIC_GBIT_S:
        warnings.append(f"nic: {text} is above {MAX_NIC_GBIT_S:g} Gbit/s; using {MAX_NIC_GBIT_S:g} Gbit/s")
        rate_gbit = MAX_NIC_GBIT_S
    label = f"{rate_gbit:g} Gbit/s"
    return _NicChoice(label, label, None, rate_gbit / 8.0)  # a bare bandwidth is its own id (round-trips in a URL)


#: What a user may type for each fabric (lower case, without ``-`` and spaces).
_FABRIC_ALIASES = {"ib": "infiniband", "infiniband": "infiniband", "roce": "roce", "rocev2": "roce",
                   "ethernet": "ethernet", "eth": "ethernet", "tcp": "ethernet", "efa": "efa"}


def _choose_fabric(fabric: object, implied: str, warnings: list[str]) -> str:
    """Read ``fabric`` by its aliases; ``implied`` (the NIC's family) when none is given or it is unknown."""
    if fabric is None or str(fabric).strip() == "":
        return implied
    wanted = str(fabric).strip().lower().replace("-", "").replace(" ", "")
    if wanted in _FABRIC_ALIASES:
        return _FABRIC_ALIASES[wanted]
    warnings.append(f"fabric: '{fabric}' is not one of {', '.join(FABRICS)}; using {implied}")
    return implied


def _hop_latency_us(value: object, warnings: list[str]) -> float | None:
    """Read a user's per-hop latency in µs (text with a time unit, or a number of µs); None for the default."""
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return None
    if isinstance(value, bool):
        warnings.append(f"hop_latency: {value!r} is not a time; using the fabric's value")
        return None
    if isinstance(value, int | float):
        micros = float(value)
    else:
        try:
            micros = float(read_quantity(value if isinstance(value, str) else str(value), "time",
                                         allow_zero=True).to("us").magnitude)
        except QuantityInputError as exc:
            warnings.append(f"hop_latency: {exc}; using the fabric's value")
            return None
    if not math.isfinite(micros):
        warnings.append(f"hop_latency: {value!r} is not finite; using the fabric's value")
        return None
    if micros < 0:
        warnings.append(f"hop_latency: {value} is negative; using 0 µs")
        return 0.0
    if micros > MAX_HOP_LATENCY_US:
        warnings.append(f"hop_latency: {value} is more than 100 ms; using 100 ms")
        return MAX_HOP_LATENCY_US
    return micros
