"""Hypothetical hardware typed by the user: a custom GPU and a custom NIC, shaped like catalog entries.

A talk often asks "what if": a GPU with 3.6 TB/s of scale-up per direction, a 1.6 Tbit/s NIC. These
figures are not in the catalog and have no source; they are the viewer's input. This module turns
them into :class:`~interconnect.catalog.Gpu` and :class:`~interconnect.catalog.Link` values so the
same code that draws a catalog GPU draws a custom one, and marks every figure it invents with the
source id :data:`CUSTOM_SOURCE`, which the pages show as "custom (your input)" instead of a source.

A custom GPU is built on a catalog GPU (its *base*): compute, memory, architecture (which sets the
collective library's tuning), scale-up kind (switched or mesh) and reference server come from the
base; only the scale-up bandwidth and the name are the user's. Its achieved scale-up rate keeps the
base's achieved share of its spec (for H100, 18 x 20.6 GB/s of 450 GB/s), so a custom GPU with its
base's bandwidth behaves exactly like the base.

Parsing never raises on user text: :func:`read_scaleup` and :func:`clean_name` return the value
used and add a warning sentence instead.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import replace

from interconnect.catalog import Catalog, Figure, Gpu, Link
from interconnect.units import Q_, QuantityInputError, read_quantity

__all__ = [
    "CUSTOM_GPU_ID",
    "CUSTOM_NIC_ID",
    "CUSTOM_SOURCE",
    "DEFAULT_NAME",
    "MAX_NAME_CHARS",
    "MAX_SCALEUP_GBPS",
    "MIN_SCALEUP_GBPS",
    "catalog_with",
    "clean_name",
    "custom_gpu",
    "custom_nic",
    "name_problem",
    "read_scaleup",
]

#: The id a custom GPU has in links (``gpu=custom``) and in a catalog extended with :func:`catalog_with`.
CUSTOM_GPU_ID = "custom"
#: The id of a custom NIC in an extended catalog (in links it is ``nic=custom`` with ``nic_bw``).
CUSTOM_NIC_ID = "custom-nic"
#: The source id of a figure the user typed: never in ``sources.toml``; shown as "custom (your input)".
CUSTOM_SOURCE = "custom"
DEFAULT_NAME = "Custom GPU"
MAX_NAME_CHARS = 40
#: Range of a custom scale-up bandwidth per direction (GB/s): 1 GB/s to 100 TB/s.
MIN_SCALEUP_GBPS = 1.0
MAX_SCALEUP_GBPS = 100_000.0
#: Punctuation a custom name may hold besides letters, digits and spaces (no markup characters).
_NAME_PUNCTUATION = set("-_.,+/()#:'&")


def name_problem(text: str) -> str | None:
    """Why ``text`` cannot be a custom GPU's name, or None if it can.

    >>> name_problem("B300 + CPO"), name_problem("<img src=x>")
    (None, "only letters, digits, spaces and - _ . , + / ( ) # : ' & are allowed")
    """
    if len(text) > MAX_NAME_CHARS:
        return f"longer than {MAX_NAME_CHARS} characters"
    if not all(char == " " or char in _NAME_PUNCTUATION or unicodedata.category(char)[0] in "LN" for char in text):
        return "only letters, digits, spaces and - _ . , + / ( ) # : ' & are allowed"
    return None


def clean_name(text: object, warnings: list[str] | None = None) -> str:
    """Clean a custom GPU's name: letters, digits, spaces and plain punctuation, at most 40 characters.

    Parameters
    ----------
    text : object
        The name as it arrived (a link value or a typed field).
    warnings : list of str, optional
        Gets one line when the name is refused.

    Returns
    -------
    str
        The name with runs of spaces collapsed, or the default name.

    Notes
    -----
    Anything else (markup, control characters, an over-long name) is refused: the default name is used
    and a warning added, so the name can be drawn in a chart or a caption without being read as markup.

    >>> clean_name("  Rubin   (hypothetical) "), clean_name("<b>x</b>")
    ('Rubin (hypothetical)', 'Custom GPU')
    """
    if text is None:
        return DEFAULT_NAME
    name = " ".join(str(text).split())
    if not name:
        return DEFAULT_NAME
    problem = name_problem(name)
    if problem:
        if warnings is not None:
            warnings.append(f"gpu_name: {problem}; using '{DEFAULT_NAME}'")
        return DEFAULT_NAME
    return name


def read_scaleup(value: object, default_gbps: float, warnings: list[str]) -> float:
    """Read a custom scale-up bandwidth per direction, from text (``"3.6 TB/s"``) or a number of GB/s.

    Parameters
    ----------
    value : object
        Text for the strict quantity parser, or a number taken as GB/s.
    default_gbps : float
        Used when the value is missing or unreadable, GB/s.
    warnings : list of str
        Gets one line per problem.

    Returns
    -------
    float
        Scale-up bandwidth per direction, GB/s.

    Notes
    -----
    Text is read by the strict quantity parser (no expressions). Bad text gives ``default_gbps`` and a
    warning; a rate outside 1 GB/s .. 100 TB/s is clamped, with a warning.

    >>> notes = []
    >>> read_scaleup("3.6 TB/s", 450.0, notes), read_scaleup("5 parsecs", 450.0, notes), len(notes)
    (3600.0, 450.0, 1)
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return default_gbps
    if isinstance(value, bool):
        warnings.append(f"gpu_bw: {value!r} is not a bandwidth; using {default_gbps:g} GB/s")
        return default_gbps
    if isinstance(value, int | float):
        gbps = float(value)
    else:
        try:
            text = value if isinstance(value, str) else str(value)  # a page's value carries its reading
            gbps = float(read_quantity(text, "bandwidth").to("GB/s").magnitude)
            gbps = float(f"{gbps:.12g}")  # 3.6 TB/s is 3600 GB/s, not 3600.0000000000005
        except QuantityInputError as exc:
            warnings.append(f"gpu_bw: {exc}; using {default_gbps:g} GB/s")
            return default_gbps
    if not math.isfinite(gbps) or gbps <= 0:
        warnings.append(f"gpu_bw: {value!r} is not a positive finite bandwidth; using {default_gbps:g} GB/s")
        return default_gbps
    if gbps < MIN_SCALEUP_GBPS:
        warnings.append(f"gpu_bw: {value} is below {MIN_SCALEUP_GBPS:g} GB/s; using {MIN_SCALEUP_GBPS:g} GB/s")
        return MIN_SCALEUP_GBPS
    if gbps > MAX_SCALEUP_GBPS:
        warnings.append(f"gpu_bw: {value} is above 100 TB/s; using 100 TB/s")
        return MAX_SCALEUP_GBPS
    return gbps


def _scaled(figure: Figure | None, factor: float, note: str) -> Figure | None:
    if figure is None:
        return None
    return Figure(figure.quantity * factor, figure.direction, "estimate", (CUSTOM_SOURCE, *figure.source_ids), note)


def custom_gpu(base: Gpu, scaleup_gbps: float, name: str = DEFAULT_NAME) -> Gpu:
    """Build a GPU like ``base`` but with ``scaleup_gbps`` GB/s of scale-up bandwidth per direction.

    Parameters
    ----------
    base : Gpu
        The catalog GPU whose compute, memory, tuning and server the custom GPU keeps.
    scaleup_gbps : float
        Scale-up bandwidth per direction, GB/s.
    name : str
        The name shown (already cleaned by :func:`clean_name`).

    Returns
    -------
    Gpu
        A catalog-shaped GPU with id ``custom``; its typed figure's source is ``custom``.

    Notes
    -----
    The achieved and one-peer scale-up figures of the base are scaled by the same factor (an estimate,
    marked as such); everything else is the base's, with its sources.

    >>> from interconnect.catalog import get_catalog
    >>> gpu = custom_gpu(get_catalog().gpu("h100-sxm"), 3600.0, "Next")
    >>> gpu.id, gpu.scaleup_bandwidth.per_direction(), gpu.scaleup_bandwidth.both_directions()
    ('custom', <Quantity(3600.0, 'gigabyte / second')>, <Quantity(7200.0, 'gigabyte / second')>)
    """
    base_gbps = float(base.scaleup_bandwidth.per_direction().to("GB/s").magnitude)
    factor = scaleup_gbps / base_gbps
    note = f"Scaled from {base.name}'s figure by the custom scale-up bandwidth ({factor:.3g}x)."
    return replace(
        base,
        id=CUSTOM_GPU_ID,
        name=name,
        scaleup_bandwidth=Figure(Q_(scaleup_gbps, "GB/s"), "per_direction", "custom", (CUSTOM_SOURCE,),
                                 f"Typed by you. Compute, memory and server are {base.name}'s."),
        scaleup_achieved=_scaled(base.scaleup_achieved, factor, note),
        scaleup_per_peer=_scaled(base.scaleup_per_peer, factor, note),
        notes=f"A hypothetical GPU: {base.name} with another scale-up bandwidth.",
        disagreements=(),
    )


def custom_nic(rate_gbit_s: float, like: Link) -> Link:
    """Build a scale-out NIC of ``rate_gbit_s`` Gbit/s per direction, of the same family as ``like``.

    Parameters
    ----------
    rate_gbit_s : float
        Rate per direction, Gbit/s.
    like : Link
        The catalog NIC whose family (InfiniBand, RoCE, ...) and latency the custom one keeps.

    Returns
    -------
    Link
        A catalog-shaped link with id ``custom-nic``; its rate's source is ``custom``.

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> nic = custom_nic(800.0, get_catalog().nic("ib-ndr"))
    >>> nic.id, nic.name, nic.bandwidth.per_direction().to("GB/s")
    ('custom-nic', 'Custom NIC (800 Gbit/s)', <Quantity(100.0, 'gigabyte / second')>)
    """
    return replace(
        like,
        id=CUSTOM_NIC_ID,
        name=f"Custom NIC ({rate_gbit_s:g} Gbit/s)",
        summary="A NIC rate typed by you.",
        vendor="",
        bandwidth=Figure(Q_(rate_gbit_s, "Gbit/s"), "per_direction", "custom", (CUSTOM_SOURCE,), "Typed by you."),
        achieved=None,
        per_link=None,
        year=None,
        notes="",
        disagreements=(),
        quoted=(),
        sources=(),
    )


def catalog_with(catalog: Catalog, gpu: Gpu | None = None, nic: Link | None = None) -> Catalog:
    """Return the catalog plus a custom GPU and/or NIC under their ids (the shared catalog is left untouched).

    Parameters
    ----------
    catalog : Catalog
        The catalog to extend.
    gpu, nic : Gpu or Link, optional
        The custom entries to add.

    Returns
    -------
    Catalog
        A new catalog; ``catalog`` itself is not changed.

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> catalog = get_catalog()
    >>> extended = catalog_with(catalog, custom_gpu(catalog.gpu("b200"), 1800.0))
    >>> extended.gpu("custom").name, "custom" in catalog.gpus
    ('Custom GPU', False)
    """
    gpus = {**catalog.gpus, gpu.id: gpu} if gpu is not None else catalog.gpus
    links = {**catalog.links, nic.id: nic} if nic is not None else catalog.links
    return replace(catalog, gpus=gpus, links=links)
