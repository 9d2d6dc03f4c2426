"""How fast interconnect.io.nccl_tests parses a long nccl-tests log.

Builds a 10,000-line all_reduce_perf log in memory (nccl-tests 2.19 layout: preamble, header,
data rows with an NCCL INFO line after every ninth row, footer) and times
``parse_nccl_tests`` on it, median of 5 runs. A second figure uses the same log with OpenMPI's
``--tag-output --timestamp-output`` prefix on every line, which takes the slower prefix-stripping
path. The target is "well under 0.5 s"; tests do not assert timings (project rule), this script
reports them.

Run from the repository root::

    .venv/bin/python benchmarks/parse_speed.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from interconnect.io.nccl_tests import parse_nccl_tests  # noqa: E402

N_LINES = 10_000
RUNS = 5


def build_log(n_lines: int = N_LINES) -> str:
    """An all_reduce_perf log of exactly ``n_lines`` lines (8 ranks, sizes cycling 8 B .. 128 MiB)."""
    lines = [
        "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809",
        "# Collective test starting: all_reduce_perf",
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1"
        " validation: 1 graph: 0 unalign: 0",
        "#",
        "# Using devices",
    ]
    lines += [
        f"#  Rank {r:2d} Group  0 Pid 123456 on bench-node device {r:2d} [0000:18:00] NVIDIA H100 80GB HBM3"
        for r in range(8)
    ]
    lines += [
        "#",
        "#       size         count      type   redop    root"
        "     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong",
        "#        (B)    (elements)                            "
        "   (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)",
    ]
    footer = [
        "# Out of bounds values : 0 OK",
        "# Avg bus bandwidth    : 100.5 ",
        "#",
        "# Collective test concluded: all_reduce_perf",
    ]
    row_index = 0
    while len(lines) < n_lines - len(footer):
        if row_index % 10 == 9:
            lines.append(
                "bench-node:123456:123500 [0] NCCL INFO AllReduce: opCount 3f2 sendbuff 0x7f00 count 2 datatype 7"
            )
        else:
            size = 8 << (row_index % 25)
            time_us = 17.0 + size / 205e3
            algbw = size / time_us / 1e3
            lines.append(
                f"{size:12d}  {size // 4:12d}  {'float':>8}  {'sum':>6}  {-1:6d}  {time_us:7.2f}  {algbw:6.2f}"
                f"  {algbw * 1.75:6.2f}  {0:6d}  {time_us:7.2f}  {algbw:6.2f}  {algbw * 1.75:6.2f}  {0:6d}"
            )
        row_index += 1
    lines += footer
    assert len(lines) == n_lines
    return "\n".join(lines) + "\n"


def median_seconds(text: str, runs: int = RUNS) -> tuple[float, int]:
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        run = parse_nccl_tests(text)
        timings.append(time.perf_counter() - start)
    return statistics.median(timings), len(run.size_bytes)


def main() -> None:
    text = build_log()
    seconds, rows = median_seconds(text)
    print(f"parse {N_LINES:,}-line log: {seconds:.3f} s (median of {RUNS}; {rows:,} data rows)")
    prefixed = "\n".join(f"Thu Jul 18 10:00:00 2024[1,0]<stdout>:{line}" for line in text.split("\n"))
    seconds, rows = median_seconds(prefixed)
    print(f"parse {N_LINES:,}-line log with mpirun prefixes: {seconds:.3f} s (median of {RUNS}; {rows:,} data rows)")


if __name__ == "__main__":
    main()
