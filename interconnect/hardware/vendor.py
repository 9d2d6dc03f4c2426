"""The maker's words for a cluster: its collective library, its benchmark and its scale-up fabric."""

from __future__ import annotations

from dataclasses import dataclass

from interconnect.hardware.cluster import Cluster

__all__ = ["VendorWords", "nvidia_words", "vendor_words"]


@dataclass(frozen=True)
class VendorWords:
    """The maker's own words for a cluster's collective library and scale-up, for every message about it.

    Attributes
    ----------
    library : str
        The collective library: NCCL (NVIDIA), RCCL (AMD), HCCL (Intel Gaudi).
    tests : str
        Its benchmark: nccl-tests, rccl-tests, or the library's own demo.
    scaleup : str
        The scale-up fabric's family name: NVLink, Infinity Fabric, Gaudi's on-chip RoCE.
    domain : str
        One scale-up domain in words ("one NVLink domain", "one Infinity Fabric node").
    pick : str
        The tuner's choice in a legend ("NCCL's pick").
    """

    library: str
    tests: str
    scaleup: str
    domain: str
    pick: str


_WORDS = {
    "nccl": VendorWords("NCCL", "nccl-tests", "NVLink", "one NVLink domain", "NCCL's pick"),
    "rccl": VendorWords("RCCL", "rccl-tests", "Infinity Fabric", "one Infinity Fabric node", "RCCL's pick"),
    "hccl": VendorWords("HCCL", "hccl_demo", "Gaudi's on-chip RoCE", "one Gaudi node (on-chip RoCE)",
                        "HCCL's pick (modelled as NCCL's)"),
    "other": VendorWords("the collective library", "its benchmark", "the scale-up links", "one scale-up domain",
                         "the library's pick (modelled as NCCL's)"),
}


def nvidia_words() -> VendorWords:
    """Return NVIDIA's words (NCCL, nccl-tests, NVLink): the default of a figure drawn without a cluster.

    >>> nvidia_words().pick
    "NCCL's pick"
    """
    return _WORDS["nccl"]


def vendor_words(cluster: Cluster) -> VendorWords:
    """Return the maker's words for the cluster's GPU (library, benchmark, scale-up fabric).

    Parameters
    ----------
    cluster : Cluster
        The cluster.

    Returns
    -------
    VendorWords
        NVIDIA: NCCL and NVLink; AMD: RCCL and Infinity Fabric; Intel Gaudi: HCCL and on-chip RoCE.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> [vendor_words(resolve_cluster(g)[0]).library for g in ("h100-sxm", "mi300x", "gaudi3")]
    ['NCCL', 'RCCL', 'HCCL']
    """
    if cluster.library == "other" and "intel" in cluster.vendor.lower():
        return _WORDS["hccl"]
    return _WORDS.get(cluster.library, _WORDS["other"])
