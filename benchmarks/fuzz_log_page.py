"""Fuzz the All-reduce PAGE with mutated logs, not only the parser, and print what happened.

``benchmarks/fuzz_logs.py`` hands damaged logs to the parser; a pasted log also goes through the
comparison, the fit, "Use my measurement" and every chart, and it stays in the session, so a log that
breaks a chart breaks every later change too (issue 21: one row timed at 1e308 µs). Here each case is
a sample log changed by one or two of ``fuzz_logs``' mutations or by an *impossible value* (a row's
time set to 1e308, 1e-30, 1e-320 or 5e-324 µs, its busbw to 0, its algbw to 1e308 GB/s...). The case
pastes it into the All-reduce page in Streamlit's AppTest, presses "Use my measurement" where the
page offers it, then changes a control (the node count). Each of those runs must draw the page: no
exception, and all four charts, or one line saying which could not be drawn.

Printed: cases, logs read / refused whole, cases with rows refused, presses of "Use my measurement",
exceptions and pages drawn incompletely (targets 0), and the slowest run with its case.

Run from the repository root: ``.venv/bin/python benchmarks/fuzz_log_page.py [--cases N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import logging
import random
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import fuzz_logs  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

PAGE = "pages/2_All_reduce.py"
#: The page opens on its time chart (``view=time``): the chart a pasted log is drawn on. The time and busbw
#: figures are built together, so a log either cannot draw fails on this one chart, with its line.
CHARTS = 1
#: Values no real run prints, put into one row's time, algbw or busbw.
IMPOSSIBLE = {
    "time": ["1e308", "1e-30", "1e-320", "5e-324", "1.7e308", "0.0000001"],
    "algbw": ["1e308", "1e-320", "0.00", "67.00", "99999999.00"],
    "busbw": ["0.00", "1e308", "5e-324", "1e9"],
}
ROW_RE = re.compile(r"(?m)^( *\d+ +\d+ +\w+ +\w+ +-?\d+ +)(\S+) +(\S+) +(\S+)")


def impossible_value(rng: random.Random, text: str) -> tuple[str, str]:
    """One to three data rows with an impossible time, algbw or busbw (the first placement)."""
    rows = list(ROW_RE.finditer(text))
    if not rows:
        return text, "no row"
    notes = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        row = rng.choice(rows)
        column = rng.choice(sorted(IMPOSSIBLE))
        value = rng.choice(IMPOSSIBLE[column])
        time_us, algbw, busbw = row.group(2), row.group(3), row.group(4)
        new = {"time": (value, algbw, busbw), "algbw": (time_us, value, busbw),
               "busbw": (time_us, algbw, value)}[column]
        text = text[: row.start()] + row.group(1) + "  ".join(new) + text[row.end() :]
        notes.append(f"{column} {value}")
        rows = list(ROW_RE.finditer(text))
    return text, ", ".join(notes)


def every_time(rng: random.Random, text: str) -> tuple[str, str]:
    """Every row's time set to one impossible value (an infinitely slow or fast network)."""
    value = rng.choice(["1e308", "1e-30", "1e-320"])
    return ROW_RE.sub(lambda m: m.group(1) + "  ".join((value, m.group(3), m.group(4))), text), f"every time {value}"


def mutators() -> list[fuzz_logs.Mutator]:
    samples = fuzz_logs.load_samples()
    kept = [m for m in fuzz_logs.build_mutators(list(samples.values())) if m.name not in ("line flood",)]
    return [*kept, fuzz_logs.Mutator("impossible value", impossible_value, 6.0),
            fuzz_logs.Mutator("every time impossible", every_time, 1.0)]


def make_case(rng: random.Random, samples: dict[str, str], kinds: list[fuzz_logs.Mutator]) -> tuple[str, str]:
    name = rng.choice(sorted(samples))
    data: str | bytes = samples[name]
    notes = [name]
    for mutator in rng.choices(kinds, [m.weight for m in kinds], k=rng.choice([1, 1, 2])):
        if isinstance(data, bytes):
            data = data.decode("utf-8", errors="replace")
        data, note = mutator.apply(rng, data)
        notes.append(f"{mutator.name}: {note}")
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    return "; ".join(notes), text.replace("\x00", "")  # a pasted text area carries no NUL


def drawn(at: AppTest) -> str:
    """Why the page is not fully drawn ('' if it is): an exception, or a chart missing without its line."""
    if at.exception:
        return f"exception: {at.exception[0].value[:160]}"
    charts = len(at.get("plotly_chart"))
    said = any("chart is not drawn" in w.value for w in at.warning)
    if charts < CHARTS and not said:
        return f"{charts} of {CHARTS} charts and no line saying why"
    return ""


def run_case(text: str, timings: list[tuple[float, str]], note: str) -> tuple[list[str], dict[str, bool]]:
    """Paste, press "Use my measurement" if offered, change the node count; the problems and what happened."""
    problems: list[str] = []
    seen = {"read": False, "refused rows": False, "pressed": False}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in {"gpn": "8", "nodes": "2", "view": "time"}.items():
        at.query_params[key] = value
    at.switch_page(PAGE)
    at.run()

    def step(label: str, action) -> None:
        started = time.perf_counter()
        action()
        timings.append((time.perf_counter() - started, f"{label}: {note}"))
        problem = drawn(at)
        if problem:
            problems.append(f"{label}: {problem}")

    step("paste", lambda: at.text_area(key="allreduce.paste").set_value(text).run())
    seen["read"] = not any(e.value.startswith("Could not read") for e in at.error)
    seen["refused rows"] = any("refused" in w.value for w in at.warning)
    buttons = [b for b in at.button if b.key == "allreduce.use_measurement"]
    if buttons and not problems:
        seen["pressed"] = True
        step("use my measurement", lambda: buttons[0].click().run())
    if not problems:
        step("next change", lambda: at.number_input(key="allreduce.nodes").set_value(4).run())
    return problems, seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=60, help="mutated logs pasted into the page (default 60)")
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    rng = random.Random(args.seed)
    samples = fuzz_logs.load_samples()
    kinds = mutators()
    timings: list[tuple[float, str]] = []
    failures: list[tuple[str, list[str]]] = []
    counts = {"read": 0, "refused rows": 0, "pressed": 0}
    for _ in range(args.cases):
        note, text = make_case(rng, samples, kinds)
        try:
            problems, seen = run_case(text, timings, note)
        except Exception as exc:  # AppTest itself failed: count it too
            problems, seen = [f"AppTest: {exc!r:.300}"], {}
        counts = {key: counts[key] + bool(seen.get(key)) for key in counts}
        if problems:
            failures.append((note, problems))
    runs = sorted(t for t, _ in timings)
    slowest = max(timings) if timings else (0.0, "")
    print(f"cases: {args.cases}; logs read: {counts['read']}, refused whole: {args.cases - counts['read']}; "
          f"cases with rows refused: {counts['refused rows']}; 'Use my measurement' pressed: {counts['pressed']}")
    print(f"page runs: {len(runs)} (paste, press, next change); median {statistics.median(runs or [0]):.2f} s; "
          f"slowest {slowest[0]:.2f} s ({slowest[1][:160]})")
    print(f"pages not drawn (exceptions or charts missing without a line): {len(failures)} (target 0)")
    for note, problems in failures[:10]:
        print(f"  FAILED {note[:160]} -> {'; '.join(problems)[:300]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
