"""Fuzz every page's link parameters with hostile values and print what happened (asserts nothing).

For each page of the app (``interconnect.ui.page.PAGES``), the keys the page writes to the address
bar are read from one default run; then each case sets one or several of those keys (and sometimes
keys no page knows) to values from ``interconnect.testing.HOSTILE_VALUES`` or random junk, runs the
page in Streamlit's AppTest as a cold deep link, and records whether it raised and how long it took.

Targets (issue: hardening): 0 exceptions, every case under 1 s.

Run from the repository root: ``.venv/bin/python benchmarks/fuzz_urls.py [--cases N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from interconnect.testing import HOSTILE_VALUES  # noqa: E402
from interconnect.ui.page import PAGES, page_exists  # noqa: E402

TARGET_S = 1.0
#: A case over the target is timed this many more times: a case slow because of its input is slow
#: every time, one that met a busy moment of the machine is not. Its best time is what counts.
RETIMES = 3


def run(page: str | None, query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    if page:
        at.switch_page(page)
    at.run()
    return at


def timed(page: str | None, query: dict[str, str]) -> float:
    started = time.perf_counter()
    run(page, query)
    return time.perf_counter() - started


#: A custom GPU's keys, written to the address bar only while ``gpu=custom`` (so not in a default run).
CUSTOM_KEYS = ("gpu_base", "gpu_bw", "gpu_name", "nic_bw")


def page_keys(page: str | None) -> list[str]:
    keys = set(run(page, {}).query_params)
    if "gpu" in keys:
        keys.update(CUSTOM_KEYS)
    return sorted(keys)


def random_junk(rng: random.Random) -> str:
    alphabet = "0123456789eE.+-^*/ ()<>`$[]_abcGBitMKTsµ\u202e\x00🚀%&=#"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60)))


def cases_for(keys: list[str], count: int, rng: random.Random) -> list[dict[str, str]]:
    cases: list[dict[str, str]] = []
    for key in keys:  # every key with every hostile value, as far as the budget goes
        for value in HOSTILE_VALUES:
            cases.append({key: value})
    rng.shuffle(cases)
    cases = cases[: count // 2]
    while len(cases) < count:
        chosen = rng.sample(keys, k=rng.randint(1, len(keys))) if keys else []
        case = {key: (rng.choice(HOSTILE_VALUES) if rng.random() < 0.6 else random_junk(rng)) for key in chosen}
        if rng.random() < 0.2:
            case[random_junk(rng)[:20] or "x"] = rng.choice(HOSTILE_VALUES)
        cases.append(case)
    for case in cases:  # a custom GPU's keys count with gpu=custom (and nic_bw with nic=custom)
        if set(case) & set(CUSTOM_KEYS) and "gpu" not in case:
            case.update(gpu="custom", nic="custom")
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000, help="cases across all pages (default 1000)")
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args()
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    rng = random.Random(args.seed)
    pages = [(name, script if script != "app.py" else None) for name, (script, _) in PAGES.items() if page_exists(name)]
    per_page = max(1, args.cases // len(pages))
    total, exceptions, slowest, over = 0, [], (0.0, "", {}), []
    print(f"{'page':<14} {'cases':>6} {'exceptions':>10} {'median ms':>10} {'max ms':>8}")
    for name, script in pages:
        keys = page_keys(script)
        times = []
        for case in cases_for(keys, per_page, rng):
            started = time.perf_counter()
            try:
                at = run(script, case)
                failed = bool(at.exception)
                detail = at.exception[0].value if failed else ""
            except Exception as exc:  # AppTest itself failed: count it too
                failed, detail = True, repr(exc)
            elapsed = time.perf_counter() - started
            times.append(elapsed)
            total += 1
            if failed:
                exceptions.append((name, case, detail))
            if elapsed > slowest[0]:
                slowest = (elapsed, name, case)
            if elapsed > TARGET_S:
                over.append((name, script, case, elapsed))
        times.sort()
        print(f"{name:<14} {len(times):>6} {sum(1 for e in exceptions if e[0] == name):>10} "
              f"{1000 * times[len(times) // 2]:>10.0f} {1000 * times[-1]:>8.0f}")
    print(f"cases: {total}; exceptions: {len(exceptions)} (target 0); slowest: {slowest[0]:.2f} s on {slowest[1]} "
          f"(target < {TARGET_S:.0f} s) with {{{', '.join(f'{k}: {v[:30]!r}' for k, v in slowest[2].items())}}}")
    confirmed = []
    for name, script, case, first in over:
        best = min(timed(script, case) for _ in range(RETIMES))
        confirmed += [(best, name, case)] if best > TARGET_S else []
        print(f"  over {TARGET_S:.0f} s once: {name} {first:.2f} s, best of {RETIMES} more {best:.2f} s")
    print(f"cases over {TARGET_S:.0f} s on every try: {len(confirmed)} (target 0)")
    for best, name, case in confirmed[:10]:
        print(f"  SLOW on {name}: {best:.2f} s with {case!r:.200}")
    for name, case, detail in exceptions[:10]:
        print(f"  EXCEPTION on {name}: {case!r:.200} -> {detail[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
