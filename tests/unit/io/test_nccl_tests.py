"""Tests for interconnect.io.nccl_tests: the nccl-tests / rccl-tests output parser.

Expected values cite where they come from: the published rows in ``data/nccl_logs/*.txt``
(the same files as ``interconnect/data/measurements/``, whose ``manifest.toml`` names each one's source),
the synthetic fixtures in ``data/nccl_logs`` (their layout follows the nccl-tests source named in
``data/nccl_logs/README.md``), or the nccl-tests source itself.
"""

from __future__ import annotations

import contextlib
import json
import pickle
import re
import signal
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interconnect.io.nccl_tests import (
    MAX_LINE_CHARS,
    MAX_LINES,
    MAX_LOG_BYTES,
    MAX_ROWS,
    NcclLogError,
    NcclRun,
    busbw_factor,
    infer_ranks,
    parse_nccl_tests,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl_logs"
REPO_ROOT = Path(__file__).resolve().parents[3]

MODERN = "nccl-tests-2.19-all_reduce-8xH100.log"
MPIRUN = "nccl-tests-2023-all_reduce-2x8xH100-mpirun.log"
CPUTIME = "nccl-tests-2.19-alltoall-4xGB200-cputime-timestamps.log"
SOCKET = "nccl-tests-2.19-all_gather-2node-socket.log"
OLD_ERROR = "nccl-tests-2021-all_gather-8xV100-error-column.log"
RCCL = "rccl-tests-all_reduce-8xMI300X.log"
JSON_FILE = "nccl-tests-2.19-all_reduce-2x8xH100.json"
TEXT_FIXTURES = [MODERN, MPIRUN, CPUTIME, SOCKET, OLD_ERROR, RCCL]

ARRAY_FIELDS = (
    "size_bytes",
    "count_elements",
    "time_us",
    "algbw_gbps",
    "busbw_gbps",
    "inplace_time_us",
    "inplace_algbw_gbps",
    "inplace_busbw_gbps",
)

HEADER = (
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
    "            (us)  (GB/s)  (GB/s)\n"
)


def read_text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def parse_file(name: str) -> NcclRun:
    return parse_nccl_tests((DATA / name).read_bytes())


def assert_same_rows(actual: NcclRun, expected: NcclRun) -> None:
    for field in ARRAY_FIELDS:
        np.testing.assert_array_equal(getattr(actual, field), getattr(expected, field), err_msg=field)
    assert actual.dtype == expected.dtype
    assert actual.redop == expected.redop


def line_number_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.split("\n"), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in text")


# ---------------------------------------------------------------------------------------------
# Rendering an NcclRun back to nccl-tests' text format (for round trips)
# ---------------------------------------------------------------------------------------------


def printf(fmt: str, *args: object) -> str:
    """C printf formatting, so format strings can be quoted verbatim from the nccl-tests source."""
    return fmt % args


def nccl_row(*fields: object) -> str:
    """A data row laid out like nccl-tests 2.19 (src/util.cu: ``"%12li  %12li  %8s  %6s  %6s"``, then
    per placement ``"  %7s  %6s  %6s  %6g"``). Fields are printed as given, so a test can damage one."""
    widths = [12, 12, 8, 6, 6] + [7, 6, 6, 6] * 4
    return "  ".join(str(field).rjust(width) for field, width in zip(fields, widths, strict=False))


# 1 MiB all-reduce on 8 ranks: algbw = 1048576 B / 8.52 µs = 123.07 GB/s, busbw = algbw x 1.75
ROW_1MIB = nccl_row(1048576, 262144, "float", "sum", -1, "8.52", "123.07", "215.37", 0, "8.41", "124.68", "218.19", 0)


def c_float_str(value: float, width: int) -> str:
    """nccl-tests ``getFloatStr`` (src/util.cu, 2.19): widest of %.2f/%.1f/%.0f that fits, else %.1e."""
    for fmt in ("%*.2f", "%*.1f", "%*.0f"):
        text = printf(fmt, width, value)
        if len(text) <= width:
            return text
    return printf("%*.1e" if width >= 7 else "%*.0e", width, value)


def render_nccl_tests(run: NcclRun, *, exact: bool = True) -> str:
    """Write ``run`` the way nccl-tests 2.19 prints a table (src/util.cu ``writeResultHeader`` and
    ``writeBenchmarkLinePreamble``/``Body``). ``exact=True`` prints every float with ``repr`` so a
    parse gives the same numbers back; ``exact=False`` uses nccl-tests' own rounding."""

    def number(value: float, width: int) -> str:
        if exact:
            return repr(float(value)).rjust(width)
        return c_float_str(value, width)

    time_name = "cputime" if run.time_is_cputime else "time"
    lines = []
    if run.collective:
        lines.append(f"# Collective test starting: {run.collective}")
    lines.append("# Using devices")
    for rank, (host, gpu) in enumerate(zip(run.hostnames, run.gpu_names, strict=True)):
        rank_format = "#  Rank %2d Group %2d Pid %6d on %10s device %2d [0000:%02x:00] %s"
        lines.append(printf(rank_format, rank, 0, 4242, host, rank, rank, gpu))
    lines.append("#")
    columns = ("size", "count", "type", "redop", "root") + (time_name, "algbw", "busbw", "#wrong") * 2
    lines.append(printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s", *columns))
    for i in range(len(run.size_bytes)):
        row = printf(
            "%12li  %12li  %8s  %6s  %6i", run.size_bytes[i], run.count_elements[i], run.dtype[i], run.redop[i], -1
        )
        for time_us, algbw, busbw in (
            (run.time_us[i], run.algbw_gbps[i], run.busbw_gbps[i]),
            (run.inplace_time_us[i], run.inplace_algbw_gbps[i], run.inplace_busbw_gbps[i]),
        ):
            row += printf("  %7s  %6s  %6s  %6g", number(time_us, 7), number(algbw, 6), number(busbw, 6), 0)
        lines.append(row)
    if run.avg_busbw_gbps is not None:
        lines.append(printf("# %-20s : %r ", "Avg bus bandwidth", run.avg_busbw_gbps))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Published rows (calibration copies)
# ---------------------------------------------------------------------------------------------

# name -> (rows, ranks, first row: size B, out-of-place time µs, algbw, busbw, in-place time µs)
# Ranks and row values: the published files (sources in interconnect/data/measurements/manifest.toml:
# coreweave/nccl-tests README for the SHARP and GB200 tables, the other files' own entries).
CALIBRATION = {
    "h100-ib-sharp-96rank.txt": (5, 96, (536870912, 2984.6, 179.88, 356.01, 2979.7)),
    "gb200-nvl72-1rack.txt": (5, 72, (536870912, 1806.7, 297.16, 586.06, 1835.9)),
    "gb200-nvl72-2rack.txt": (6, 128, (536870912, 2156.8, 248.92, 493.94, 2093.7)),
    "h100-2node-unidentified.txt": (31, 16, (8, 62.35, 0.00, 0.00, 61.02)),
    "h100-8gpu-nvls-unidentified.txt": (4, 8, (268435456, 1119.8, 239.71, 419.49, 1117.4)),
    "h100-2node-k8s-unidentified.txt": (5, 16, (536870912, 5202.3, 103.20, 193.50, 5377.7)),
}


@pytest.mark.parametrize("name", sorted(CALIBRATION))
def test_calibration_rows_parse_and_ranks_are_inferred(name):
    rows, ranks, (size, time_us, algbw, busbw, inplace_time_us) = CALIBRATION[name]
    run = parse_file(name)
    assert run.format == "text"
    assert run.collective is None
    assert len(run.size_bytes) == rows
    assert run.ranks == ranks
    assert run.ranks_source == "inferred from busbw/algbw"
    assert (run.size_bytes[0], run.time_us[0], run.algbw_gbps[0], run.busbw_gbps[0]) == (size, time_us, algbw, busbw)
    assert run.inplace_time_us[0] == inplace_time_us
    assert run.dtype == ["float"] * rows and run.redop == ["sum"] * rows
    assert not run.gpu_names and not run.hostnames
    assert run.time_is_cputime is False and run.avg_busbw_gbps is None
    # the copies hold no header, so the parser says which factor it assumed
    assert any("does not name the collective" in w for w in run.warnings)
    assert not any("size/time" in w for w in run.warnings)  # algbw = size/time holds on every row


def test_h100_2node_key_rows():
    # The published rows (manifest id h100-2node): "1 MiB 463.1 µs (4.25 busbw); 8 GiB 73372 µs, algbw 117.07,
    # busbw 219.51"
    run = parse_file("h100-2node-unidentified.txt")
    mib = int(np.flatnonzero(run.size_bytes == 1048576)[0])
    assert (run.time_us[mib], run.busbw_gbps[mib]) == (463.1, 4.25)
    assert (run.size_bytes[-1], run.time_us[-1], run.algbw_gbps[-1], run.busbw_gbps[-1]) == (
        8589934592,
        73372,
        117.07,
        219.51,
    )
    assert run.count_elements[-1] == 8589934592 // 4


def test_gb200_20_racks_rank_count_is_only_pinned_to_a_range():
    # coreweave/nccl-tests README, 20-rack GB200 NVL72 table: 1440 GPUs ("Rank 1439"). busbw/algbw = 1.9986
    # with 2-decimal bandwidths cannot tell 1440 from its neighbours; the parser must say so and stay close.
    run = parse_file("gb200-nvl72-20rack.txt")
    assert abs(run.ranks - 1440) / 1440 < 0.01
    (message,) = [w for w in run.warnings if "pins the rank count only to" in w]
    low, high = map(int, re.search(r"only to (\d+)-(\d+)", message).groups())
    assert low <= 1440 <= high and high - low < 300


PACKAGED = REPO_ROOT / "interconnect" / "data" / "measurements"


@pytest.mark.parametrize("name", sorted(n for n in CALIBRATION if (PACKAGED / n).exists()) + ["gb200-nvl72-20rack.txt"])
def test_test_copies_match_the_packaged_measurements(name):
    # One set of published rows: the parser's fixtures are the files the model is calibrated on.
    packaged = REPO_ROOT / "interconnect" / "data" / "measurements" / name
    assert (DATA / name).read_bytes() == packaged.read_bytes()


def test_gb200_2_racks_with_rank_lines_warns_about_the_disagreement():
    # coreweave/nccl-tests README, 2-rack table: the source's header lists ranks up to 143, the busbw/algbw
    # ratio implies 128.
    rank_lines = "".join(
        f"#  Rank {r:3d} Group  0 Pid  {1000 + r // 4:5d} on gb200-{r // 72:02d}-{r % 72 // 4:02d} device {r % 4:2d} "
        "[0008:06:00] NVIDIA GB200\n"
        for r in range(144)
    )
    text = "# Collective test starting: all_reduce_perf\n# Using devices\n" + rank_lines + HEADER
    text += read_text("gb200-nvl72-2rack.txt")
    run = parse_nccl_tests(text)
    assert (run.ranks, run.ranks_source) == (144, "rank lines")
    assert "ranks from Rank lines (144) disagree with busbw/algbw (128); the count from the Rank lines is used" in (
        run.warnings
    )
    assert len(run.gpu_names) == 144 and run.gpu_names[0] == "NVIDIA GB200"
    assert len(set(run.hostnames)) == 36


# ---------------------------------------------------------------------------------------------
# Full logs (synthetic fixtures; layouts per data/nccl_logs/README.md)
# ---------------------------------------------------------------------------------------------


def test_modern_log_with_interleaved_nccl_info():
    text = read_text(MODERN)
    run = parse_nccl_tests(text)
    assert (run.collective, run.ranks, run.ranks_source, run.format) == ("all_reduce_perf", 8, "rank lines", "text")
    assert len(run.size_bytes) == 25  # 8 B .. 128 MiB, step factor 2 (header: minBytes 8 maxBytes 134217728)
    np.testing.assert_array_equal(run.size_bytes, 8 * 2 ** np.arange(25))
    np.testing.assert_array_equal(run.count_elements, run.size_bytes // 4)
    # the first row is split over three lines by NCCL INFO messages; its values are still read
    assert (run.time_us[0], run.algbw_gbps[0], run.inplace_time_us[0]) == (17.20, 0.00, 17.56)
    last = read_text(MODERN).split("\n")[line_number_of(text, "   134217728      33554432") - 1].split()
    assert [run.time_us[-1], run.algbw_gbps[-1], run.busbw_gbps[-1]] == [float(v) for v in last[5:8]]
    assert [run.inplace_time_us[-1], run.inplace_busbw_gbps[-1]] == [float(last[9]), float(last[11])]
    assert run.avg_busbw_gbps == 82.657
    assert run.gpu_names == ["NVIDIA H100 80GB HBM3"] * 8
    assert run.hostnames == ["dgx-h100-a07"] * 8
    assert run.warnings == ["NCCL WARN: NET/IB : No device found."]


def test_mpirun_prefixed_log():
    run = parse_file(MPIRUN)
    assert (run.collective, run.ranks, run.ranks_source) == ("all_reduce_perf", 16, "rank lines")
    assert len(run.size_bytes) == 31  # 8 B .. 8 GiB
    assert run.hostnames == ["node-001"] * 8 + ["node-002"] * 8
    assert (run.size_bytes[-1], run.time_us[-1], run.busbw_gbps[-1]) == (8589934592, 72547, 222.01)
    assert run.avg_busbw_gbps == 77.1544
    assert infer_ranks(run.collective, run.algbw_gbps, run.busbw_gbps) == 16
    assert run.warnings == []  # the echoed mpirun command names the program, it is not noise


def test_cputime_timestamp_and_na_log():
    run = parse_file(CPUTIME)
    assert run.time_is_cputime is True
    assert (run.collective, run.ranks, len(run.size_bytes)) == ("alltoall_perf", 4, 11)
    assert run.redop == ["none"] * 11
    assert (run.size_bytes[0], run.time_us[0], run.algbw_gbps[0], run.busbw_gbps[0]) == (1048576, 26.73, 46.15, 34.62)
    assert (run.inplace_time_us[-1], run.inplace_busbw_gbps[-1]) == (1844.47, 454.84)
    # cputime is host wall time, algbw comes from GPU time: no size/time check under -C
    assert run.warnings == []
    assert infer_ranks("alltoall", run.algbw_gbps, run.busbw_gbps) == 4


def test_scientific_notation_times():
    run = parse_file(SOCKET)
    # getFloatStr prints times of 10 s and more as %.1e (nccl-tests src/util.cu)
    assert run.time_us[-2:].tolist() == [1.6e7, 3.2e7]
    assert run.inplace_time_us[-1] == 3.2e7
    assert (run.ranks, run.collective) == (2, "all_gather_perf")
    assert infer_ranks(run.collective, run.algbw_gbps, run.busbw_gbps) == 2
    assert run.hostnames == ["ws-a", "ws-b"]


def test_old_layout_without_redop_root_and_with_error_column():
    run = parse_file(OLD_ERROR)
    assert run.collective == "all_gather_perf"  # from the echoed command: old versions do not print it
    assert (run.ranks, run.ranks_source, len(run.size_bytes)) == (8, "rank lines", 23)
    assert run.redop == ["none"] * 23 and run.dtype == ["float"] * 23
    assert (run.size_bytes[0], run.count_elements[0], run.time_us[0], run.inplace_time_us[0]) == (32, 1, 10.01, 9.78)
    assert run.gpu_names[0] == "Tesla V100-SXM2-32GB"
    assert run.avg_busbw_gbps == 36.1096
    assert run.warnings == []


def test_rccl_tests_log():
    run = parse_file(RCCL)
    assert (run.collective, run.ranks, len(run.size_bytes)) == (None, 8, 28)
    assert run.dtype == ["bfloat16"] * 28
    assert run.gpu_names == ["AMD Instinct MI300X"] * 8
    assert (run.size_bytes[-1], run.time_us[-1], run.busbw_gbps[-1]) == (1073741824, 5507.4, 341.19)
    assert run.avg_busbw_gbps == 102.37
    assert run.warnings == []


def test_json_file():
    run = parse_file(JSON_FILE)
    assert run.format == "json"
    assert run.collective == "all_reduce_perf"  # args[0] is "./build/all_reduce_perf" (with "\/" escapes)
    # nccl-tests keeps one device entry per process (util.cu parseRankInfo reads one line per
    # process); 2 processes x nthreads 1 x ngpus 8 = 16 ranks
    assert (run.ranks, run.ranks_source) == (16, "json devices")
    assert run.hostnames == ["node-001", "node-002"]
    assert run.gpu_names == ["NVIDIA H100 80GB HBM3"] * 2
    assert len(run.size_bytes) == 14
    assert (run.size_bytes[0], run.count_elements[0], run.time_us[0]) == (1048576, 262144, 71.005496)
    assert (run.algbw_gbps[0], run.busbw_gbps[0], run.inplace_time_us[0]) == (14.767533, 27.689124, 72.496612)
    assert run.avg_busbw_gbps == 150.271334
    assert run.dtype[0] == "float" and run.redop[0] == "sum"
    assert run.warnings == []
    assert infer_ranks("all_reduce", run.algbw_gbps, run.busbw_gbps) == 16


def test_arrays_are_typed_and_read_only():
    run = parse_file(MODERN)
    assert run.size_bytes.dtype == np.int64 and run.count_elements.dtype == np.int64
    for field in ARRAY_FIELDS[2:]:
        assert getattr(run, field).dtype == np.float64
    with pytest.raises(ValueError, match="read-only"):
        run.time_us[0] = 1.0


# ---------------------------------------------------------------------------------------------
# The same table under other whitespace, line endings, prefixes and encodings
# ---------------------------------------------------------------------------------------------


def _prefix_every_line(prefix: str):
    return lambda text: "\n".join(prefix + line if line else line for line in text.split("\n"))


TRANSFORMS = {
    "single spaces": lambda text: "\n".join(" ".join(line.split()) for line in text.split("\n")),
    "tabs": lambda text: "\n".join("\t".join(line.split()) for line in text.split("\n")),
    "crlf": lambda text: text.replace("\n", "\r\n"),
    "openmpi tag": _prefix_every_line("[1,0]<stdout>:"),
    "openmpi timestamp": _prefix_every_line("Thu Jul 18 10:00:00 2024<stdout>:"),
    "srun label": _prefix_every_line("0: "),
    "kubectl timestamps": _prefix_every_line("2025-11-03T14:02:11.123456789Z "),
    "kubectl prefix": _prefix_every_line("[pod/nccl-test-launcher-x7k2p/launcher] "),
    "docker compose": _prefix_every_line("nccl-worker-1  | "),
    "pdsh": _prefix_every_line("gpu-node-017: "),
    "ansi colour": lambda text: text.replace("float", "\x1b[32mfloat\x1b[0m"),
    "markdown": lambda text: "\n".join(
        "| " + " | ".join(line.split()) + " |" if line[:1] == " " else line for line in text.split("\n")
    ),
    "underscores in sizes": lambda text: re.sub(r"(?m)^(\s*)(\d+)(\d{3})(?=\s)", r"\1\2_\3", text),
}


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("name", [RCCL, "h100-2node-unidentified.txt"])
def test_layout_variants_give_the_same_rows(name, transform):
    text = read_text(name)
    changed = TRANSFORMS[transform](text)
    assert changed != text
    expected, actual = parse_nccl_tests(text), parse_nccl_tests(changed)
    assert_same_rows(actual, expected)
    assert (actual.ranks, actual.gpu_names, actual.avg_busbw_gbps) == (
        expected.ranks,
        expected.gpu_names,
        expected.avg_busbw_gbps,
    )


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: text.encode("utf-16"),  # PowerShell ">" writes UTF-16 with a byte-order mark
        lambda text: b"\xef\xbb\xbf" + text.encode("utf-8"),  # UTF-8 byte-order mark
    ],
    ids=["utf-16", "utf-8-bom"],
)
def test_encodings(encode):
    text = read_text(MODERN)
    assert_same_rows(parse_nccl_tests(encode(text)), parse_nccl_tests(text))


def test_commas_in_sizes():
    text = ROW_1MIB.replace("     1048576        262144", "   1,048,576       262,144")
    run = parse_nccl_tests(text)
    assert (run.size_bytes[0], run.count_elements[0]) == (1048576, 262144)


# ---------------------------------------------------------------------------------------------
# Other layouts and situations (inline; format strings quoted from the nccl-tests source)
# ---------------------------------------------------------------------------------------------


def test_2017_layout_time_in_milliseconds():
    # nccl-tests b188a15 (2017) all_reduce.cu: header "bytes N type op time algbw busbw res",
    # rows "%12li  %12li  %6s  %6s" + "  %7.3f  %5.2f  %5.2f  %7.0le" with time = deltaSec * 1.0E3 (ms).
    columns = ("bytes", "N", "type", "op") + ("time", "algbw", "busbw", "res") * 2
    text = (
        printf("# %10s  %12s  %6s  %6s  %7s  %5s  %5s  %7s  %7s  %5s  %5s  %7s\n", *columns)
        + printf("%12li  %12li  %6s  %6s", 1048576, 262144, "float", "sum")
        + printf("  %7.3f  %5.2f  %5.2f  %7.0le", 0.131, 8.00, 14.01, 0.0)
        + printf("  %7.3f  %5.2f  %5.2f  %7.0le\n", 0.133, 7.88, 13.80, 0.0)
    )
    run = parse_nccl_tests(text)
    assert run.time_us.tolist() == [131.0] and run.inplace_time_us.tolist() == [133.0]
    assert any("time column is in ms" in w for w in run.warnings)
    assert not any("size/time" in w for w in run.warnings)  # 1048576 B / 131 µs = 8.00 GB/s


def test_old_broadcast_layout_root_without_redop():
    # nccl-tests cbe7f65 (2019) broadcast.cu: "size count type root" then the two groups.
    columns = ("size", "count", "type", "root") + ("time", "algbw", "busbw", "error") * 2
    row_format = "%12li  %12li  %6s  %6i  %7s  %6.2f  %6.2f  %5.0le  %7s  %6.2f  %6.2f  %5.0le\n"
    text = printf("# %10s  %12s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", *columns) + printf(
        row_format, 4194304, 1048576, "float", 0, "52.10", 80.51, 80.51, 0.0, "51.77", 81.02, 81.02, 0.0
    )
    run = parse_nccl_tests(text)
    assert (run.redop, run.time_us.tolist(), run.inplace_busbw_gbps.tolist()) == (["none"], [52.10], [81.02])
    assert run.ranks is None and run.ranks_source == "unknown"  # broadcast's factor is 1


def test_headerless_rows_without_redop_and_root():
    # the all_gather layout of 2019-2022 (size count type + two groups with a float error column),
    # as pasted without its header in issue threads
    text = "       65536          2048     float    50.12    1.31    1.15  0e+00    49.87    1.31    1.15  0e+00\n"
    run = parse_nccl_tests(text)
    assert (run.size_bytes.tolist(), run.time_us.tolist(), run.redop) == ([65536], [50.12], ["none"])
    assert run.ranks == 8  # 1.15 / 1.31 = 0.878 < 1: the (n-1)/n family, n = 1 / (1 - r)


def test_validation_disabled_na():
    # common.cu before 2025: "  %7s  %6.2f  %6.2f  %5s" with "N/A" when -c 0
    text = nccl_row(
        1048576, 262144, "float", "sum", -1, "8.52", "123.07", "215.37", "N/A", "8.41", "124.68", "218.19", "N/A"
    )
    assert parse_nccl_tests(text).busbw_gbps.tolist() == [215.37]


def test_per_iteration_columns():
    # util.cu 2.19 with -I 1: per placement "time algbw busbw #wrong i_min i_max i_p99 i_cv%"
    per_placement = ("time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%")
    header = "#  " + "  ".join(("size", "count", "type", "redop", "root") + per_placement * 2) + "\n"
    row = nccl_row(1048576, 262144, "float", "sum", -1) + "  ".join(
        ["", "8.52", "123.07", "215.37", "0", "8.10", "9.90", "9.80", "4.20"]
        + ["8.41", "124.68", "218.19", "0", "8.02", "9.71", "9.66", "3.90"]
    )
    run = parse_nccl_tests(header + row)
    assert (run.time_us[0], run.busbw_gbps[0], run.inplace_time_us[0], run.inplace_busbw_gbps[0]) == (
        8.52,
        215.37,
        8.41,
        218.19,
    )


def test_copybw_column_from_2024_side_work_option():
    # nccl-tests 7bd5758 (2024): "... busbw copybw #wrong" per placement when -w is used
    header = (
        "#       size         count      type   redop    root     time   algbw   busbw  copybw #wrong"
        "     time   algbw   busbw  copybw #wrong\n"
    )
    row = "     1048576        262144     float     sum      -1    8.52  123.07  215.37   12.00     0"
    row += "    8.41  124.68  218.19   11.50     0\n"
    run = parse_nccl_tests(header + row)
    assert (run.busbw_gbps[0], run.inplace_time_us[0]) == (215.37, 8.41)


def test_rccl_in_place_only_table():
    # ROCm/rccl-tests common.cu with out-of-place disabled: one "in-place" group
    text = (
        "#                                                              in-place          \n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
        "     1048576        262144     float     sum      -1    8.41  124.68  218.19      0\n"
    )
    run = parse_nccl_tests(text)
    assert np.isnan(run.time_us[0]) and np.isnan(run.busbw_gbps[0])
    assert (run.inplace_time_us[0], run.inplace_busbw_gbps[0]) == (8.41, 218.19)
    assert run.ranks == 8  # inferred from the in-place columns
    assert any("in-place results only" in w for w in run.warnings)


def test_leading_timestamp_column():
    # the unmerged nccl-tests PR #349 printed the timestamp first; it is stripped like a prefix
    text = (
        "#           timestamp        size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong\n"
        "2025-10-14 10:00:00     1048576        262144     float     sum      -1    8.52  123.07  215.37      0"
        "    8.41  124.68  218.19      0\n"
    )
    assert parse_nccl_tests(text).time_us.tolist() == [8.52]


def test_several_data_types_in_one_table():
    rows = [
        nccl_row(1024, 256, "float", "sum", -1, "9.10", "0.11", "0.20", 0, "9.00", "0.11", "0.20", 0),
        nccl_row(1024, 512, "half", "sum", -1, "9.20", "0.11", "0.19", 0, "9.10", "0.11", "0.20", 0),
        nccl_row(1024, 512, "bfloat16", "max", -1, "9.30", "0.11", "0.19", 0, "9.20", "0.11", "0.19", 0),
    ]
    run = parse_nccl_tests(HEADER + "\n".join(rows))
    assert (run.dtype, run.redop) == (["float", "half", "bfloat16"], ["sum", "sum", "max"])


def test_nccl_info_splitting_rows_behind_a_launcher_prefix():
    # the shape seen in NVIDIA/nccl#1453 (NCCL_DEBUG_SUBSYS=TUNING under a "[0] " prefix): the row
    # prefix, NCCL INFO glued to it, then each placement's numbers on a later line
    info = "[0] h100-w1:497888:497888 [0] NCCL INFO 8192 Bytes -> Algo 1 proto 2 time 26.549810"
    text = "\n".join(
        [
            HEADER.rstrip("\n"),
            "[0]         8192          2048     float     sum      -1" + info[4:],
            info,
            "[0]     75.38    0.11    0.19      0" + info[4:],
            info,
            "[0]     75.02    0.11    0.19      0",
            "[0] " + nccl_row(16384, 4096, "float", "sum", -1, "76.10", "0.22", "0.38", 0, "75.90", "0.22", "0.38", 0),
        ]
    )
    run = parse_nccl_tests(text)
    assert run.size_bytes.tolist() == [8192, 16384]
    assert run.time_us.tolist() == [75.38, 76.10]
    assert run.inplace_time_us.tolist() == [75.02, 75.90]
    assert run.ranks is None  # algbw below 1 GB/s says nothing about the rank count
    assert run.warnings == []


def test_second_table_is_not_mixed_in():
    first, second = read_text(MODERN), read_text(OLD_ERROR)
    run = parse_nccl_tests(first + second)
    assert_same_rows(run, parse_nccl_tests(first))
    assert any("more than one result table" in w for w in run.warnings)


def test_independent_copies_under_mpirun_are_flagged():
    # nccl-tests#107: mpirun without an MPI build starts separate 1-rank runs, each printing "Rank 0"
    preamble = "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
    ranks = (
        "#   Rank  0 Pid   1320 on ip-172-31-20-228 device  0 [0x00] Tesla V100-SXM2-16GB\n"
        "#   Rank  0 Pid   2066 on ip-172-31-22-230 device  0 [0x00] Tesla V100-SXM2-16GB\n"
    )
    row = "  1048576  262144  float  sum  -1  100.0  10.49  0.00  0  100.0  10.49  0.00  0\n"
    run = parse_nccl_tests(preamble + preamble + ranks + HEADER + row + row)
    assert run.ranks == 1
    assert any("'Rank 0' is listed 2 times" in w for w in run.warnings)


def test_header_rank_count_is_the_last_resort():
    text = (
        "# Collective test starting: broadcast_perf\n"
        "# nThread 1 nGpus 4 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 1 iters: 20\n"
        + HEADER
        + nccl_row(4194304, 1048576, "float", "none", 0, "52.10", "80.51", "80.51", 0, "51.77", "81.02", "81.02", 0)
    )
    run = parse_nccl_tests(text)
    assert (run.ranks, run.ranks_source) == (4, "nthread*ngpus header")
    assert any("nThread*nGpus" in w for w in run.warnings)


def test_header_count_is_a_lower_bound_under_mpi():
    # under MPI every process prints its own nGpus; busbw/algbw = 1.875 says 16 ranks
    text = "# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 1 iters: 20\n" + read_text(
        "h100-2node-unidentified.txt"
    )
    run = parse_nccl_tests(text)
    assert (run.ranks, run.ranks_source) == (16, "inferred from busbw/algbw")


def test_algbw_inconsistent_with_size_over_time_is_a_warning():
    text = read_text("h100-8gpu-nvls-unidentified.txt").replace("1119.8", "2239.6")
    run = parse_nccl_tests(text)
    (warning,) = [w for w in run.warnings if "size/time" in w]
    assert warning.startswith("line 1: algbw 239.71 GB/s but size/time = 119.9 GB/s")


def test_non_integer_rank_ratio_is_a_warning():
    # busbw/algbw = 1.70 would be 6.67 ranks for all-reduce (e.g. a hand-edited busbw)
    text = nccl_row(
        268435456, 67108864, "float", "sum", -1, "1119.8", "239.71", "407.51", 0, "1117.4", "240.24", "408.41", 0
    )
    run = parse_nccl_tests("# Collective test starting: all_reduce_perf\n" + text)
    assert run.ranks == 7
    assert any("not a whole number" in w for w in run.warnings)


def test_validation_failures_become_warnings():
    text = (
        HEADER
        + ROW_1MIB.replace("215.37       0", "215.37       3")
        + "\n"
        + "# Out of bounds values : 1 FAILED\n"
        + "# Avg bus bandwidth    : 216.78 FAILED\n"
    )
    run = parse_nccl_tests(text)
    assert run.avg_busbw_gbps == 216.78
    assert any("1 rows report wrong elements" in w and "line 3" in w for w in run.warnings)
    assert any("out-of-bounds" in w for w in run.warnings)
    assert any("FAILED" in w and "NCCL_TESTS_MIN_BW" in w for w in run.warnings)


def test_unrecognised_lines_are_counted():
    text = "some banner\nanother line\n" + read_text("h100-8gpu-nvls-unidentified.txt")
    run = parse_nccl_tests(text)
    assert any(w.startswith("2 lines were not recognised") and "line 1" in w for w in run.warnings)


# ---------------------------------------------------------------------------------------------
# JSON variants
# ---------------------------------------------------------------------------------------------


def json_fixture() -> dict:
    return json.loads(read_text(JSON_FILE))


def test_json_devices_at_top_level_and_cpu_time():
    document = json_fixture()
    document["devices"] = document["config"].pop("devices")
    for result in document["results"]:
        for key in ("out_of_place", "in_place"):
            result[key]["cpu_time"] = result[key].pop("time")
    run = parse_nccl_tests(json.dumps(document))
    assert run.ranks == 16 and run.time_is_cputime is True
    assert run.time_us[0] == 71.005496


def test_json_nan_null_and_bare_inf():
    # util.cu jsonDouble writes NaN as the string "nan" and inf unquoted with %lf (not valid JSON);
    # writeBenchMarkLineNullBody writes "out_of_place": null. A null placement is absent (NaN in its
    # arrays); a NaN or infinite value makes the result unusable: it is skipped with a warning.
    document = json_fixture()
    document["results"][0]["out_of_place"] = None
    document["results"][1]["in_place"]["alg_bw"] = "nan"
    document["results"][2]["in_place"]["nwrong"] = None
    document["results"][3]["out_of_place"]["time"] = 0.0
    text = json.dumps(document).replace('"bus_bw": 47.915694', '"bus_bw": inf')  # results[1]
    assert "inf," in text
    run = parse_nccl_tests(text)
    assert np.isnan(run.time_us[0]) and run.inplace_time_us[0] == 72.496612
    assert len(run.size_bytes) == len(document["results"]) - 2
    assert 2097152 not in run.size_bytes.tolist() and 8388608 not in run.size_bytes.tolist()
    (message,) = [w for w in run.warnings if "skipped" in w]
    assert message.startswith("2 data rows were skipped because a value is NaN, infinite or a zero time")
    assert "results[1]: out_of_place.bus_bw is inf, not a finite number" in message
    assert "results[3]: out_of_place.time is zero" in message
    assert np.isfinite(run.inplace_time_us).all() and np.isfinite(run.busbw_gbps[1:]).all()


def test_json_collective_key_and_version_warning():
    document = json_fixture()
    document["collective"] = "reduce_scatter"
    document["version"] = 4
    run = parse_nccl_tests(json.dumps(document))
    assert run.collective == "reduce_scatter"
    assert any("version 4" in w for w in run.warnings)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("results"), "no 'results' list"),
        (lambda d: d.update(results=[]), "no data rows found"),
        (lambda d: d["results"].__setitem__(0, 5), r"results\[0\] is not an object"),
        (lambda d: d["results"][3].pop("size"), r"results\[3\] has no 'size'"),
        (lambda d: d["results"][1].update(size="big"), r"results\[1\].size is 'big'"),
        (lambda d: d["results"][1].update(size=True), r"results\[1\].size is True"),
        (lambda d: d["results"][2]["in_place"].update(time=[1]), r"results\[2\].in_place.time is \[1\]"),
        (lambda d: d["results"][2].update(out_of_place=None, in_place=None), "neither"),
    ],
)
def test_json_errors(mutate, message):
    document = json_fixture()
    mutate(document)
    with pytest.raises(NcclLogError, match=message) as info:
        parse_nccl_tests(json.dumps(document))
    assert info.value.line_number is None


def test_truncated_json():
    text = read_text(JSON_FILE)
    with pytest.raises(NcclLogError, match="ends early"):
        parse_nccl_tests(text[: len(text) // 2])


def test_json_that_is_not_an_object():
    with pytest.raises(NcclLogError, match="not valid JSON"):
        parse_nccl_tests("{not json at all}")


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("data", ["", b"", "   \n\n\t\n", "# only comments\n#\n", "hello\nworld\n"])
def test_no_data_rows(data):
    with pytest.raises(NcclLogError, match=r"no data rows found: expected lines like '  1048576  262144") as info:
        parse_nccl_tests(data)
    assert info.value.line_number is None


def test_no_data_rows_mentions_unrecognised_lines():
    with pytest.raises(NcclLogError, match=r"2 of 2 non-blank lines were not recognised \(first, line 1: 'hello'\)"):
        parse_nccl_tests("hello\nworld\n")


@pytest.mark.parametrize(
    "data",
    [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"   1048576 262144 float\x00", b"\xff\xd8\xff\xe0 JFIF", "nul\x00"],
)
def test_binary_input(data):
    with pytest.raises(NcclLogError, match="this looks like a binary file, not nccl-tests output"):
        parse_nccl_tests(data)


def test_oversize_input():
    data = read_text(MODERN)
    with pytest.raises(NcclLogError, match=r"^the log is 7\.3 KiB; the limit is 1,000 bytes$"):
        parse_nccl_tests(b" " * 7500, max_bytes=1000)  # 7500 / 1024 = 7.32
    with pytest.raises(NcclLogError, match=r"^the log is 1,001 bytes; the limit is 1,000 bytes$"):
        parse_nccl_tests("é" + " " * 999, max_bytes=1000)  # str is measured in UTF-8 bytes
    parse_nccl_tests(data, max_bytes=len(data.encode()))  # exactly at the limit is fine
    with pytest.raises(NcclLogError, match=r"^the log is 6 MiB; the limit is 5 MiB$"):
        parse_nccl_tests(b" " * (6 * 1024 * 1024))
    with pytest.raises(NcclLogError, match=r"^the log is 5,242,881 bytes; the limit is 5 MiB \(5,242,880 bytes\)$"):
        parse_nccl_tests(b" " * (MAX_LOG_BYTES + 1))
    assert MAX_LOG_BYTES == 5 * 1024 * 1024


def test_wrong_input_type():
    with pytest.raises(TypeError):
        parse_nccl_tests(12345)  # type: ignore[arg-type]


def damaged(index: int, token: str | None) -> str:
    """ROW_1MIB with field ``index`` replaced by ``token`` (removed when None)."""
    fields = ROW_1MIB.split()
    if token is None:
        del fields[index]
    else:
        fields[index] = token
    return nccl_row(*fields)


@pytest.mark.parametrize(
    ("bad_row", "message"),
    [
        (damaged(12, None), "expected 13 columns (size count type redop root time algbw busbw #wrong"),
        (damaged(12, None), "#wrong time algbw busbw #wrong), found 12"),
        (damaged(5, "8.5x"), "time '8.5x' is not a number"),
        (damaged(6, "-23.07"), "algbw '-23.07' is negative"),
        (damaged(4, "abc"), "root 'abc' is not a whole number"),
        (damaged(8, "x"), "#wrong 'x' is not a number or N/A"),
        (damaged(2, None) + "  0", "'sum' is a reduction operation but sits in the type column"),
        (damaged(0, None), "found 12"),
        (damaged(0, "-1048576"), "size '-1048576' is negative"),
        (damaged(1, "9" * 30), "is too large"),
    ],
)
def test_malformed_row_reports_its_line(bad_row, message):
    good = nccl_row(2097152, 524288, "float", "sum", -1, "12.10", "173.31", "303.29", 0, "12.00", "174.76", "305.83", 0)
    text = HEADER + good + "\n" + bad_row + "\n" + good + "\n"
    with pytest.raises(NcclLogError) as info:
        parse_nccl_tests(text)
    assert info.value.line_number == 4
    assert message in info.value.reason
    assert str(info.value) == f"line 4: {info.value.reason}"


def test_malformed_headerless_row():
    with pytest.raises(NcclLogError, match=r"^line 2: expected 13 columns like 'size count type redop root"):
        parse_nccl_tests(read_text("h100-8gpu-nvls-unidentified.txt").replace("436.02      0", "436.02      0  7  8"))


def test_error_type_and_pickling():
    error = NcclLogError("expected 13 columns, found 12", 17)
    assert isinstance(error, ValueError)
    assert str(error) == "line 17: expected 13 columns, found 12"
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.line_number, copy.reason, str(copy)) == (17, error.reason, str(error))
    assert str(NcclLogError("the log is empty")) == "the log is empty"


# ---------------------------------------------------------------------------------------------
# busbw_factor and infer_ranks
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("collective", "ranks", "factor"),
    [
        # nccl-tests doc/PERFORMANCE.md "Summary" and src/<collective>.cu *GetBw
        ("all_reduce_perf", 8, 1.75),  # 2(n-1)/n
        ("all_reduce", 16, 1.875),
        ("allreduce", 2, 1.0),
        ("AllReduce", 1, 0.0),
        ("./build/all_gather_perf", 4, 0.75),  # (n-1)/n
        ("reduce_scatter", 8, 0.875),
        ("reducescatter_perf", 2, 0.5),
        ("alltoall", 8, 0.875),
        ("gather_perf", 4, 0.75),
        ("scatter", 4, 0.75),
        ("broadcast_perf", 64, 1.0),  # 1
        ("reduce", 8, 1.0),
        ("sendrecv_perf", 2, 1.0),
    ],
)
def test_busbw_factor(collective, ranks, factor):
    assert busbw_factor(collective, ranks) == pytest.approx(factor, abs=1e-15)


@pytest.mark.parametrize(("collective", "ranks"), [("all_to_some", 8), ("all_reduce", 0), ("all_reduce", True)])
def test_busbw_factor_rejects(collective, ranks):
    with pytest.raises(ValueError):
        busbw_factor(collective, ranks)


def test_infer_ranks_edge_cases():
    algbw = np.array([100.0, 200.0])
    assert infer_ranks("broadcast", algbw, algbw) is None  # factor 1: no information
    assert infer_ranks("all_reduce", [0.5, 0.9], [0.87, 1.57]) is None  # all below 1 GB/s
    assert infer_ranks(None, algbw, algbw) is None  # ratio 1: all-reduce on 2 ranks or a factor-1 collective
    assert infer_ranks("all_reduce", algbw, algbw) == 2
    assert infer_ranks(None, [100.0], [87.5]) == 8  # below 1: (n-1)/n
    assert infer_ranks("all_gather", [100.0], [0.0]) == 1
    assert infer_ranks("all_reduce", [100.0], [250.0]) is None  # ratio beyond 2(n-1)/n's limit
    with pytest.raises(ValueError, match="differ in shape"):
        infer_ranks("all_reduce", [1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="unknown collective"):
        infer_ranks("bisection", algbw, algbw)


@settings(max_examples=200, deadline=None)
@given(
    collective=st.sampled_from(["all_reduce", "all_gather", "reduce_scatter", "alltoall"]),
    ranks=st.integers(1, 32),
    algbw=st.lists(st.floats(50.0, 900.0), min_size=3, max_size=8),
)
def test_infer_ranks_inverts_busbw_factor_on_printed_values(collective, ranks, algbw):
    # printed values carry 2 decimals, like nccl-tests' %6.2f
    algbw_printed = np.round(algbw, 2)
    busbw_printed = np.round(np.array(algbw) * busbw_factor(collective, ranks), 2)
    assert infer_ranks(collective, algbw_printed, busbw_printed) == ranks


# ---------------------------------------------------------------------------------------------
# Round trips
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", TEXT_FIXTURES + sorted(CALIBRATION) + [JSON_FILE])
def test_round_trip_through_nccl_tests_text(name):
    run = parse_file(name)
    again = parse_nccl_tests(render_nccl_tests(run))
    assert_same_rows(again, run)
    assert (again.collective, again.time_is_cputime, again.avg_busbw_gbps) == (
        run.collective,
        run.time_is_cputime,
        run.avg_busbw_gbps,
    )
    if run.format == "text":
        assert (again.ranks, again.ranks_source, again.gpu_names, again.hostnames) == (
            run.ranks,
            run.ranks_source,
            run.gpu_names,
            run.hostnames,
        )


row_values = st.tuples(
    st.integers(0, 2**44),
    st.sampled_from(["float", "half", "bfloat16", "int8", "double", "f8e4m3"]),
    st.sampled_from(["sum", "max", "avg", "none"]),
    st.lists(st.floats(0.0, 1e9, allow_nan=False), min_size=6, max_size=6),
)


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(row_values, min_size=1, max_size=20), cputime=st.booleans())
def test_round_trip_with_nccl_tests_rounding(rows, cputime):
    sizes = np.array([r[0] for r in rows], dtype=np.int64)
    values = np.array([r[3] for r in rows], dtype=np.float64)
    # nccl-tests never prints a time of 0.00 us (a launch alone takes microseconds); the parser skips such rows
    values[:, [0, 3]] = np.maximum(values[:, [0, 3]], 0.01)
    # and a real row's columns agree (the parser refuses rows that no run could print, issue 21):
    # at most 10 TB/s, algbw = size/time, busbw = algbw x all-reduce's 2(n-1)/n (8 ranks: 1.75)
    values[:, [0, 3]] = np.maximum(values[:, [0, 3]], sizes[:, None] / 1e7)
    values[:, [1, 4]] = sizes[:, None] / values[:, [0, 3]] / 1e3
    values[:, [2, 5]] = values[:, [1, 4]] * 1.75
    run = NcclRun(
        collective="all_reduce_perf",
        ranks=None,
        ranks_source="unknown",
        size_bytes=sizes,
        count_elements=sizes // 4,
        dtype=[r[1] for r in rows],
        redop=[r[2] for r in rows],
        time_us=values[:, 0],
        algbw_gbps=values[:, 1],
        busbw_gbps=values[:, 2],
        inplace_time_us=values[:, 3],
        inplace_algbw_gbps=values[:, 4],
        inplace_busbw_gbps=values[:, 5],
        time_is_cputime=cputime,
        avg_busbw_gbps=None,
        gpu_names=[],
        hostnames=[],
        warnings=[],
        format="text",
    )
    text = render_nccl_tests(run, exact=False)
    parsed = parse_nccl_tests(text)
    # every parsed number is exactly the number nccl-tests' rounding printed
    printed = np.array([[float(c_float_str(v, 7 if k % 3 == 0 else 6)) for k, v in enumerate(row)] for row in values])
    np.testing.assert_array_equal(parsed.time_us, printed[:, 0])
    np.testing.assert_array_equal(parsed.busbw_gbps, printed[:, 2])
    np.testing.assert_array_equal(parsed.inplace_algbw_gbps, printed[:, 4])
    np.testing.assert_array_equal(parsed.size_bytes, sizes)
    assert parsed.dtype == run.dtype and parsed.redop == run.redop and parsed.time_is_cputime is cputime


# ---------------------------------------------------------------------------------------------
# Robustness: mutated input raises NcclLogError or parses, nothing else
# ---------------------------------------------------------------------------------------------

RCCL_TEXT = (DATA / RCCL).read_text(encoding="utf-8")
RCCL_ROWS = [i for i, line in enumerate(RCCL_TEXT.split("\n")) if line.strip()[:1].isdigit()]
RCCL_ROW_COUNT = len(RCCL_ROWS)
MODERN_TEXT = (DATA / MODERN).read_text(encoding="utf-8")
JSON_TEXT = (DATA / JSON_FILE).read_text(encoding="utf-8")
ROBUST = settings(max_examples=150, deadline=1000, suppress_health_check=[HealthCheck.too_slow])


@ROBUST
@given(data=st.data())
def test_deleting_tokens_from_a_row_is_never_silent(data):
    lines = RCCL_TEXT.split("\n")
    index = data.draw(st.sampled_from(RCCL_ROWS))
    tokens = lines[index].split()
    keep = data.draw(st.lists(st.booleans(), min_size=len(tokens), max_size=len(tokens)).filter(lambda k: not all(k)))
    lines[index] = "  ".join(t for t, k in zip(tokens, keep, strict=True) if k)
    try:
        run = parse_nccl_tests("\n".join(lines))
    except NcclLogError as error:
        assert error.line_number == index + 1
    else:
        # the damaged row was dropped, and the user is told which line
        assert len(run.size_bytes) == RCCL_ROW_COUNT - 1
        assert any("not recognised" in w and f"line {index + 1}:" in w for w in run.warnings) or not lines[index]


junk_line = st.one_of(
    st.text(max_size=80),
    st.text(alphabet="0123456789 .-+e#:[]<>|/NA*\t", max_size=80),
    st.sampled_from(
        [
            "host:1:2 [0] NCCL INFO Channel 00/24 : 0 1",
            "host:1:2 [0] NCCL WARN Cuda failure 'out of memory'",
            "# Avg bus bandwidth    : nan",
            "#  Rank 99999999999999999999 Group 0 Pid 1 on h device 0 [0x1] G",
            "# nThread 0 nGpus 0 minBytes 8",
            "#       size  count  type  time  algbw  busbw",
            "#  timestamp",
            "# Collective test starting: all_reduce_perf",
            "1 2 3 4 5 6 7 8 9 10 11 12 13",
            "99999999999999999999999 1 float sum -1 1 1 1 0 1 1 1 0",
            "1e999 1 float sum -1 1 1 1 0 1 1 1 0",
            "8 2 float sum -1 1e999 inf nan 0 -0 nan inf 0",
        ]
    ),
)


@ROBUST
@given(junk=st.lists(st.tuples(st.integers(0, 200), junk_line), max_size=6))
def test_junk_lines_raise_only_nccl_log_error(junk):
    lines = MODERN_TEXT.split("\n")
    for position, line in junk:
        lines.insert(position % (len(lines) + 1), line)
    try:
        run = parse_nccl_tests("\n".join(lines))
    except NcclLogError:
        return
    assert len(run.size_bytes) >= 1


@ROBUST
@given(data=st.binary(max_size=2048))
def test_random_bytes_raise_only_nccl_log_error(data):
    try:
        parse_nccl_tests(data)
    except NcclLogError:
        pass


@ROBUST
@given(text=st.text(alphabet='0123456789 .-+e#\n\t\rfloatsumN/A:[]{}",', max_size=600))
def test_random_text_raises_only_nccl_log_error(text):
    try:
        parse_nccl_tests(text)
    except NcclLogError:
        pass


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)


@ROBUST
@given(data=st.data())
def test_mutated_json_raises_only_nccl_log_error(data):
    document = json.loads(JSON_TEXT)
    result = document["results"][data.draw(st.integers(0, len(document["results"]) - 1))]
    target = data.draw(st.sampled_from([document, document["config"], result, result["out_of_place"]]))
    key = data.draw(st.sampled_from(sorted(target)))
    target[key] = data.draw(json_values)
    try:
        parse_nccl_tests(json.dumps(document))
    except NcclLogError:
        pass


@ROBUST
@given(cut=st.integers(1, 5000))
def test_truncated_json_raises_nccl_log_error(cut):
    with pytest.raises(NcclLogError):
        parse_nccl_tests(JSON_TEXT[: min(cut, len(JSON_TEXT) - 1)])


def test_deeply_nested_json():
    with pytest.raises(NcclLogError, match="nested too deeply"):
        parse_nccl_tests('{"results":' + "[" * 100_000 + "]" * 100_000 + "}")


# ---------------------------------------------------------------------------------------------
# Hostile input: linear time, bounded numbers, no NaN or infinity in the arrays
# ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def hang_guard(seconds: int):
    """Fail instead of hanging: the quadratic splitter this guards against took 90 s on 100 kB and
    hours on 1 MB; the linear one takes milliseconds, so the limit is a guard, not a benchmark."""

    def alarm(signum, frame):
        raise AssertionError(f"still parsing after {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def assert_arrays_finite_or_absent(run: NcclRun) -> None:
    """Each placement of each row is either absent (NaN, NaN, NaN) or finite with a positive time."""
    for time, algbw, busbw in (
        (run.time_us, run.algbw_gbps, run.busbw_gbps),
        (run.inplace_time_us, run.inplace_algbw_gbps, run.inplace_busbw_gbps),
    ):
        block = np.stack([time, algbw, busbw], axis=1)
        absent = np.isnan(block).all(axis=1)
        assert np.isfinite(block[~absent]).all()
        assert (block[~absent, 0] > 0).all() and (block[~absent] >= 0).all()
    assert not (np.isnan(run.time_us) & np.isnan(run.inplace_time_us)).any()


@pytest.mark.parametrize("length", [100_000, 1_000_000])
@pytest.mark.parametrize("token", ["x", "7", "-1.5", "a:1", "[1,0]"])
def test_long_token_before_an_nccl_marker_is_read_in_linear_time(length, token):
    long_line = (token * (length // len(token)))[:length]
    text = MODERN_TEXT + long_line + " NCCL INFO Channel 00/24 : 0 1\n" + long_line + " NCCL WARN " + long_line + "\n"
    with hang_guard(10):
        run = parse_nccl_tests(text)
    assert len(run.size_bytes) == 25
    (warn,) = [w for w in run.warnings if w.startswith("NCCL WARN")]
    assert len(warn) < 600  # the WARN text is quoted up to 200 characters, not 1 MB


def test_a_row_glued_to_an_nccl_message_keeps_its_values():
    # stdout and stderr interleave mid-row under NCCL_DEBUG=INFO (NVIDIA/nccl#1453); the message's
    # hostname prefix is found backwards from the marker, within a bounded window.
    lines = MODERN_TEXT.split("\n")
    index = line_number_of(MODERN_TEXT, "   1048576") - 1
    tokens = lines[index].split()
    lines[index] = "  ".join(tokens[:6]) + "dgx-h100-a07:2338417:2338478 [0] NCCL INFO connected"
    lines.insert(index + 1, "  ".join(tokens[6:]))
    run = parse_nccl_tests("\n".join(lines))
    assert_same_rows(run, parse_nccl_tests(MODERN_TEXT))


@pytest.mark.parametrize("length", [MAX_LINE_CHARS + 1, 100_000, 1_000_000])
def test_an_overlong_line_is_skipped_with_a_warning_that_names_it(length):
    lines = MODERN_TEXT.split("\n")
    lines.insert(3, "LS_COLORS=" + "x" * (length - 10))  # an environment dump in a job log
    with hang_guard(10):
        run = parse_nccl_tests("\n".join(lines))
    assert len(run.size_bytes) == 25
    assert f"line 4 is {length:,} characters long, more than the 4,096 any nccl-tests line needs, and was skipped" in (
        run.warnings
    )


@pytest.mark.parametrize("start", ["#  Rank  0 Group 0 ", "   1048576 ", "# Avg bus bandwidth : "])
def test_an_overlong_line_of_nccl_tests_output_is_an_error(start):
    lines = MODERN_TEXT.split("\n")
    lines.insert(12, start + "9" * 5000)
    with pytest.raises(NcclLogError, match="this line is 5,0..? characters long") as info:
        parse_nccl_tests("\n".join(lines))
    assert info.value.line_number == 13


def test_overlong_lines_only_give_a_clear_no_data_error():
    with pytest.raises(NcclLogError, match="line 2 is 200,000 characters long") as info:
        parse_nccl_tests("hello\n" + "z" * 200_000 + "\n")
    assert info.value.line_number is None and "no data rows found" in str(info.value)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("#  Rank " + "9" * 4000 + " Group  0 Pid 1 on h device 0 [0000:18:00] NVIDIA H100", "Rank '9999"),
        ("#  Rank " + "9" * 5000 + " Group  0 Pid 1 on h device 0 [0000:18:00] NVIDIA H100", "5,0"),
        ("#  Rank 2147483648 Group  0 Pid 1 on h device 0 [0000:18:00] NVIDIA H100", "at most 2,147,483,647"),
        ("#  Rank " + "1" * 40, "Rank '1111"),
        ("# nThread " + "1" * 4000 + " nGpus 8 minBytes 8 maxBytes 1024 step: 2(factor)", "nThread '1111"),
        ("# nThread 1 nGpus 99999999999 minBytes 8", "nGpus '99999999999'"),
    ],
)
def test_giant_numbers_in_the_preamble_are_nccl_log_errors(line, message):
    text = "# Collective test starting: all_reduce_perf\n" + line + "\n" + HEADER + ROW_1MIB + "\n"
    with pytest.raises(NcclLogError, match=re.escape(message)) as info:
        parse_nccl_tests(text)
    assert info.value.line_number == 2
    assert len(str(info.value)) < 300  # the number is quoted shortened


@pytest.mark.parametrize("digits", [40, 3900])
def test_giant_sizes_in_a_row_are_nccl_log_errors(digits):
    bad = damaged(0, "9" * digits)
    with pytest.raises(NcclLogError, match="size '9999.*is too large") as info:
        parse_nccl_tests(HEADER + ROW_1MIB + "\n" + bad + "\n")
    assert info.value.line_number == 4 and len(str(info.value)) < 300


def test_json_integer_over_4300_digits_is_an_nccl_log_error():
    text = JSON_TEXT.replace('"size":2097152,', '"size":' + "9" * 5000 + ",")
    with pytest.raises(NcclLogError, match="a number of 5,000 digits") as info:
        parse_nccl_tests(text)
    assert info.value.line_number == 1
    pretty = json.dumps(json.loads(JSON_TEXT), indent=1).replace('"time": 82.064135', '"time": ' + "1" * 4400)
    with pytest.raises(NcclLogError, match="a number of 4,400 digits") as info:
        parse_nccl_tests(pretty)
    assert info.value.line_number == line_number_of(pretty, "1" * 4400)


def test_json_with_bare_inf_and_a_giant_integer_is_an_nccl_log_error():
    # found by benchmarks/fuzz_logs.py: the bare-inf repair reads on and meets the long number
    text = JSON_TEXT.replace('"bus_bw":47.915694', '"bus_bw":inf').replace('"size":4194304', '"size":' + "9" * 5000)
    with pytest.raises(NcclLogError, match="a number of 5,000 digits"):
        parse_nccl_tests(text)


@pytest.mark.parametrize("field", ["time", "alg_bw", "nwrong"])
def test_json_number_of_400_digits_is_an_nccl_log_error(field):
    text = JSON_TEXT.replace(f'"{field}":82.064135' if field == "time" else "", "")
    document = json.loads(JSON_TEXT)
    document["results"][1]["out_of_place"][field] = int("1" * 400)
    with pytest.raises(NcclLogError, match=rf"results\[1\]\.out_of_place\.{field} is a 400-digit number"):
        parse_nccl_tests(json.dumps(document))
    assert text  # the document above is the fixture with one number replaced


def test_json_giant_counts_outside_the_results_are_harmless():
    document = json.loads(JSON_TEXT)
    document["out_of_bounds"]["count"] = int("7" * 400)
    document["config"]["nthreads"] = 10**30
    document["version"] = 10**4000
    run = parse_nccl_tests(json.dumps(document))
    assert any("a 400-digit number out-of-bounds values" in w for w in run.warnings)
    assert "JSON file version a 4,001-digit number is newer than version 3 this reader was written for" in run.warnings
    assert (run.ranks, run.ranks_source) == (2, "json devices")  # nthreads out of range: one rank per entry


@pytest.mark.parametrize(
    ("value", "column"),
    [(v, c) for v in ["nan", "inf", "1e999", "-nan", "Infinity"] for c in [5, 6, 7, 9, 10, 11]]
    + [(v, c) for v in ["0", "0.00"] for c in [5, 9]],  # zero times; a bandwidth of 0.00 is normal (8 B in 60 us)
)
def test_non_finite_or_zero_time_rows_are_skipped_with_a_warning(value, column):
    zero_time = value in ("0", "0.00")
    good = nccl_row(2097152, 524288, "float", "sum", -1, "12.10", "173.31", "303.29", 0, "12.00", "174.76", "305.83", 0)
    bad = damaged(column, value)
    run = parse_nccl_tests(HEADER + good + "\n" + bad + "\n" + good + "\n")
    assert len(run.size_bytes) == 2 and run.size_bytes.tolist() == [2097152, 2097152]
    assert_arrays_finite_or_absent(run)
    (message,) = [w for w in run.warnings if "skipped" in w]
    name = ["time", "algbw", "busbw"][(column - 5) % 4]
    why = "is zero" if zero_time else "is not a finite number"
    assert message == (
        f"1 data row was skipped because a value is NaN, infinite or a zero time (line 4: {name} '{value}' {why})"
    )


def test_nan_count_skips_the_row_and_nan_size_is_not_a_row():
    good = nccl_row(2097152, 524288, "float", "sum", -1, "12.10", "173.31", "303.29", 0, "12.00", "174.76", "305.83", 0)
    run = parse_nccl_tests(HEADER + good + "\n" + damaged(1, "nan") + "\n" + damaged(0, "inf") + "\n")
    assert run.size_bytes.tolist() == [2097152]
    assert any("line 4: count 'nan' is not a finite number" in w for w in run.warnings)
    assert any("not recognised" in w and "line 5" in w for w in run.warnings)


def test_a_log_of_only_unusable_rows_is_an_error_naming_the_first():
    text = HEADER + damaged(5, "nan") + "\n" + damaged(9, "0") + "\n"
    with pytest.raises(NcclLogError) as info:
        parse_nccl_tests(text)
    assert info.value.line_number == 3
    assert str(info.value) == (
        "line 3: no usable data rows: time 'nan' is not a finite number, "
        "and the other data row has NaN, infinite or zero values too"
    )


def test_a_json_of_only_unusable_results_is_an_error():
    document = json.loads(JSON_TEXT)
    for result in document["results"]:
        result["in_place"]["time"] = "nan"
    with pytest.raises(NcclLogError, match=r"^no usable results: results\[0\]\.in_place\.time is 'nan'"):
        parse_nccl_tests(json.dumps(document))


def test_2017_layout_time_that_overflows_microseconds_is_skipped():
    header = "#  bytes    N    type    op     time  algbw  busbw    res\n"
    rows = "  1048576   262144   float   sum   1.50   0.70   1.22  0e+00\n"
    rows += "  2097152   524288   float   sum   1e306   1.39   2.43  0e+00\n"
    run = parse_nccl_tests(header + rows)
    assert run.size_bytes.tolist() == [1048576] and run.time_us.tolist() == [1500.0]
    assert any("line 3: time '1e306' ms is out of range" in w for w in run.warnings)


@pytest.mark.parametrize("line", ["", "x", "# x", "h:1:2 [0] NCCL INFO x"])
def test_millions_of_short_lines_are_refused_before_reading_them(line):
    # 5 MiB of "x\n" is 2.6 million lines: about 6 us each to examine, 16 s in all
    text = ROW_1MIB + "\n" + "\n".join([line] * (2 * MAX_LINES))
    with pytest.raises(NcclLogError, match=r"^the log has 200,001 lines; .*this reader stops at 100,000"):
        parse_nccl_tests(text)
    if line != "x":  # (100,000 unrecognised lines are refused too, below)
        assert len(parse_nccl_tests(ROW_1MIB + "\n" + "\n".join([line] * (MAX_LINES - 1))).size_bytes) == 1


def test_more_data_rows_than_any_sweep_are_refused():
    with pytest.raises(NcclLogError, match="more than 20,000 data rows") as info:
        parse_nccl_tests(HEADER + "\n".join([ROW_1MIB] * (MAX_ROWS + 1)))
    assert info.value.line_number == MAX_ROWS + 3
    assert len(parse_nccl_tests(HEADER + "\n".join([ROW_1MIB] * MAX_ROWS)).size_bytes) == MAX_ROWS
    result = {"size": 8, "in_place": {"time": 8.5, "alg_bw": 0.0, "bus_bw": 0.0}}
    with pytest.raises(NcclLogError, match=r"the JSON has 20,001 results"):
        parse_nccl_tests(json.dumps({"results": [result] * (MAX_ROWS + 1)}))


@pytest.mark.parametrize("prefix", ["2024-07-18T10:00:00.123Z ", "0: ", "[1,0]<stdout>:2024-07-18T10:00:00Z "])
def test_launcher_prefixes_of_nccl_messages_are_not_unrecognised_lines(prefix):
    # kubectl logs --timestamps (or srun --label) on a run with NCCL_DEBUG=INFO: thousands of messages,
    # each with a prefix before NCCL's own "host:pid:tid [dev]"
    message = prefix + "dgx-h100-a07:2338417:2338478 [0] NCCL INFO Channel 00/24 : 0 1 2 3 4 5 6 7\n"
    run = parse_nccl_tests(message * 20_000 + prefix + ROW_1MIB + "\n")
    assert len(run.size_bytes) == 1
    assert not any("not recognised" in w for w in run.warnings)


def test_lines_whose_prefixes_must_be_taken_off_one_by_one_count_double():
    # each prefix costs as much to examine as a line: 100,000 lines of "node-1: # x" took 1-2 s
    text = ROW_1MIB + "\n" + "\n".join(["node-1: # x"] * 60_000)
    with pytest.raises(NcclLogError, match=r"^line 50,?001: the log is too long to read: more than 100,000 lines and"):
        parse_nccl_tests(text)
    assert len(parse_nccl_tests(ROW_1MIB + "\n" + "\n".join(["node-1: # x"] * 49_000)).size_bytes) == 1


@pytest.mark.parametrize("line", ["x", "8.52 123.07", "./build/all_reduce_perf -b 8 -e 1G"])
def test_a_flood_of_other_lines_is_refused(line):
    text = HEADER + ROW_1MIB + "\n" + "\n".join([line] * 10_001)
    with pytest.raises(NcclLogError, match=r"^more than 10,000 lines are not nccl-tests output \(line 10004: "):
        parse_nccl_tests(text)


def test_warnings_are_capped():
    good = nccl_row(2097152, 524288, "float", "sum", -1, "12.10", "173.31", "303.29", 0, "12.00", "174.76", "305.83", 0)
    rows = "".join(damaged(2, f"type{i}") + "\n" for i in range(500))  # an unfamiliar type on every row
    run = parse_nccl_tests(HEADER + good + "\n" + rows)
    assert len(run.warnings) == 20 and run.warnings[-1].endswith("more warnings are not shown")


# ---------------------------------------------------------------------------------------------
# Truncated logs and where the rank count came from (issue 8)
# ---------------------------------------------------------------------------------------------


def cut_after(text: str, needle: str) -> str:
    """``text`` up to and including the line holding ``needle``: a log whose run stopped there."""
    lines = text.split("\n")
    return "\n".join(lines[: line_number_of(text, needle)]) + "\n"


def test_truncated_log_is_a_warning():
    # the header asks for 8 B .. 128 MiB (-b 8 -e 128M -f 2); the rows stop at 512 KiB
    run = parse_nccl_tests(cut_after(MODERN_TEXT, "      524288"))
    assert run.size_bytes.max() == 524288
    (message,) = [w for w in run.warnings if "truncated" in w]
    assert message == (
        "the log looks truncated: the header (line 3) asks for sizes up to 128 MiB (maxBytes 134217728) "
        "but the rows stop at 512 KiB; did the run stop early, or was only part of its output copied?"
    )


def test_a_log_missing_only_its_last_size_is_truncated_too():
    run = parse_nccl_tests(cut_after(MODERN_TEXT, "    67108864"))
    assert any("stop at 64 MiB" in w for w in run.warnings)


def test_a_last_row_skipped_for_a_nan_is_not_a_truncation():
    lines = MODERN_TEXT.split("\n")
    last = line_number_of(MODERN_TEXT, "   134217728") - 1
    lines[last] = lines[last].replace("663.19", "   inf", 1)  # a time nccl-tests could not measure
    run = parse_nccl_tests("\n".join(lines))
    assert run.size_bytes.max() == 67108864
    assert any(f"line {last + 1}: time" in w and "skipped" in w for w in run.warnings)
    assert not any("truncated" in w for w in run.warnings)


def test_complete_sweeps_are_not_called_truncated():
    for name in TEXT_FIXTURES:
        assert not any("truncated" in w for w in parse_file(name).warnings), name
    # nccl-tests lowers maxBytes to what fits in GPU memory and says so (src/common.cu)
    text = MODERN_TEXT.replace("# Using devices", "#\n# Reducing maxBytes to 600000 due to memory limitation\n#")
    assert not any("truncated" in w for w in parse_nccl_tests(cut_after(text, "      524288")).warnings)
    # -i: fixed steps in bytes; 8 + 3 x 1000000 is the last size up to maxBytes 3500000
    header = "# nThread 1 nGpus 8 minBytes 8 maxBytes 3500000 step: 1000000(bytes) warmup iters: 5\n" + HEADER
    rows = [ROW_1MIB.replace("1048576", str(8 + k * 1000000), 1) for k in range(4)]
    assert not any("truncated" in w for w in parse_nccl_tests(header + "\n".join(rows)).warnings)
    truncated = parse_nccl_tests(header + "\n".join(rows[:3]))
    assert any("asks for sizes up to 2.86 MiB" in w and "stop at 1.91 MiB" in w for w in truncated.warnings)


def test_each_data_type_of_a_sweep_is_checked():
    # -d all repeats the sweep per data type: the second one stopping early is a truncated log
    header = "# nThread 1 nGpus 8 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5\n" + HEADER
    rows = [
        ROW_1MIB,
        ROW_1MIB.replace("1048576", "2097152", 1),
        ROW_1MIB.replace("float", "half", 1),
    ]
    run = parse_nccl_tests(header + "\n".join(rows))
    assert any("truncated" in w and "the half/sum rows stop at 1 MiB" in w for w in run.warnings)


def test_truncated_json_results_are_a_warning():
    document = json.loads(JSON_TEXT)
    del document["results"][5:]
    run = parse_nccl_tests(json.dumps(document))
    assert any(
        w.startswith("the log looks truncated: the JSON config asks for sizes up to 8 GiB") and "stop at 16 MiB" in w
        for w in run.warnings
    )


def test_json_rank_count_from_devices_gives_no_median_warning():
    # rows whose busbw/algbw ratios disagree beyond JSON's 6 decimals: the estimate is unused
    # because the device list gives the count, so no message may call the count "estimated"
    document = json.loads(JSON_TEXT)
    document["results"][3]["out_of_place"]["bus_bw"] *= 1.001
    run = parse_nccl_tests(json.dumps(document))
    assert (run.ranks, run.ranks_source) == (16, "json devices")
    assert not any("median" in w for w in run.warnings)
    # without the device list the estimate is the count used, and the message says so
    del document["config"]["devices"]
    run = parse_nccl_tests(json.dumps(document))
    assert run.ranks_source == "inferred from busbw/algbw"
    assert any("the rank count was inferred from the median ratio" in w for w in run.warnings)


# ---------------------------------------------------------------------------------------------
# One size limit for pasted and uploaded logs
# ---------------------------------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[3]


def test_the_upload_ceiling_lets_every_log_the_parser_accepts_through():
    # Streamlit 1.67 multiplies server.maxUploadSize by 1024 x 1024 on the server
    # (web/server/starlette/starlette_routes.py) and by 1000 x 1000 in the browser, except on
    # Windows (the frontend's byte-unit conversion). 5 is 5,000,000 bytes in most browsers, short of
    # the parser's 5 MiB: a 5.1 MB log could be pasted but not uploaded.
    megabytes = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    assert megabytes * 1_000_000 >= MAX_LOG_BYTES and megabytes * 2**20 >= MAX_LOG_BYTES
    assert (megabytes - 1) * 1_000_000 < MAX_LOG_BYTES  # the smallest such ceiling


def test_the_page_states_and_enforces_the_parser_limit():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("pages/2_All_reduce.py")
    at.run()
    (uploader,) = at.get("file_uploader")
    assert uploader.proto.label == "nccl-tests output (up to 5 MiB)"
    megabytes = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    assert uploader.proto.max_upload_size_mb == megabytes
    assert at.text_area(key="allreduce.paste").proto.max_chars == MAX_LOG_BYTES
    # within the box's character limit but over the byte limit: the parser's message gives the limit
    at.text_area(key="allreduce.paste").input("\u00e9" * 2_700_000).run()  # 5,400,000 bytes of UTF-8
    (error,) = at.error
    assert error.value.startswith("Could not read this as nccl-tests output: the log is 5")
    assert error.value.endswith("MiB; the limit is 5 MiB")


# ---------------------------------------------------------------------------------------------
# Mutation fuzzing, a fast subset of benchmarks/fuzz_logs.py
# ---------------------------------------------------------------------------------------------

SAMPLES = [(DATA / name).read_text(encoding="utf-8") for name in TEXT_FIXTURES + sorted(CALIBRATION) + [JSON_FILE]]
SAMPLES += [
    path.read_text(encoding="utf-8") for path in sorted((REPO / "interconnect/data/measurements").glob("*.txt"))
]
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
HOSTILE_VALUES = ["nan", "inf", "-inf", "1e999", "0", "0.00", "NaN", '"nan"', "9" * 400, "9" * 5000, "1" * 40]


@st.composite
def mutated_logs(draw) -> str | bytes:
    text = draw(st.sampled_from(SAMPLES))
    for _ in range(draw(st.integers(1, 3))):
        lines = text.split("\n")
        kind = draw(
            st.sampled_from(
                ["truncate", "delete", "duplicate", "swap", "value", "value", "long", "junk", "nccl", "collective"]
            )
        )
        if kind == "truncate":
            text = text[: draw(st.integers(0, len(text)))]
        elif kind == "delete":
            del lines[draw(st.integers(0, len(lines) - 1))]
            text = "\n".join(lines)
        elif kind == "duplicate":
            lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(lines)))
            text = "\n".join(lines)
        elif kind == "swap":
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif kind == "value":
            numbers = list(NUMBER.finditer(text))
            if numbers:
                target = draw(st.sampled_from(numbers))
                text = text[: target.start()] + draw(st.sampled_from(HOSTILE_VALUES)) + text[target.end() :]
        elif kind == "long":
            unit = draw(st.sampled_from(["x", "7", "a:1", "[1,0]", "# ", "-1.5 "]))
            line = unit * (draw(st.sampled_from([MAX_LINE_CHARS, 30_000, 100_000])) // len(unit) + 1)
            lines.insert(
                draw(st.integers(0, len(lines))), line + draw(st.sampled_from(["", " NCCL INFO x", " NCCL WARN"]))
            )
            text = "\n".join(lines)
        elif kind == "junk":
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.text(max_size=40)) + text[at:]
        elif kind == "nccl":
            i = draw(st.integers(0, len(lines) - 1))
            lines[i] += draw(
                st.sampled_from(["host:1:2 [0] NCCL INFO x", "h:1:2 [3] net.cc:9 NCCL WARN y", "NCCL INFO"])
            )
            text = "\n".join(lines)
        else:
            other = draw(st.sampled_from(SAMPLES))
            text = text + "\n" + other if draw(st.booleans()) else "\n".join(lines + other.split("\n")[:20])
    encoding = draw(st.sampled_from([None, None, None, "utf-8", "utf-16", "utf-32", "latin-1"]))
    return text if encoding is None else text.encode(encoding, errors="replace")


@settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=mutated_logs())
def test_mutated_logs_give_finite_runs_or_nccl_log_errors(data):
    try:
        run = parse_nccl_tests(data)
    except NcclLogError as error:
        assert len(str(error)) < 1000
        return
    assert len(run.size_bytes) >= 1
    assert_arrays_finite_or_absent(run)
    assert len(run.warnings) <= 20 and all(len(w) < 1000 for w in run.warnings)
    assert run.ranks is None or 1 <= run.ranks <= 2**31


# ---------------------------------------------------------------------------------------------
# Impossible rows are refused, one by one, with the row and why (issue 21)
# ---------------------------------------------------------------------------------------------

EIGHT_H100 = "nccl-tests-2.19-all_reduce-8xH100.log"
# Line 61 of that log: 1 MiB in 22.56 µs, algbw 46.48 GB/s, busbw 81.34 GB/s (x 1.75: 8 ranks).


def with_row_61(*values: str) -> str:
    """The 8 x H100 log with line 61's two placements (time, algbw, busbw) replaced by ``values``."""
    text = read_text(EIGHT_H100)
    original = re.search(r"^ +1048576 +262144 .*$", text, flags=re.M).group(0)
    t, a, b = values
    return text.replace(original, nccl_row(1048576, 262144, "float", "sum", -1, t, a, b, 0, t, a, b, 0))


@pytest.mark.parametrize(("values", "why"), [
    (("1e308", "1.00", "1.75"), "over 1,000 s"),
    (("1e-30", "1.00", "1.75"), "under a nanosecond"),
    (("1e-320", "1.00", "1.75"), "under a nanosecond"),
    (("22.56", "67.00", "0.00"), "busbw 0 GB/s beside algbw 67 GB/s"),
    (("22.56", "4648.00", "8134.00"), "size/time is 46.5 GB/s"),
    (("0.0010", "1048576.00", "1835008.00"), "orders of magnitude beyond any link"),
])
def test_an_impossible_row_is_refused_with_its_line_and_why(values, why):
    good = parse_nccl_tests(read_text(EIGHT_H100))
    run = parse_nccl_tests(with_row_61(*values))
    (refusal,) = [w for w in run.warnings if "refused" in w]
    assert "line 61" in refusal and why in refusal, refusal
    assert 1048576 not in run.size_bytes and run.size_bytes.size == good.size_bytes.size - 1


@pytest.mark.parametrize("time_us", ["1e308", "1e-30"])
def test_a_log_of_only_impossible_rows_is_refused_whole(time_us):
    text = read_text(EIGHT_H100)
    rows = re.findall(r"^ +(\d+) +(\d+) +float +sum +-1 .*$", text, flags=re.M)
    lines = [nccl_row(s, c, "float", "sum", -1, time_us, "0.00", "0.00", 0, time_us, "0.00", "0.00", 0)
             for s, c in rows]
    with pytest.raises(NcclLogError, match="every row is impossible"):
        parse_nccl_tests("# Collective test starting: all_reduce_perf\n" + "\n".join(lines))


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.iterdir() if p.suffix in (".txt", ".log", ".json")))
def test_no_row_of_a_real_log_is_refused(name):
    assert not [w for w in parse_file(name).warnings if "refused" in w]


def test_the_rate_bound_is_far_beyond_every_catalogued_link_and_memory():
    from interconnect.catalog import Link, get_catalog
    from interconnect.io.nccl_tests import MAX_ROW_RATE_GBPS

    catalog = get_catalog()
    fastest = max([e.bandwidth.quantity.to("GB/s").magnitude for e in catalog.entries() if isinstance(e, Link)]
                  + [g.memory_bandwidth.quantity.to("GB/s").magnitude for g in catalog.gpus.values()]
                  + [g.scaleup_bandwidth.quantity.to("GB/s").magnitude for g in catalog.gpus.values()])
    assert 10 * fastest <= MAX_ROW_RATE_GBPS


def test_one_listed_rank_with_a_busbw_is_not_one_rank():
    # issue: a 2-node rccl-tests log under MPI lists only its own process's GPU ("1 ranks"), while its busbw/algbw
    # says 16; one rank cannot have a non-zero busbw, so the listing must not win
    from interconnect.io.nccl_tests import parse_nccl_tests

    rows = []
    for size, algbw in ((16777216, 40.12), (67108864, 80.44), (268435456, 120.00), (1073741824, 150.40)):
        busbw = algbw * 2 * 15 / 16
        time_us = size / algbw / 1e3
        rows.append(f"{size:>12} {size // 2:>13}  bfloat16     sum      -1 {time_us:8.1f} {algbw:7.2f} {busbw:7.2f}"
                    f"      0 {time_us:8.1f} {algbw:7.2f} {busbw:7.2f}      0")
    log = "\n".join([
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
        "validation: 1 graph: 0",
        "#",
        "rccl-tests: Version develop:ae3e635",
        "# Using devices",
        "#   Rank  0 Pid 412345 on mi300x-node-01 device  0 [0000:05:00.0] AMD Instinct MI300X",
        "#",
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
        "#wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
        *rows,
    ]) + "\n"
    run = parse_nccl_tests(log)
    assert run.ranks == 16, (run.ranks, run.ranks_source)
    assert any("one rank cannot have a non-zero busbw" in w for w in run.warnings)
