"""Logs as people have them (issue 24): cut short, several runs in one file, and the launch mode in the header."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from interconnect.io.nccl_tests import MAX_RUNS, NcclLogError, parse_nccl_runs, parse_nccl_tests

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl_logs"
MI300X = (DATA / "rccl-tests-all_reduce-8xMI300X.log").read_text()
H100 = (DATA / "nccl-tests-2.19-all_reduce-8xH100.log").read_text()
GATHER = (DATA / "nccl-tests-2.19-all_gather-2node-socket.log").read_text()


def _cut_inside_row(text: str, row: int, keep_chars: int) -> str:
    """The log up to its ``row``-th data row, which is cut after ``keep_chars`` characters."""
    lines = text.splitlines()
    rows = [i for i, line in enumerate(lines) if line.strip()[:1].isdigit()]
    cut = rows[row]
    return "\n".join(lines[:cut] + [lines[cut][:keep_chars]])


def test_a_log_cut_inside_a_row_keeps_every_complete_row_and_says_so() -> None:
    whole = parse_nccl_tests(MI300X)
    run = parse_nccl_tests(_cut_inside_row(MI300X, 14, 40))
    assert run.size_bytes.tolist() == whole.size_bytes[:14].tolist()
    np.testing.assert_array_equal(run.time_us, whole.time_us[:14])
    assert "ends in the middle of a row" in run.warnings[0]
    assert "14 complete rows" in run.warnings[0]


def test_a_cut_row_in_the_middle_of_a_log_is_still_refused() -> None:
    lines = MI300X.splitlines()
    first = next(i for i, line in enumerate(lines) if line.strip()[:1].isdigit())
    lines[first + 3] = lines[first + 3][:40]
    with pytest.raises(NcclLogError, match="expected 13 columns"):
        parse_nccl_tests("\n".join(lines))


def test_a_log_of_one_cut_row_is_refused() -> None:
    lines = MI300X.splitlines()
    first = next(i for i, line in enumerate(lines) if line.strip()[:1].isdigit())
    with pytest.raises(NcclLogError):
        parse_nccl_tests("\n".join(lines[:first] + [lines[first][:30]]))


def test_two_runs_pasted_together_come_back_as_two_runs_each_with_its_header() -> None:
    runs = parse_nccl_runs(MI300X + "\n" + H100)
    assert [len(run.size_bytes) for run in runs] == [len(parse_nccl_tests(MI300X).size_bytes),
                                                      len(parse_nccl_tests(H100).size_bytes)]
    assert runs[0].gpu_names[0] == "AMD Instinct MI300X"
    assert runs[1].gpu_names[0] == "NVIDIA H100 80GB HBM3"
    assert runs[1].collective == "all_reduce_perf"
    assert not any("more than one result table" in w for run in runs for w in run.warnings)


def test_a_sweep_over_collectives_keeps_each_collective() -> None:
    runs = parse_nccl_runs(H100 + "\n" + GATHER + "\n" + H100)
    assert [run.collective for run in runs] == ["all_reduce_perf", parse_nccl_tests(GATHER).collective,
                                                "all_reduce_perf"]
    assert runs[1].ranks == parse_nccl_tests(GATHER).ranks


def test_one_run_is_one_run_and_the_first_table_is_what_parse_nccl_tests_reads() -> None:
    assert len(parse_nccl_runs(H100)) == 1
    first = parse_nccl_runs(MI300X + "\n" + H100)[0]
    np.testing.assert_array_equal(first.time_us, parse_nccl_tests(MI300X + "\n" + H100).time_us)


def test_a_bad_second_run_is_refused_naming_it() -> None:
    lines = H100.splitlines()
    rows = [i for i, line in enumerate(lines) if line.strip()[:1].isdigit() and "float" in line]
    lines[rows[5]] = lines[rows[5]].replace("float", "float 7 7")
    with pytest.raises(NcclLogError, match="run 2 of the file"):
        parse_nccl_runs(MI300X + "\n" + "\n".join(lines))


def test_too_many_runs_are_refused() -> None:
    header = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong"
    row = "1048576 262144 float sum -1 8.52 123.07 215.37 0 8.41 124.68 218.19 0"
    with pytest.raises(NcclLogError, match=f"more than {MAX_RUNS}"):
        parse_nccl_runs("\n".join([header, row] * (MAX_RUNS + 1)))


@pytest.mark.parametrize(("text", "expected"), [(MI300X, 8), (H100, 8), (GATHER, 1)])
def test_the_header_says_how_many_gpus_one_process_drives(text: str, expected: int) -> None:
    # nThread x nGpus of the header line: "nThread 1 nGpus 8" is one process driving all eight (-g 8).
    assert parse_nccl_tests(text).gpus_per_process == expected


def test_the_json_config_says_it_too() -> None:
    # nccl-tests -J writes config.nthreads and config.ngpus (1 and 8 in this file: -g 8).
    data = (DATA / "nccl-tests-2.19-all_reduce-2x8xH100.json").read_bytes()
    assert parse_nccl_tests(data).gpus_per_process == 8


def test_a_log_without_the_header_line_does_not_guess_the_launch() -> None:
    assert parse_nccl_tests("1048576 262144 float sum -1 8.52 123.07 215.37 0 8.41 124.68 218.19 0"
                            ).gpus_per_process is None
