"""Cross-site training methods as values: each method's inputs, checked, and a model size as typed.

:class:`Method` is one way of synchronising the sites (data parallel, DiLoCo, Streaming DiLoCo, SparseLoCo,
...), built from the published defaults in ``interconnect/data/crossdc.toml`` by :func:`make_method`;
:func:`parse_count` reads ``"70B"``-style sizes in linear time. The errors of the whole package are here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

import numpy as np

from interconnect.topics.crossdc.data import (
    EXCHANGES,
    METHODS,
    STREAMING_METHODS,
    CrossDCData,
    get_crossdc_data,
)
from interconnect.units import InterconnectError

#: Bits per value a dense payload may use (FP32, BF16/FP16, int8, 4-bit E3M0).
DENSE_BITS = (32, 16, 8, 4)

PARAMS_RANGE = (1e6, 1e13)
SITES_RANGE = (2, 10_000)
GPUS_PER_SITE_RANGE = (1, 1_000_000)
INNER_STEPS_MAX = 1_000_000

# --- errors -------------------------------------------------------------------------------------


class CrossDCError(InterconnectError, ValueError):
    """Base class of this module's errors."""


class CrossDCInputError(CrossDCError):
    """A user input that cannot be used; the message names the input and the accepted range."""


# --- methods ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Method:
    """One synchronisation method with its knobs resolved.

    ``bits`` is the bits per value sent (for SparseLoCo, per kept value); ``fragments`` 0 means
    "one fragment per ``layers_per_fragment`` layers" (Streaming DiLoCo, CoCoDC), 1 for every other method.
    ``states`` counts the model-sized tensors sent per synchronisation (3 for MT-DAO); ``micro_batches`` is
    CrossPipe's micro-batches per step (0 for every other method).
    """

    id: str
    inner_steps: int
    bits: int
    topology: str
    fragments: int = 1
    layers_per_fragment: int = 0
    overlap_steps: int = 0
    chunk: int = 0
    topk: int = 0
    index_bits: int = 0
    states: int = 1
    micro_batches: int = 0

    @property
    def streaming(self) -> bool:
        """Whether the method sends one fragment at a time, overlapped (Streaming DiLoCo, CoCoDC)."""
        return self.id in STREAMING_METHODS

    @property
    def pipeline(self) -> bool:
        """Whether the method splits the layers over the sites (CrossPipe): activations, not weights, cross."""
        return self.id == "crosspipe"

    @property
    def sparse(self) -> bool:
        """Whether the method sends a sparse payload (SparseLoCo)."""
        return self.id == "sparseloco"

    @property
    def bits_per_param(self) -> float:
        r"""Bits sent per model parameter per synchronisation, all fragments together (bit).

        Notes
        -----
        Dense: the value width. SparseLoCo keeps :math:`k` of every :math:`C` values and sends each with
        its value bits :math:`b_v` and its index bits :math:`b_i` (Covenant-72B report, section 2.1,
        ``arxiv-covenant-72b``):

        .. math:: b = \frac{k}{C} (b_v + b_i) = \frac{64}{4096} (2 + 12) = 0.21875

        A method that averages optimizer state as well sends :math:`s` model-sized tensors: :math:`b = s\,b_v`
        (MT-DAO: parameters, first momentum and second-moment state, :math:`3 \times 16 = 48`). CrossPipe
        sends activations, not weights: its value width is that of the activations (see :mod:`.scenario`).

        >>> make_method("mt-dao").bits_per_param
        48.0
        """
        if self.sparse:
            return self.topk / self.chunk * (self.bits + self.index_bits)
        return float(self.bits * self.states)

    def fragments_for(self, layers: object) -> np.ndarray:
        r"""Count the fragments per model: the fixed count, or one per ``layers_per_fragment`` layers (at least 1).

        Parameters
        ----------
        layers : array_like
            Transformer layers.

        Returns
        -------
        numpy.ndarray
            Fragments (a count, as float), the shape of ``layers``.

        Notes
        -----
        .. math:: P = \max\bigl(1, \mathrm{round}(L / \ell)\bigr)

        for :math:`\ell` layers per fragment (Streaming DiLoCo, ``arxiv-streaming-diloco``, section 3).

        Examples
        --------
        >>> make_method("streaming-diloco").fragments_for([24, 108]).tolist()
        [8.0, 36.0]
        """
        layers = np.asarray(layers, dtype=float)
        if self.fragments:
            return np.full_like(layers, float(self.fragments))
        if self.layers_per_fragment:
            return np.maximum(1.0, np.rint(layers / self.layers_per_fragment))
        return np.ones_like(layers)


_REAL_TYPES = (int, float, np.integer, np.floating)


def whole_number(name: str, value: object, low: int, high: int) -> int:
    """``value`` as an int if it is a whole number in ``low``..``high``; else a CrossDCInputError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, _REAL_TYPES):
        raise CrossDCInputError(f"{name} must be a whole number from {low:,} to {high:,}, got {value!r}")
    if not math.isfinite(float(value)) or float(value) != int(value):
        raise CrossDCInputError(f"{name} must be a whole number from {low:,} to {high:,}, got {value}")
    if not low <= int(value) <= high:
        raise CrossDCInputError(f"{name} must be from {low:,} to {high:,}, got {int(value):,}")
    return int(value)


def make_method(
    method: str,
    *,
    inner_steps: int | None = None,
    bits: int | None = None,
    topology: str | None = None,
    fragments: int | None = None,
    overlap_steps: int | None = None,
    chunk: int | None = None,
    topk: int | None = None,
    index_bits: int | None = None,
    micro_batches: int | None = None,
    data: CrossDCData | None = None,
) -> Method:
    """Build a :class:`Method` from its id and the knobs given; ``None`` takes the paper's default.

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    inner_steps : int, optional
        H, inner steps per synchronisation (1 for data parallel).
    bits : int, optional
        Bits per value sent (one of :data:`DENSE_BITS` for a dense method).
    topology : str, optional
        One of :data:`EXCHANGES`.
    fragments, overlap_steps : int, optional
        Streaming DiLoCo and CoCoDC only: fragments per model (0: one per ``layers_per_fragment`` layers)
        and tau, the inner steps a fragment's exchange may overlap.
    chunk, topk, index_bits : int, optional
        SparseLoCo only: chunk size, values kept per chunk and bits per index.
    micro_batches : int, optional
        CrossPipe only: micro-batches per step of the global batch.
    data : CrossDCData, optional
        Where the defaults come from (:func:`get_crossdc_data` by default).

    Returns
    -------
    Method
        The method with every knob resolved.

    Raises
    ------
    CrossDCInputError
        Naming the knob, for a value out of range or a knob that does not apply.

    Examples
    --------
    >>> f"{make_method('diloco', bits=16).bits_per_param} bit per parameter"
    '16.0 bit per parameter'
    >>> f"{make_method('sparseloco').bits_per_param} bit per parameter"
    '0.21875 bit per parameter'
    >>> make_method("diloco", inner_steps=0)
    Traceback (most recent call last):
    ...
    interconnect.topics.crossdc.model.methods.CrossDCInputError: inner steps H must be from 1 to 1,000,000, got 0
    """
    data = data or get_crossdc_data()
    if method not in METHODS:
        raise CrossDCInputError(f"unknown method '{method}'; choose one of {', '.join(METHODS)}")
    defaults = data.methods[method]
    steps = (defaults.inner_steps if inner_steps is None
             else whole_number("inner steps H", inner_steps, 1, INNER_STEPS_MAX))
    if method == "dp" and steps != 1:
        raise CrossDCInputError("data parallel synchronises every step (H = 1); use diloco for H > 1")
    if method == "crosspipe" and steps != 1:
        raise CrossDCInputError("a pipeline exchanges activations every step (H = 1); inner steps do not apply")
    if method != "crosspipe" and micro_batches is not None:
        raise CrossDCInputError("micro-batches apply to crosspipe only")
    value_bits = defaults.bits if bits is None else whole_number("bits per value", bits, 1, 32)
    if method != "sparseloco" and value_bits not in DENSE_BITS:
        raise CrossDCInputError(f"bits per value must be one of {', '.join(map(str, DENSE_BITS))}, got {value_bits}")
    if method == "diloco-int8" and value_bits != 8:
        raise CrossDCInputError("diloco-int8 sends 8-bit values; use diloco for other widths")
    topo = defaults.topology if topology is None else topology
    if topo not in EXCHANGES:
        raise CrossDCInputError(f"unknown topology '{topo}'; choose one of {', '.join(EXCHANGES)}")
    streaming = method in STREAMING_METHODS
    if not streaming and fragments not in (None, 0, 1):
        raise CrossDCInputError(f"fragments apply to {' and '.join(STREAMING_METHODS)} only")
    if not streaming and overlap_steps not in (None, 0):
        raise CrossDCInputError(f"overlap steps (tau) apply to {' and '.join(STREAMING_METHODS)} only")
    frag = whole_number("fragments", fragments, 0, 100_000) if streaming and fragments is not None else 0
    tau = (defaults.overlap_steps if overlap_steps is None
           else whole_number("overlap steps tau", overlap_steps, 0, steps))
    if method == "crosspipe" and topo != defaults.topology:
        raise CrossDCInputError("a pipeline sends point to point across each cut; the exchange does not apply")
    pieces = 0
    if method == "crosspipe":
        pieces = (defaults.micro_batches if micro_batches is None
                  else whole_number("micro-batches", micro_batches, 1, 1 << 20))
    result = Method(method, steps, value_bits, topo, fragments=frag if streaming else 1,
                    layers_per_fragment=defaults.layers_per_fragment if streaming else 0,
                    overlap_steps=tau if streaming else 0, states=defaults.states, micro_batches=pieces)
    if method != "sparseloco":
        if any(v is not None for v in (chunk, topk, index_bits)):
            raise CrossDCInputError("chunk, top-k and index bits apply to sparseloco only")
        return result
    size = defaults.chunk if chunk is None else whole_number("chunk size", chunk, 2, 1 << 24)
    keep = defaults.topk if topk is None else whole_number("top-k per chunk", topk, 1, size)
    if keep > size:
        raise CrossDCInputError(f"top-k per chunk ({keep:,}) cannot exceed the chunk size ({size:,})")
    index = defaults.index_bits if index_bits is None else whole_number("index bits", index_bits, 1, 32)
    needed = math.ceil(math.log2(size))
    if index < needed:
        raise CrossDCInputError(f"{index}-bit indices address {2**index:,} positions; a chunk of {size:,} "
                                f"needs at least {needed} bits")
    return replace(result, chunk=size, topk=keep, index_bits=index)


_PARAMS_RE = re.compile(r"(?P<number>\d{1,15}(?:\.\d{0,15})?(?:[eE][+-]?\d{1,3})?)\s*(?P<suffix>[kKMBbGT]?)")
_PARAMS_SUFFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "b": 1e9, "G": 1e9, "T": 1e12}


def parse_count(text: object, name: str = "parameters", low: float = PARAMS_RANGE[0],
                high: float = PARAMS_RANGE[1]) -> float:
    """Read a count typed by a person: ``1e9``, ``7B``, ``70e9``, ``1.5T``, ``4M``.

    Parameters
    ----------
    text : str
        A float literal and one optional suffix (k, M, B or G, T), never an expression.
    name : str, default "parameters"
        What the count is, for the error message.
    low, high : float
        The accepted range, inclusive.

    Returns
    -------
    float
        The count.

    Raises
    ------
    CrossDCInputError
        Naming ``name``, when the text does not match or the count is out of range.

    Examples
    --------
    >>> parse_count("7B"), parse_count("1e9"), parse_count(" 1.5 T ")
    (7000000000.0, 1000000000.0, 1500000000000.0)
    >>> parse_count("-3")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    CrossDCInputError: parameters: expected a count like '1e9' or '7B', got '-3'
    """
    raw = text.strip() if isinstance(text, str) else ""
    match = _PARAMS_RE.fullmatch(raw) if len(raw) <= 40 else None
    if match is None:
        shown = raw[:40] + ("…" if len(raw) > 40 else "")
        raise CrossDCInputError(f"{name}: expected a count like '1e9' or '7B', got '{shown}'")
    value = float(match.group("number")) * _PARAMS_SUFFIX[match.group("suffix")]
    if not (math.isfinite(value) and low <= value <= high):
        raise CrossDCInputError(f"{name} must be from {low:.0e} to {high:.0e}, got {raw}")
    return value


def parse_params(text: object) -> float:
    """Read a parameter count (:func:`parse_count` within :data:`PARAMS_RANGE`).

    Parameters
    ----------
    text : str
        For example ``"70e9"`` or ``"7B"``.

    Returns
    -------
    float
        The parameter count.

    Examples
    --------
    >>> parse_params("70e9")
    70000000000.0
    """
    return parse_count(text, "parameters", *PARAMS_RANGE)


def default_layers(params: object) -> np.ndarray:
    r"""Estimate the transformer layers for a model size when none is given.

    Parameters
    ----------
    params : array_like
        Parameter counts N.

    Returns
    -------
    numpy.ndarray
        Layers (whole numbers as float, at least 1).

    Notes
    -----
    A power law through the shapes Streaming DiLoCo simulated (``arxiv-streaming-diloco``,
    section 3): 24 layers at 1B and 108 at 100B; it gives 51 at 10B against the paper's 48. The
    fit is ours:

    .. math:: L(N) = 24 \, (N / 10^9)^{\log_{100}(108/24)}

    Examples
    --------
    >>> default_layers([1e9, 1e10, 1e11]).tolist()
    [24.0, 51.0, 108.0]
    """
    exponent = math.log(108 / 24) / math.log(100)
    return np.maximum(1.0, np.rint(24 * (np.asarray(params, dtype=float) / 1e9) ** exponent))
