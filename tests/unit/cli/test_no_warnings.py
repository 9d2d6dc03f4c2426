"""The command line as a shell sees it (issue 21): errors are one line, a run that succeeds prints no
numpy warnings, and ``overlap --bucket`` clamps as the Overlap page does, with the page's message.

Run in a subprocess: pytest captures Python warnings itself, so only a real process shows whether a
RuntimeWarning would reach the terminal.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LOG = ROOT / "tests" / "unit" / "data" / "nccl_logs" / "nccl-tests-2.19-all_reduce-8xH100.log"


def interconnect(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "interconnect", *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False)


def assert_quiet(stderr: str) -> None:
    assert "Traceback" not in stderr and "RuntimeWarning" not in stderr, stderr
    assert all(line.startswith("interconnect: ") for line in stderr.splitlines()), stderr


@pytest.mark.parametrize("bucket", ["1 B", "1e-320 B"])
def test_a_bucket_below_the_pages_minimum_is_clamped_with_the_pages_message(bucket):
    done = interconnect("overlap", "--bucket", bucket)
    assert done.returncode == 0
    assert_quiet(done.stderr)
    assert f"--bucket: below the minimum 1 KiB (got '{bucket}'); using 1 KiB" in done.stderr


def test_a_wan_bandwidth_below_the_pages_minimum_is_one_error_line():
    done = interconnect("crossdc", "--wan-bandwidth", "1e-320 Gbit/s")
    assert done.returncode == 2 and done.stdout == ""
    expected = "interconnect: error: --wan-bandwidth: below the minimum 1 kbit/s (got '1e-320 Gbit/s')"
    assert done.stderr.strip() == expected


def test_compare_on_a_denormal_log_prints_no_numpy_warning(tmp_path):
    text = LOG.read_text(encoding="utf-8")
    denormal = re.sub(r"(?m)^( +1048576 +262144 +float +sum +-1 +)\S+", r"\g<1>1e-320", text)
    assert denormal != text
    path = tmp_path / "denormal.log"
    path.write_text(denormal, encoding="utf-8")
    done = interconnect("compare", str(path), "--gpus-per-node", "8", "--nodes", "1")
    assert done.returncode == 0
    assert_quiet(done.stderr)
    assert "line 61 (out-of-place): time 1e-320 µs is under a nanosecond" in done.stderr
