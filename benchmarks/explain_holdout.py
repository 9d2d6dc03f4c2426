"""How many held-out logs of tests/data/nccl_debug_logs get every verdict right: one summary line, nothing per log.

The held-out logs (``holdout = true`` in manifest.toml) are not for tuning the reader: this prints only the count,
never which logs miss or on what. Run it at most twice per change (before and after).

    PYTHONPATH=. python benchmarks/explain_holdout.py
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    path = ROOT / "tests" / "topics" / "explain" / "test_logs.py"
    spec = importlib.util.spec_from_file_location("explain_logs", path)
    logs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(logs)
    matching = sum(all(want == got for _, want, got in logs._verdicts(entry)) for entry in logs.HOLDOUT)
    print(f"held-out logs matching every verdict: {matching} of {len(logs.HOLDOUT)}")


if __name__ == "__main__":
    main()
