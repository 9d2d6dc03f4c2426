"""``gpu-kernels.toml``, read and checked: what a GPU family's kernels reach, with the sources of each figure.

One record per GPU family: the dense BF16 matrix-multiply rate (FLOP/s), flash attention's share of the
peak and the SM count GEMM tiles are spread over, each figure with its basis and the ids of the file's
own ``[[source]]`` entries. What a GEMM of a given shape keeps of that rate is
:mod:`interconnect.topics.seating.kernels`, which re-exports these names.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from interconnect.catalog import CatalogError
from interconnect.datafiles.records import CITED, Field, Record
from interconnect.datafiles.tables import DataFile, packaged_data_file

__all__ = ["KernelDataError", "KernelFigures", "TileGrid", "kernel_figures", "kernel_sources", "load_kernel_data"]

_DATA_FILE = "published/gpu-kernels.toml"


def _optional(*keys: str, kind: type = float) -> tuple[Field, ...]:
    """Optional keys: a figure absent is None, a basis "", a list of sources or rates empty."""
    default = {float: None, str: "", list: ()}[kind]
    return tuple(Field(key, kind, required=False, default=default) for key in keys)


#: One ``[[family]]``: each figure with its basis and the ids of the file's ``[[source]]`` entries it cites (checked
#: by the loader: a figure left out cites none, an SM count of 0, not checked, neither).
FAMILY = Record("family", (
    Field("id"), Field("name"), Field("gpus", list),
    Field("gemm_tflops", float, positive=True), Field("gemm_basis"), Field("gemm_sources", list),
    Field("attention_share", float), Field("attention_basis"), Field("attention_sources", list),
    Field("sms", int), Field("sms_sources", list),
    *_optional("flash2_share", "fp8_gemm_ratio", "attention_sustained", "rated_power_w", "low_power_w",
               "low_power_share", "hbm_share", "gemm_k_overhead", "gemm_reference_k", "gemm_call_us",
               "gemm_fit_tflops", "cudnn_dropout_ratio", "speed_spread"),
    *_optional("flash2_basis", "fp8_basis", "attention_sustained_basis", "power_basis", "hbm_basis",
               "attention_table_basis", "gemm_k_basis", "cudnn_dropout_basis", "speed_spread_basis", kind=str),
    *_optional("flash2_sources", "fp8_sources", "attention_sustained_sources", "power_sources", "hbm_sources",
               "attention_table_sources", "gemm_k_sources", "cudnn_dropout_sources", "speed_spread_sources",
               "flash_fwd_tflops",
               "flash_bwd_tflops",
               "flash_fwd_bwd_tflops", "flash2_fwd_bwd_tflops", "flash2_fwd_tflops", "flash2_bwd_tflops",
               "cudnn_fwd_tflops", "cudnn_bwd_tflops",
               "flash2_noncausal_fwd_bwd_tflops", kind=list),
    Field("attention_seq", list, required=False),
))
#: Each list of sources, and the figure that needs it when that figure is given.
_CITATIONS = {"gemm_sources": "gemm_tflops", "attention_sources": "attention_share", "sms_sources": "sms",
              "flash2_sources": "flash2_share", "fp8_sources": "fp8_gemm_ratio",
              "attention_sustained_sources": "attention_sustained", "power_sources": "low_power_w",
              "hbm_sources": "hbm_share", "attention_table_sources": "attention_seq",
              "gemm_k_sources": "gemm_k_overhead", "cudnn_dropout_sources": "cudnn_dropout_ratio",
              "speed_spread_sources": "speed_spread"}


class KernelDataError(CatalogError):
    """``gpu-kernels.toml`` is inconsistent; the message names the file, the table and the key."""


class _KernelsFile(DataFile):
    error = KernelDataError


@dataclass(frozen=True)
class TileGrid:
    """What a GPU family's GEMM tiles run on (:func:`~interconnect.topics.seating.kernels.gemm_shape_factor`).

    ``sms``: the SMs tiles are spread over (0: unknown, no tile or wave quantization); ``k_overhead``: a tile's fixed
    cost in elements of the reduced dimension (0: none published); ``reference_k``: the reduced dimension of the
    shape the family's rate was measured at; ``call_flop``: a GEMM call's fixed time, in FLOPs of large-GEMM work
    (0: none).
    """

    sms: int | float | np.ndarray
    k_overhead: float = 0.0
    reference_k: float = 0.0
    call_flop: float = 0.0


@dataclass(frozen=True)
class KernelFigures:
    """Sourced kernel throughput of one GPU family (``gemm_flops`` in FLOP/s)."""

    family: str
    name: str
    gemm_flops: float
    gemm_basis: str
    attention_share: float
    attention_basis: str
    sms: int
    sources: tuple[str, ...]
    #: FlashAttention-2's share of the peak where it differs from the newest kernel's (Hopper: FA2 predates its
    #: asynchronous tensor cores); None means the same as ``attention_share``
    flash2_share: float | None = None
    flash2_basis: str = ""
    #: measured FP8 over BF16 GEMM rate on one GPU of the family; None: not measured (the spec peaks' ratio is used)
    fp8_gemm_ratio: float | None = None
    fp8_basis: str = ""
    #: what an attention kernel keeps of its single-GPU rate with the whole node busy at its power limit (the
    #: GEMM benchmark's sustained over best measured rate); 1.0: not given, the shares are used as they are
    attention_sustained: float = 1.0
    attention_sustained_basis: str = ""
    #: the board power, W, the rates above were measured at (the part's rated limit); 0: not given
    rated_power_w: float = 0.0
    #: a lower-power part of the same die and SM count, W, and its dense tensor-core peak over the rated part's
    #: (the maker's two spec figures); 0 and 1: none published, a power limit then changes nothing
    low_power_w: float = 0.0
    low_power_share: float = 1.0
    power_basis: str = ""
    #: the share of the memory's spec bandwidth the fastest published memory-bound kernel on one GPU of the family
    #: reaches; the memory-bound passes run at it (1.0: none published, the spec figure is used)
    hbm_share: float = 1.0
    hbm_basis: str = ""
    #: sequence lengths (tokens) of the published attention benchmarks, and at each the forward + backward rate,
    #: FLOP/s, of the newest kernel (``flash``) and of FlashAttention-2 (``flash2``), causal, head dimension 128, on
    #: one GPU; empty: not published, the shares above are used
    attention_seq: tuple[float, ...] = ()
    flash_table: tuple[float, ...] = ()
    flash2_table: tuple[float, ...] = ()
    attention_table_basis: str = ""
    #: the same for cuDNN's fused attention (Transformer Engine's FusedAttention, ``cudnn``); empty: not published
    cudnn_table: tuple[float, ...] = ()
    #: a GEMM's fixed cost per output tile in elements of the reduced dimension (BF16), and the reduced dimension of
    #: the shape ``gemm_flops`` was measured at; 0: no per-shape sweep published (K under 1,024 then lowers the rate
    #: in proportion, :func:`~interconnect.topics.seating.kernels.gemm_shape_factor`)
    gemm_k_overhead: float = 0.0
    gemm_reference_k: float = 0.0
    gemm_k_basis: str = ""
    #: a GEMM call's fixed time besides its tiles, in FLOPs of large-GEMM work (the fit's per-call time times its
    #: large-GEMM rate); 0: not published
    gemm_call_flop: float = 0.0
    #: the large-GEMM rate, FLOP/s, of the sweep the per-tile and per-call costs were fitted to (its own clocks: a
    #: single-GPU burst, not :attr:`gemm_flops`); 0: none
    gemm_fit_flops: float = 0.0
    #: FlashAttention-2's forward + backward rate, FLOP/s, without a causal mask at each ``attention_seq`` length
    #: (the same figure's other panel); empty: not published, a call without a mask then takes the causal rate
    flash2_noncausal_table: tuple[float, ...] = ()
    #: how many times longer cuDNN's fused attention (forward and backward together) takes when it applies dropout to
    #: the attention probabilities, measured on the same kernel with and without; 1.0: not published, nothing charged
    cudnn_dropout_ratio: float = 1.0
    cudnn_dropout_basis: str = ""
    #: the range of sustained matmul speeds over the GPUs of one busy node, as a fraction of their median: a job of
    #: N GPUs runs its tensor-core kernels at the pace of the slowest (:func:`interconnect.hardware.stragglers.
    #: slowest_rank_lag`); 0.0: not published, no lag charged
    speed_spread: float = 0.0
    speed_spread_basis: str = ""

    def tile_grid(self, rate_scale: float = 1.0) -> TileGrid:
        """What this family's GEMM tiles run on, for :func:`~interconnect.topics.seating.kernels.gemm_shape_factor`.

        ``rate_scale`` is the GEMMs' rate over the BF16 one (FP8: the family's ratio): the per-tile cost is a time,
        so in elements of K it grows with the rate, and so does a call's fixed time in FLOPs.

        >>> g = kernel_figures("h100-sxm").tile_grid()
        >>> g.sms, g.k_overhead, g.reference_k, round(g.call_flop / 1e9, 2)
        (132, 132.0, 20480.0, 5.06)
        >>> round(kernel_figures("h100-sxm").tile_grid(1.765).k_overhead)
        233
        """
        return TileGrid(self.sms, self.gemm_k_overhead * rate_scale, self.gemm_reference_k,
                        self.gemm_call_flop * rate_scale)

    def attention_flops_for(self, kernel: str, seq: np.ndarray | float, causal: bool = True) -> np.ndarray | None:
        """Forward + backward FLOP/s of an attention kernel at a sequence length, sustained; None without a table.

        The published single-GPU rates at the benchmark's sequence lengths, interpolated in the logarithm of the
        length and held at the ends, times :attr:`attention_sustained`. ``causal=False``: a call without a mask,
        at FlashAttention-2's own figure for it where the family has one, else at the causal rate.

        >>> k = kernel_figures("h100-sxm")
        >>> [f"{float(k.attention_flops_for('flash2', n)) / 1e12 / k.attention_sustained:.0f}" for n in (8192, 65536)]
        ['308', '328']
        >>> f"{float(k.attention_flops_for('flash2', 65536, causal=False)) / 1e12 / k.attention_sustained:.0f}"
        '338'
        """
        if kernel == "flash2" and not causal and self.flash2_noncausal_table:
            table = self.flash2_noncausal_table
        elif kernel == "flash2" and (self.flash2_table or self.flash2_share is not None):
            table = self.flash2_table  # its own figures; a share without a table is used as a share
        elif kernel == "cudnn" and self.cudnn_table:
            table = self.cudnn_table
        else:
            # cuDNN's kernel where its rates are not published: the family's newest fused kernel's
            table = self.flash_table if kernel in ("flash", "flash2", "cudnn") else ()
        if not table:
            return None
        at = np.interp(np.log2(np.maximum(np.asarray(seq, dtype=float), 1.0)), np.log2(self.attention_seq), table)
        return at * self.attention_sustained

    def power_scale(self, limit_w: float) -> float:
        r"""Share of the tensor-core rates a GPU of this family keeps when held to ``limit_w`` watts.

        At its power limit a GPU settles at the clock whose power fits, and a tensor-core kernel's rate follows
        the clock. The family gives two parts of one die at two rated powers (the rated one, share 1, and a
        lower one with its peak's share); a limit between them takes the share on the straight line through
        the two points, one below the lower part its share in proportion to the watts:

        .. math:: r(P) = r_{lo} + (1 - r_{lo}) \frac{P - P_{lo}}{P_{rated} - P_{lo}}, \qquad
                  P_{lo} \le P \le P_{rated}

        (our rule: no sustained rate at a lowered limit is published). 1 for no limit (0), a limit at or above
        the rated one, or a family without the two parts.

        >>> k = kernel_figures("h100-sxm")
        >>> f"{k.power_scale(400):.3f} {k.power_scale(500):.3f} {k.power_scale(700):.3f} {k.power_scale(0):.3f}"
        '0.844 0.896 1.000 1.000'
        """
        if limit_w <= 0 or self.rated_power_w <= 0 or self.low_power_w <= 0 or limit_w >= self.rated_power_w:
            return 1.0
        lo, share = self.low_power_w, self.low_power_share
        if limit_w < lo:
            return share * limit_w / lo
        return share + (1.0 - share) * (limit_w - lo) / (self.rated_power_w - lo)

    def attention_share_for(self, kernel: str) -> float:
        """Share of the BF16 peak of the attention kernel ``"flash"`` (the newest) or ``"flash2"``, sustained.

        The single-GPU kernel figure times :attr:`attention_sustained`.

        >>> k = kernel_figures("h100-sxm")
        >>> f"{k.attention_share_for('flash'):.4f} {k.attention_share_for('flash2'):.4f}"   # 0.6 and 0.35 x 0.848
        '0.5088 0.2968'
        """
        share = self.flash2_share if kernel == "flash2" and self.flash2_share is not None else self.attention_share
        return share * self.attention_sustained


def load_kernel_data(path: str | Path | None = None) -> tuple[dict[str, KernelFigures], dict[str, dict]]:
    """Read and check ``gpu-kernels.toml``.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Another file in the same format; the packaged file by default.

    Returns
    -------
    by_gpu : dict of str to KernelFigures
        Each GPU catalog id the file names, with its family's figures.
    sources : dict of str to dict
        The file's ``[[source]]`` entries (``id``, ``title``, ``url``) by id.

    Raises
    ------
    KernelDataError
        For an unknown or missing table or key, a wrong type, a rate that is not positive, an attention
        share or sustained ratio outside (0, 1], a negative SM count, a duplicate id or GPU, or a source id
        the file does not list; the message names the file, the table and the key.

    Examples
    --------
    >>> by_gpu, sources = load_kernel_data()
    >>> by_gpu["h200"].family, by_gpu["h200"].gemm_flops / 1e12, sorted(sources)[0]
    ('hopper', 698.6, 'fa2')
    """
    data = _KernelsFile(packaged_data_file(_DATA_FILE) if path is None else path, source_ids=())
    data.only_tables(("source", "family"))
    sources = CITED.read_all(data)
    for source in sources.values():
        if not source["url"].startswith(("https://", "http://")):
            data.fail(f"source {source['id']!r}: 'url' must be an http(s) address")
    by_gpu: dict[str, KernelFigures] = {}
    families: set[str] = set()
    for raw in data.rows("family"):
        row, family = FAMILY.read_row(data, raw)
        if family["id"] in families:
            row.fail("duplicate id")
        families.add(family["id"])
        for key, figure in _CITATIONS.items():
            if family[figure] is None:  # an optional figure left out
                continue
            cited = family[key]
            # An SM count of 0 (not checked) has nothing to cite; every figure given cites a source.
            needed = key != "sms_sources" or family["sms"] != 0
            if (needed and not cited) or any(source not in sources for source in cited):
                row.fail(f"'{key}' must list ids of this file's [[source]] entries, got {cited!r}")
        gemm_tflops = family["gemm_tflops"]
        share = family["attention_share"]
        if not (math.isfinite(share) and 0 < share <= 1):
            row.fail(f"'attention_share' must be a fraction in (0, 1], got {share!r}")
        flash2 = family["flash2_share"]
        if flash2 is not None and not (math.isfinite(flash2) and 0 < flash2 <= 1):
            row.fail(f"'flash2_share' must be a fraction in (0, 1], got {flash2!r}")
        fp8 = family["fp8_gemm_ratio"]
        if fp8 is not None and not (math.isfinite(fp8) and 1 <= fp8 <= 4):
            row.fail(f"'fp8_gemm_ratio' must be between 1 and 4 (FP8 over BF16 GEMM rate), got {fp8!r}")
        sustained = family["attention_sustained"]
        if sustained is not None and not (math.isfinite(sustained) and 0 < sustained <= 1):
            row.fail(f"'attention_sustained' must be a fraction in (0, 1], got {sustained!r}")
        power = (family["rated_power_w"], family["low_power_w"], family["low_power_share"])
        if any(v is not None for v in power) and (
                any(v is None or not math.isfinite(v) for v in power)
                or not 0 < power[1] < power[0] or not 0 < power[2] < 1):
            row.fail("'rated_power_w', 'low_power_w' and 'low_power_share' go together: two powers in W, the lower "
                     f"first below the rated one, and a share in (0, 1), got {power!r}")
        seqs = family["attention_seq"] or ()
        tables = {}
        for kernel in ("flash", "flash2", "cudnn"):
            # each kernel's table is declared in the form it is published in (FlashAttention-2: forward and backward
            # together; cuDNN: apart); a form not declared is absent
            fwd, bwd = family.get(f"{kernel}_fwd_tflops", ()), family.get(f"{kernel}_bwd_tflops", ())
            both = family.get(f"{kernel}_fwd_bwd_tflops", ())
            if both and (fwd or bwd) or bool(fwd) != bool(bwd):
                row.fail(f"give '{kernel}_fwd_bwd_tflops' or both '{kernel}_fwd_tflops' and '{kernel}_bwd_tflops'")
            if fwd:
                # forward and backward measured apart: the backward does 2.5 times the forward's FLOPs (FlashAttention's
                # own count), so together 3.5 f run in f / r_fwd + 2.5 f / r_bwd
                both = [3.5 / (1.0 / a + 2.5 / b) if a > 0 and b > 0 else -1.0 for a, b in zip(fwd, bwd, strict=False)]
                if len(fwd) != len(bwd):
                    both = []
            tables[kernel] = tuple(float(v) * 1e12 for v in both)
        tables["flash2_noncausal"] = tuple(float(v) * 1e12 for v in family.get("flash2_noncausal_fwd_bwd_tflops", ()))
        if tables["flash2_noncausal"] and not tables["flash2"]:
            row.fail("'flash2_noncausal_fwd_bwd_tflops' needs the causal 'flash2_fwd_bwd_tflops' beside it")
        for kernel, table in tables.items():
            if table and (len(table) != len(seqs) or any(not (math.isfinite(v) and v > 0) for v in table)):
                row.fail(f"the '{kernel}' attention table must give one positive rate per 'attention_seq' length")
        if seqs and (any(not isinstance(n, int | float) or n <= 0 for n in seqs)
                     or list(seqs) != sorted(set(seqs)) or not any(tables.values())):
            row.fail("'attention_seq' must list increasing sequence lengths and come with a kernel's rates")
        if seqs and not family["attention_table_sources"]:
            row.fail("'attention_table_sources' must list ids of this file's [[source]] entries")
        dropout_ratio = family["cudnn_dropout_ratio"]
        if dropout_ratio is not None and not (math.isfinite(dropout_ratio) and 1 <= dropout_ratio <= 10):
            row.fail("'cudnn_dropout_ratio' must be between 1 and 10 (time with dropout over without), "
                     f"got {dropout_ratio!r}")
        spread = family["speed_spread"]
        if spread is not None and not (math.isfinite(spread) and 0 <= spread < 0.5):
            row.fail(f"'speed_spread' must be a fraction in [0, 0.5), got {spread!r}")
        hbm = family["hbm_share"]
        if hbm is not None and not (math.isfinite(hbm) and 0 < hbm <= 1):
            row.fail(f"'hbm_share' must be a fraction in (0, 1], got {hbm!r}")
        if family["sms"] < 0:
            row.fail("'sms' must be 0 (not checked) or a positive count")
        k_overhead, reference_k = family["gemm_k_overhead"], family["gemm_reference_k"]
        if (k_overhead is None) != (reference_k is None) or k_overhead is not None and not (
                math.isfinite(k_overhead) and math.isfinite(reference_k) and 0 < k_overhead < reference_k):
            row.fail("'gemm_k_overhead' and 'gemm_reference_k' go together: a per-tile cost in elements of K, "
                     f"positive and below the reference shape's K, got {(k_overhead, reference_k)!r}")
        call = (family["gemm_call_us"], family["gemm_fit_tflops"])
        if (call[0] is None) != (call[1] is None) or call[0] is not None and (
                k_overhead is None or not all(math.isfinite(v) and v > 0 for v in call)):
            row.fail("'gemm_call_us' and 'gemm_fit_tflops' go together, with 'gemm_k_overhead': a call's fixed time in "
                     f"microseconds and the fit's large-GEMM rate, both positive, got {call!r}")
        gpus = family["gpus"]
        if not gpus or any(not isinstance(gpu, str) for gpu in gpus):
            row.fail("'gpus' must list GPU catalog ids")
        cited = tuple(source for key in _CITATIONS for source in family[key])
        figures = KernelFigures(family["id"], family["name"], gemm_tflops * 1e12, family["gemm_basis"],
                                float(share), family["attention_basis"], family["sms"], tuple(dict.fromkeys(cited)),
                                None if flash2 is None else float(flash2), family["flash2_basis"],
                                None if fp8 is None else float(fp8), family["fp8_basis"],
                                1.0 if sustained is None else float(sustained), family["attention_sustained_basis"],
                                float(power[0] or 0.0), float(power[1] or 0.0),
                                1.0 if power[2] is None else float(power[2]), family["power_basis"],
                                1.0 if hbm is None else float(hbm), family["hbm_basis"],
                                tuple(float(n) for n in seqs), tables["flash"], tables["flash2"],
                                family["attention_table_basis"], tables["cudnn"],
                                float(k_overhead or 0.0), float(reference_k or 0.0), family["gemm_k_basis"],
                                (call[0] or 0.0) * 1e-6 * (call[1] or 0.0) * 1e12, (call[1] or 0.0) * 1e12,
                                tables["flash2_noncausal"],
                                1.0 if dropout_ratio is None else float(dropout_ratio), family["cudnn_dropout_basis"],
                                0.0 if spread is None else float(spread), family["speed_spread_basis"])
        for gpu in gpus:
            if gpu in by_gpu:
                row.fail(f"GPU {gpu!r} is already in family {by_gpu[gpu].family!r}")
            by_gpu[gpu] = figures
    return by_gpu, sources


@functools.lru_cache(maxsize=1)
def _packaged() -> tuple[dict[str, KernelFigures], dict[str, dict]]:
    return load_kernel_data()


def kernel_figures(gpu: str) -> KernelFigures | None:
    """Return the sourced kernel figures of a GPU's family, or None when none are published.

    Parameters
    ----------
    gpu : str
        A GPU catalog id.

    Returns
    -------
    KernelFigures or None
        GEMM rate (FLOP/s), attention share of peak, SM count and source ids.

    Examples
    --------
    >>> kernel_figures("h100-sxm").gemm_flops / 1e12, kernel_figures("v100")
    (698.6, None)
    """
    return _packaged()[0].get(gpu)


def kernel_sources() -> dict[str, dict]:
    """Return the ``[[source]]`` entries of ``gpu-kernels.toml`` by id (title and url).

    Returns
    -------
    dict of str to dict
        ``id``, ``title`` and ``url`` per source.

    Examples
    --------
    >>> kernel_sources()["fa2"]["url"]
    'https://arxiv.org/abs/2307.08691'
    """
    return dict(_packaged()[1])
