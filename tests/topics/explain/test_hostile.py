"""Hostile input: binary, noise, huge and deeply prefixed logs stay linear and never raise anything but the one
refusal."""

from __future__ import annotations

import os
import random
import time

import pytest

from interconnect.io.nccl_debug import MAX_LINE_CHARS, NcclDebugError, read_nccl_debug
from interconnect.topics.explain.model import explain

LINE = "gpu01:124172:124452 [3] NCCL INFO Channel 00/0 : 3[3] -> 11[3] [send] via NET/IB/2/GDRDMA\n"


def timed(function, *args):
    """The result and the CPU seconds this process spent: other work on a busy machine does not count, so the
    ratio of two sizes measures the reader, not the load (the wall-clock ratio reached 13 under load average 8)."""
    start = time.process_time()
    try:
        result = function(*args)
    except NcclDebugError as error:
        result = error
    return result, time.process_time() - start


def test_binary_is_refused_with_the_one_message():
    result, seconds = timed(read_nccl_debug, os.urandom(1 << 20))
    assert isinstance(result, NcclDebugError) and "not NCCL_DEBUG=INFO output" in str(result)
    assert seconds < 5


def test_five_megabytes_of_noise_is_refused_quickly():
    rng = random.Random(1)
    words = ["NCCL", "INFO", "via", "Channel", "->", "[0]", "NET/IB", ":", "comm", "0x1", "rank", "{", "("]
    noise = "\n".join(" ".join(rng.choice(words) for _ in range(12)) for _ in range(5 * 1024 * 1024 // 60))
    result, seconds = timed(read_nccl_debug, noise)
    assert seconds < 20  # about 2 s here; a backtracking pattern would take minutes
    if not isinstance(result, NcclDebugError):
        explain(result)


def test_a_100k_line_log_is_read_in_linear_time():
    # The best of a few runs of CPU time.
    # 20,000 lines against 100,000: five times the lines is five times the time when linear, 25 times when
    # quadratic; the bound of 12 leaves room for a busy machine without letting a quadratic reader through.
    small, t_small = min((timed(read_nccl_debug, LINE * 20_000) for _ in range(3)), key=lambda run: run[1])
    big, t_big = min((timed(read_nccl_debug, LINE * 100_000) for _ in range(2)), key=lambda run: run[1])
    assert big.connections == 100_000 and small.connections == 20_000
    assert t_big < 30 and t_big < 12 * max(t_small, 0.05)
    explain(big)


@pytest.mark.parametrize("depth", [1, 50, 500])
def test_deep_launcher_prefixes(depth):
    log, seconds = timed(read_nccl_debug, ("[1,2]<stdout>:" * depth + LINE) * 2000)
    assert seconds < 10
    if depth * 14 + len(LINE) < MAX_LINE_CHARS:
        assert log.transports["NET/IB"].count == 2000 and log.launcher_max_rank.value == 2
    else:  # cut at the limit before NCCL's part: refused with the one message, never another exception
        assert isinstance(log, NcclDebugError)


def test_long_lines_partial_lines_and_bad_bytes():
    data = (b"x" * 100_000 + b"\n" + LINE.encode()[:40] + b"\xff\xfe\n" + LINE.encode() + b"\r\n"
            + LINE.encode()[:-30])
    log = read_nccl_debug(data)
    assert log.cut_lines == [1] and log.transports["NET/IB"].count == 1
    assert 2 in log.skipped or log.nccl_lines >= 2


def test_streamed_from_a_file(tmp_path):
    path = tmp_path / "big.log"
    path.write_text("NCCL version 2.21.5+cuda12.4\n" + LINE * 50_000)
    with path.open("rb") as stream:
        log = read_nccl_debug(stream)
    assert log.version.value == "2.21.5" and log.connections == 50_000


def test_what_the_explain_fuzzer_found_is_read_without_an_exception():
    # benchmarks/fuzz_explain.py, first runs: each of these raised before (ValueError, OverflowError,
    # ZeroDivisionError); now each is read, the nonsense skipped
    superscript = "\u00b2"  # str.isdigit() is True for it, int() refuses it
    lines = [
        f"h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/{superscript}",
        f"h:1:1 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR {superscript}",
        f"h:1:1 [0] NCCL INFO NET/IB : Using [{superscript}]mlx5_0:1/IB",
        f"h:1:1 [0] NCCL INFO Trees [0] {superscript}/-1/-1->0->1",
        f"[1,{superscript}]<stdout>:h:1:1 [0] NCCL INFO Using network IB",
        f"h:1:1 [{superscript}] NCCL INFO Using network IB",
        f"#  Rank {'9' * 4300} Group  0 Pid 1 on h device 0 [0x1] NVIDIA H100",  # past int's digit limit
        '{"header": {"rank": 1e999, "n_ranks": 8, "nnodes": 1}, "metadata": {"hostname": "a"}, '
        '"coll_perf": {"coll": "AllReduce", "coll_msg_size_bytes": 1e999, "coll_busbw_gbs": 1e999}}',
        *(f"n{h}:1:1 [0] NCCL INFO Init timings: rank {h} nranks 3 total 0 (kernels 0)" for h in range(3)),
    ]
    out = explain(read_nccl_debug("\n".join(lines)))
    assert out.facts["node_outliers"] == [] and "inspector" not in out.facts
    assert out.facts["ranks"]["value"] is None or out.facts["ranks"]["value"] < 10**7


def test_thousands_of_nccl_tests_headers_stay_linear():
    # every header and its rank line, then one row: the sweep and per-node checks walk the table lines once
    # (a header-by-row comparison would take minutes on this)
    header = ("# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
              "#  Rank  0 Group  0 Pid 1 on hx device  0 [0x1] NVIDIA H100\n")
    row = "       8  2 float sum -1 1.0 0.00 0.00 0 1.0 0.00 0.00 0\n"
    result, seconds = timed(read_nccl_debug, "h:1:1 [0] NCCL INFO Using network IB\n" + (header + row) * 7000)
    assert seconds < 10
    from interconnect.io.nccl_debug import tests_runs

    start = time.perf_counter()
    out = explain(result, tests_runs(result))
    assert time.perf_counter() - start < 20
    assert out.facts["separate_runs"] == 6667  # the table lines kept (20,000) hold this many headers
