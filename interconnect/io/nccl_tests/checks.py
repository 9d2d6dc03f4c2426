"""Checks on the rows read, shared by the text and JSON readers, and the assembly of the :class:`NcclRun`."""

from __future__ import annotations

import math

import numpy as np

from interconnect.io.nccl_tests.decode import _SHOWN_CHARS
from interconnect.io.nccl_tests.layouts import _Sweep
from interconnect.io.nccl_tests.ranks import _ALGBW_IS_SIZE_OVER_TIME, _collective_key
from interconnect.io.nccl_tests.run import NcclLogError, NcclRun


def _and_the_others(count: int, rows: str) -> str:
    if count == 0:
        return ""
    if count == 1:
        return f", and the other {rows[:-1]} has NaN, infinite or zero values too"
    return f", and the {count} other {rows} have NaN, infinite or zero values too"


def _skipped_rows_warning(skipped: list[tuple[str, str]]) -> str:
    """One warning for the rows dropped because a value is NaN, infinite or a zero time."""
    listed = "; ".join(f"{where}: {why}" for where, why in skipped[:3])
    more = f"; and {len(skipped) - 3} more" if len(skipped) > 3 else ""
    rows = "1 data row was" if len(skipped) == 1 else f"{len(skipped)} data rows were"
    return f"{rows} skipped because a value is NaN, infinite or a zero time ({listed}{more})"


def _format_size(n_bytes: int) -> str:
    """Sizes as nccl-tests users write them: 512 KiB, 8 GiB, 1000 bytes."""
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n_bytes >= scale:
            value = n_bytes / scale
            return f"{value:.0f} {unit}" if value.is_integer() else f"{value:.3g} {unit}"
    return f"{n_bytes:,} bytes"


def _check_complete(
    sweep: _Sweep,
    sizes: list[int],
    dtypes: list[str],
    redops: list[str],
    skipped: list[tuple[int, str, str]],
    ranks: int | None,
    warnings: list[str],
) -> None:
    """Warn when the rows stop before the largest size the run was asked for: a truncated log.

    nccl-tests steps ``size = size * factor`` (or ``+ step`` bytes) from minBytes while
    ``size <= maxBytes`` (src/common.cu), once per data type and reduction operation (``-d all``,
    ``-o all``). It prints each size rounded down to whole elements on every rank, so a complete
    sweep may end up to ``ranks x 8`` bytes (largest element) short of the last nominal size; a
    sweep is called truncated only when a whole step is missing beyond that. Rows skipped for a NaN
    or infinite value (``skipped``: size, type, redop) count as reached.
    """
    if sweep.step is None or sweep.max_bytes < sweep.min_bytes:
        return
    if sweep.step_kind == "factor" and sweep.step > 1:
        largest = max(sweep.min_bytes, 1)
        while largest * sweep.step <= sweep.max_bytes:
            largest *= sweep.step
        step_before_largest = largest // sweep.step
    elif sweep.step_kind == "bytes" and sweep.step > 0:
        largest = sweep.min_bytes + (sweep.max_bytes - sweep.min_bytes) // sweep.step * sweep.step
        step_before_largest = largest - sweep.step
    else:
        return
    slack = 16 * (ranks or 1)
    reached: dict[tuple[str, str], int] = {}
    if len(set(dtypes)) == 1 and len(set(redops)) == 1:
        reached[(dtypes[0], redops[0])] = max(sizes)
        rows: list[tuple[int, str, str]] = skipped
    else:
        rows = [*zip(sizes, dtypes, redops, strict=True), *skipped]
    for size, dtype, redop in rows:
        key = (dtype, redop)
        if size > reached.get(key, -1):
            reached[key] = size
    short = [(key, top) for key, top in reached.items() if top <= step_before_largest and top < largest - slack]
    if not short:
        return
    (dtype, redop), top = short[0]
    which = f"the {dtype[:_SHOWN_CHARS]}/{redop[:_SHOWN_CHARS]} rows" if len(reached) > 1 else "the rows"
    warnings.append(
        f"the log looks truncated: {sweep.where} asks for sizes up to {_format_size(largest)} "
        f"(maxBytes {sweep.max_bytes}) but {which} stop at {_format_size(top)}; did the run stop early, "
        "or was only part of its output copied?"
    )


def _check_algbw(
    collective: str | None,
    sizes: np.ndarray,
    out: np.ndarray,
    inp: np.ndarray,
    row_labels: list[str],
    warnings: list[str],
) -> None:
    """Warn when algbw is not size/time (GB/s from B and µs: size / time / 1e3) beyond 5 %."""
    key = _collective_key(collective) if collective else None
    if key not in _ALGBW_IS_SIZE_OVER_TIME or (collective and key is None):
        return
    size = sizes.astype(np.float64)
    bad = np.zeros(len(sizes), dtype=bool)
    first_detail = ""
    for values in (out, inp):
        time_us, algbw = values[:, 0], values[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = size / time_us / 1e3
            off = (
                (algbw >= 0.1)
                & (time_us > 0)
                & np.isfinite(expected)
                & (np.abs(algbw - expected) > 0.05 * algbw + 0.01)
            )
        if off.any() and not first_detail:
            i = int(np.argmax(off))
            first_detail = f"{row_labels[i]}: algbw {algbw[i]:g} GB/s but size/time = {expected[i]:.4g} GB/s"
        bad |= off
    if bad.any():
        warnings.append(
            f"{first_detail} ({int(bad.sum())} rows differ by more than 5%); check the time unit and the size column"
        )


#: Bounds of a row a real run could print. One collective on GPUs takes at least a nanosecond (a
#: kernel launch alone takes microseconds) and, inside a benchmark sweep, less than 1,000 s; no row
#: moves more than 100 TB/s, over ten times the fastest link or memory in the catalogue (a test keeps
#: that true). Rows outside them are refused, not fitted.
MIN_ROW_TIME_US = 1e-3
MAX_ROW_TIME_US = 1e9
MAX_ROW_RATE_GBPS = 1e5
_REFUSED_LISTED = 5


def _row_problem(size: float, values: np.ndarray, check_algbw: bool, ratio: float | None) -> str | None:
    """Why one placement's (time µs, algbw GB/s, busbw GB/s) cannot come from a real run, else None."""
    time_us, algbw, busbw = (float(v) for v in values)
    if not math.isfinite(time_us):
        return None  # a missing placement (NaN); infinities are skipped as unusable before this
    if time_us < MIN_ROW_TIME_US:
        return f"time {time_us:.3g} µs is under a nanosecond; no collective is that quick"
    if time_us > MAX_ROW_TIME_US:
        return f"time {time_us:.3g} µs is over 1,000 s for one operation"
    rate = size / time_us / 1e3
    if rate > MAX_ROW_RATE_GBPS:
        return f"size/time is {rate:.3g} GB/s, orders of magnitude beyond any link"
    if check_algbw and math.isfinite(algbw) and (
        (algbw >= 0.1 and not algbw / 10 <= rate <= algbw * 10) or (algbw < 0.1 and rate >= 1.0)
    ):
        return f"algbw {algbw:g} GB/s but size/time is {rate:.3g} GB/s (more than ten times apart)"
    if ratio is not None and algbw >= 1.0 and math.isfinite(busbw) and abs(busbw / algbw - ratio) > 0.1 * ratio + 0.02:
        return (f"busbw {busbw:g} GB/s beside algbw {algbw:g} GB/s (busbw/algbw {busbw / algbw:.3g}; "
                f"the other rows' is {ratio:.3g})")
    return None


def _impossible_rows(collective: str | None, sizes: np.ndarray, out: np.ndarray, inp: np.ndarray, cputime: bool,
                     row_labels: list[str], warnings: list[str]) -> np.ndarray:
    """Which rows to keep: a row no real run could print is refused, with a warning naming it and why.

    Raises :class:`NcclLogError` if every row is refused.
    Bandwidths are compared only where printing (two decimals) leaves them precise enough.
    """
    key = _collective_key(collective) if collective else None
    check_algbw = not cputime and key in _ALGBW_IS_SIZE_OVER_TIME and not (collective and key is None)
    both = np.concatenate([out, inp])
    usable = np.isfinite(both[:, 1]) & (both[:, 1] >= 1.0) & np.isfinite(both[:, 2])
    ratio = float(np.median(both[usable, 2] / both[usable, 1])) if usable.sum() >= 3 else None
    keep = np.ones(len(sizes), dtype=bool)
    refused: list[str] = []
    for i, size in enumerate(sizes.astype(np.float64)):
        for name, values in (("out-of-place", out[i]), ("in-place", inp[i])):
            problem = _row_problem(float(size), values, check_algbw, ratio)
            if problem:
                keep[i] = False
                refused.append(f"{row_labels[i]} ({name}): {problem}")
                break
    if not refused:
        return keep
    if not keep.any():
        raise NcclLogError(f"every row is impossible for a real run, so nothing is fitted; first, {refused[0]}")
    more = len(refused) - _REFUSED_LISTED
    warnings.append(f"{len(refused)} rows refused as impossible for a real run: " + "; ".join(refused[:_REFUSED_LISTED])
                    + (f"; and {more} more" if more > 0 else ""))
    return keep


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


_MAX_WARNINGS = 20  # a hostile log could otherwise produce one warning per line


def _build_run(
    *,
    collective: str | None,
    ranks: int | None,
    ranks_source: str,
    sizes: np.ndarray,
    counts: np.ndarray,
    dtypes: list[str],
    redops: list[str],
    out: np.ndarray,
    inp: np.ndarray,
    time_is_cputime: bool,
    avg_busbw_gbps: float | None,
    gpu_names: list[str],
    hostnames: list[str],
    warnings: list[str],
    fmt: str,
) -> NcclRun:
    if len(warnings) > _MAX_WARNINGS:
        hidden = len(warnings) - (_MAX_WARNINGS - 1)
        warnings = warnings[: _MAX_WARNINGS - 1] + [f"{hidden} more warnings are not shown"]
    return NcclRun(
        collective=collective,
        ranks=ranks,
        ranks_source=ranks_source,
        size_bytes=_readonly(sizes),
        count_elements=_readonly(counts),
        dtype=list(dtypes),
        redop=list(redops),
        time_us=_readonly(out[:, 0]),
        algbw_gbps=_readonly(out[:, 1]),
        busbw_gbps=_readonly(out[:, 2]),
        inplace_time_us=_readonly(inp[:, 0]),
        inplace_algbw_gbps=_readonly(inp[:, 1]),
        inplace_busbw_gbps=_readonly(inp[:, 2]),
        time_is_cputime=time_is_cputime,
        avg_busbw_gbps=avg_busbw_gbps,
        gpu_names=gpu_names,
        hostnames=hostnames,
        warnings=warnings,
        format=fmt,
    )
