"""Fuzz the NCCL_DEBUG reader and the Explain findings with damaged logs, and print what happened.

``benchmarks/fuzz_logs.py`` damages nccl-tests logs for their parser; this script hands the same kinds of damage
(its mutators: truncation, deleted, duplicated and swapped lines, bit flips, binary junk, giant and non-finite
numbers, lines of 100 kB to 1 MB, other encodings, launcher prefixes, line floods) plus three of its own (JSON
keys of the NCCL Inspector repeated or given absurd values, ``Init timings`` with absurd seconds, a host's lines
moved under another host's name) to what the Explain page and ``interconnect explain`` call:
:func:`~interconnect.topics.explain.model.explain_source` on every collected log of
``tests/data/nccl_debug_logs`` (real and synthetic, Inspector JSON included). Each case is counted as

* explained: an Explanation came back; it is then checked: every finding cites a line of the input (0 to the
  line count), every node verdict's ratio is finite and positive, and the whole ``--json`` payload serialises
  (no NaN or infinity in it, which JSON cannot carry);
* refused: NcclDebugError, the one refusal the reader may raise;
* crashed: any other exception (the target is none).

Also printed: the slowest case with its CPU seconds (target: under 1 s per case; the machine may be shared) and
the counts of node verdicts raised on damaged input. Exit status 1 when a target is missed.

Run from the repository root::

    .venv/bin/python benchmarks/fuzz_explain.py [--cases N] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from fuzz_logs import Mutator, build_mutators, make_case  # noqa: E402

from interconnect.io.nccl_debug import NcclDebugError  # noqa: E402
from interconnect.topics.explain.model import explain_source  # noqa: E402

DATA = ROOT / "tests" / "data" / "nccl_debug_logs"
TARGET_CPU_S = 1.0
_NUMBER = re.compile(r"(?<=: )-?\d+(?:\.\d+)?")
_ABSURD = ["0", "-1", "1e308", "-1e308", "1e999", "NaN", "Infinity", "99999999999999999999", "0.000000001"]


def load_samples() -> dict[str, str]:
    """Every collected log, real and synthetic, as text; and one log of every line form taken from NCCL's source."""
    from interconnect.io.nccl_debug.forms import FORMS

    samples = {str(path.relative_to(DATA)): path.read_text(encoding="utf-8", errors="replace")
               for path in sorted(DATA.rglob("*")) if path.suffix in (".log", ".json", ".jsonl")}
    samples["line-forms (io/nccl_debug/forms.py)"] = "\n".join(form.example for form in FORMS) + "\n"
    return samples


def absurd_json(rng: random.Random, text: str) -> tuple[str, str]:
    """Give some Inspector-style ``"key": number`` pairs absurd values (or add such keys to lines)."""
    lines = text.split("\n")
    changed = 0
    for i in rng.sample(range(len(lines)), min(len(lines), 20)):
        if '": ' in lines[i]:
            lines[i] = _NUMBER.sub(lambda _: rng.choice(_ABSURD), lines[i], count=1)
            changed += 1
        elif rng.random() < 0.2:
            rank, size, busbw = rng.choice(_ABSURD), rng.choice(_ABSURD), rng.choice(_ABSURD)
            lines[i] = (f'{{"header": {{"rank": {rank}}}, "metadata": {{"hostname": "h{rng.randrange(3)}"}}, '
                        f'"coll_perf": {{"coll": "AllReduce", "coll_msg_size_bytes": {size}, '
                        f'"coll_busbw_gbs": {busbw}}}}}')
            changed += 1
    return "\n".join(lines), f"{changed} JSON values made absurd"


def absurd_timings(rng: random.Random, text: str) -> tuple[str, str]:
    """Insert ``Init timings`` lines with absurd totals and parts on random hosts."""
    lines = text.split("\n")
    for _ in range(rng.randrange(1, 30)):
        at = rng.randrange(len(lines) + 1)
        total, part = rng.choice(_ABSURD), rng.choice(_ABSURD)
        lines.insert(at, f"h{rng.randrange(4)}:1:1 [{rng.randrange(8)}] NCCL INFO Init timings: rank "
                         f"{rng.randrange(64)} nranks 64 total {total} (kernels {part}, bootstrap {total})")
    return "\n".join(lines), "Init timings with absurd seconds"


def move_host(rng: random.Random, text: str) -> tuple[str, str]:
    """Rename the host of a random share of NCCL lines (one node's lines under another's name)."""
    lines = text.split("\n")
    new = f"moved{rng.randrange(3)}"
    hits = 0
    for i, line in enumerate(lines):
        at = line.find(" NCCL ")
        colon = line.find(":")
        if at > 0 and 0 < colon < at and rng.random() < 0.3:
            lines[i] = new + line[colon:]
            hits += 1
    return "\n".join(lines), f"{hits} lines moved to host {new}"


def check(explanation) -> list[str]:
    """What is wrong with an explanation of damaged input."""
    problems = []
    read = explanation.facts["lines"]  # lines as the reader counts them (a lone CR ends a line too)
    for finding in explanation.findings:
        if not 0 <= finding.line <= read:
            problems.append(f"finding cites line {finding.line} of {read}")
    for verdict in explanation.facts.get("node_outliers", []):
        ratio = verdict.get("ratio")
        if ratio is not None and not (math.isfinite(ratio) and ratio > 0):
            problems.append(f"node verdict ratio {ratio}")
    try:
        json.dumps(explanation.as_dict(), allow_nan=False)
    except (TypeError, ValueError) as exc:
        problems.append(f"--json payload does not serialise: {exc}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Run the cases and print the counts; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=43)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    samples = load_samples()
    mutators = build_mutators(list(samples.values())) + [
        Mutator("absurd JSON values", absurd_json), Mutator("absurd Init timings", absurd_timings),
        Mutator("a host's lines moved", move_host)]
    counts: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    slowest = (0.0, "")
    failures: list[str] = []
    for _ in range(args.cases):
        note, data = make_case(rng, samples, mutators)
        start = time.process_time()
        try:
            explanation = explain_source(data)
        except NcclDebugError:
            counts["refused"] += 1
        except Exception:  # noqa: BLE001 - counting every other exception is the point
            counts["crashed"] += 1
            failures.append(f"CRASH {note}\n{traceback.format_exc(limit=4)}")
        else:
            counts["explained"] += 1
            problems = check(explanation)
            if problems:
                counts["bad output"] += 1
                failures.append(f"BAD {note}: {problems[:3]}")
            kinds.update(v["kind"] for v in explanation.facts.get("node_outliers", []))
        cpu = time.process_time() - start
        if cpu > slowest[0]:
            slowest = (cpu, note[:160])
    print(f"cases: {args.cases} (seed {args.seed}, {len(samples)} logs)")
    print(f"explained {counts['explained']}, refused {counts['refused']}, crashed {counts['crashed']} (target 0), "
          f"bad output {counts['bad output']} (target 0)")
    print(f"node verdicts on damaged input: {dict(kinds) or 'none'}")
    print(f"slowest: {slowest[0]:.2f} s CPU (target < {TARGET_CPU_S} s): {slowest[1]}")
    for failure in failures[:10]:
        print(failure)
    return 1 if counts["crashed"] or counts["bad output"] or slowest[0] > TARGET_CPU_S else 0


if __name__ == "__main__":
    sys.exit(main())
