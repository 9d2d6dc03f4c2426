"""How long a fresh Python process takes to import the core and load the catalog (prints, asserts nothing).

This is the cost every new server process, CLI call and test worker pays before its first page:
the pint registry, the TOML files and their strict checks. Each run is a new interpreter, so
nothing is cached in memory (the operating system's file cache is warm after the first run).

Run from the repository root: ``.venv/bin/python benchmarks/import_speed.py [runs]``.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5

CHILD = """
import json, time
start = time.perf_counter()
import interconnect.catalog
catalog = interconnect.catalog.get_catalog()
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "entries": len(catalog.entries()), "gpus": len(catalog.gpus),
                  "links": len(catalog.links), "nodes": len(catalog.nodes), "sources": len(catalog.sources)}))
"""


def one_run() -> tuple[float, float, dict]:
    """(import + load seconds inside the child, whole process seconds, catalog counts)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, check=False)
    process_s = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"importing interconnect.catalog failed:\n{done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result.pop("seconds"), process_s, result


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else RUNS
    results = [one_run() for _ in range(runs)]
    inside = [seconds for seconds, _, _ in results]
    process = [seconds for _, seconds, _ in results]
    counts = results[-1][2]
    print(f"import interconnect + load catalog (cold process): median {statistics.median(inside):.2f} s "
          f"({runs} runs; target < 1 s; slowest {max(inside):.2f} s)")
    print(f"whole process including interpreter start: median {statistics.median(process):.2f} s")
    print(f"catalog: {counts['entries']} entries ({counts['gpus']} GPUs, {counts['links']} links, "
          f"{counts['nodes']} nodes) citing {counts['sources']} sources")


if __name__ == "__main__":
    main()
