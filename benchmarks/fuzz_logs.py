"""Fuzz the nccl-tests log parser: thousands of damaged and hostile logs, and a regular-expression audit.

Every case is one of the sample logs (``tests/unit/data/nccl_logs``: text, rccl-tests and ``-J``
JSON; the packaged measurement ``.txt`` files in ``interconnect/data/measurements``) changed by one
to three mutations: truncation; line deletion, duplication and swaps; bit flips; binary junk;
giant numbers; nan/inf/1e999/zero values; lines of 100 kB to 1 MB (with and without an NCCL
marker, after a data row, as a ``#`` comment); UTF-16, UTF-32, Latin-1, CR line ends and other
encodings; lines spliced from a log of another collective; inputs grown to just under and just
over 5 MiB. Each is handed to ``parse_nccl_tests`` and counted as

* accepted: an NcclRun came back; its arrays are then checked: every placement of every row is
  either absent (all three values NaN) or finite with a positive time, and no row lacks both;
* rejected: NcclLogError, the only exception the parser may raise on bad input;
* crashed: any other exception (the target is none).

Also printed: the slowest parse with its case (wall-clock and CPU seconds; the target is under
1 s of CPU for every parse, the machine may be shared) and the longest message. Exit status 1
when a target is missed.

Before fuzzing, every regular expression in ``interconnect.io.nccl_tests`` is timed on adversarial
strings of 100 kB and 1 MB in the way the parser applies it (``match``, ``search``, ``sub``...).
A ratio of 1 MB to 100 kB time far above 10 means super-linear behaviour. A regex the audit does
not know about stops the script: add it to ``REGEX_USE`` with how the parser applies it.

Run from the repository root::

    .venv/bin/python benchmarks/fuzz_logs.py [--cases N] [--seed S] [--no-audit]

The default 10,000 cases and the audit take about 40 s of CPU, longer by the clock on a shared
two-core machine. Performance is reported here, not asserted in the tests (project rule).
"""

from __future__ import annotations

import argparse
import codecs
import importlib
import json
import pkgutil
import random
import re
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interconnect.io import nccl_tests  # noqa: E402
from interconnect.io.nccl_tests import (  # noqa: E402
    MAX_LINE_CHARS,
    MAX_LOG_BYTES,
    MAX_ROWS,
    NcclLogError,
    NcclRun,
    parse_nccl_tests,
)

SAMPLE_DIRS = [ROOT / "tests" / "unit" / "data" / "nccl_logs", ROOT / "interconnect" / "data" / "measurements"]
TARGET_CPU_S = 1.0
MAX_MESSAGE_CHARS = 1000  # a warning or error longer than this would flood the page

# ---------------------------------------------------------------------------------------------
# Regular-expression audit
# ---------------------------------------------------------------------------------------------

# How the parser applies each pattern, and the most text it can see there. "line" is bounded by
# MAX_LINE_CHARS, "window" by the NCCL prefix window, "input" is the whole decoded log (5 MiB).
REGEX_USE = {
    "_COMMA_INT_RE": ("fullmatch", "token of at most 32 characters"),
    "_ANSI_ESCAPE_RE": ("sub", "input"),
    "_STD_TAG_RE": ("search200", "first 200 characters of a line"),
    "_PREFIX_RE": ("match", "line"),
    "_NCCL_PREFIX_REVERSED_RE": ("match", "window"),
    "_GLUED_VALUE_RE": ("match", "window"),
    "_KNOWN_NOISE_RE": ("match", "line"),
    "_RANK_RE": ("match", "line"),
    "_RANK_LOOSE_RE": ("match", "line"),
    "_NTHREAD_RE": ("match", "line"),
    "_AVG_BUSBW_RE": ("match", "line"),
    "_OUT_OF_BOUNDS_RE": ("match", "line"),
    "_PERF_PROGRAM_RE": ("search", "line"),
    "_DATE_RE": ("fullmatch", "token"),
    "_CLOCK_RE": ("fullmatch", "token"),
    "_BARE_INF_RE": ("sub", "input"),
    "_DIGIT_RUN_RE": ("finditer", "input"),
}

# Repeated to the test length: runs of one character class, near-misses of each pattern's prefix.
ADVERSARIAL_UNITS = [
    "a", "7", " ", ":", "a:", "7:", "[1", "[1,", "-1", "1.", "1e", "a/", "a|", "\x1b[1", ":1:1 ",
    "x:1:1 [1] ", "] 1[ 1:1:x ", "Rank 1 ", "Rank 1 on h device 1 ", "2024-01-01 ", "[2024-01-01 ", ": inf",
    "_perf", "a-", "1,1", "[a/", "nThread 1 nGpus ", "Avg bus bandwidth : ",
]  # fmt: skip


def _apply(pattern: re.Pattern[str], how: str) -> Callable[[str], object]:
    if how == "sub":
        return lambda text: pattern.sub("", text)
    if how == "search200":
        return lambda text: pattern.search(text, 0, 200)
    if how == "finditer":
        return lambda text: sum(1 for _ in pattern.finditer(text))
    return getattr(pattern, how)


def regex_audit(sizes: tuple[int, ...] = (100_000, 1_000_000)) -> bool:
    """Time every module-level pattern of the nccl_tests package on adversarial text; True if all look linear."""
    names = [f"{nccl_tests.__name__}.{info.name}" for info in pkgutil.iter_modules(nccl_tests.__path__)]
    patterns = {name: value for module in map(importlib.import_module, names)
                for name, value in vars(module).items() if isinstance(value, re.Pattern)}
    unknown = sorted(set(patterns) - set(REGEX_USE))
    if unknown:
        raise SystemExit(f"fuzz_logs.py: add {', '.join(unknown)} to REGEX_USE (how the parser applies it)")
    print(
        f"regex audit: CPU time of each pattern on the worst of {len(ADVERSARIAL_UNITS)} adversarial strings "
        f"of {sizes[0]:,} characters, then on that string at {sizes[-1]:,}"
    )
    print(f"  {'pattern':26} {'applied':10} {'sees at most':32} " + "".join(f"{n // 1000:>8,} kB" for n in sizes))
    linear = True
    for name in sorted(patterns):
        how, bound = REGEX_USE[name]
        apply = _apply(patterns[name], how)
        worst, units = [], ADVERSARIAL_UNITS
        for size in sizes:
            timings = []
            for unit in units:
                text = (unit * (size // len(unit) + 1))[:size]
                start = time.process_time()
                apply(text)
                timings.append((time.process_time() - start, unit))
            slowest, unit = max(timings)
            worst.append(slowest)
            units = [unit]  # the larger sizes repeat the worst string only
        ratio = worst[-1] / max(worst[0], 1e-4)
        flag = ""
        if ratio > 30 and worst[-1] > 0.05:
            flag, linear = f"  SUPER-LINEAR (x{ratio:.0f} for x{sizes[-1] // sizes[0]} the text)", False
        print(f"  {name:26} {how:10} {bound:32} " + "".join(f"{t * 1e3:9.1f} ms" for t in worst) + flag)
    return linear


# ---------------------------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------------------------

NUMBER_RE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.])")
NON_FINITE = ["nan", "inf", "-inf", "1e999", "-1e999", "NaN", "Infinity", "0", "0.00", "0.0e0", "-nan", "+inf"]
LONG_UNITS = ["x", "7", "a:1", "-1.5", "[1,0]", "1:1 [0] ", "\t", "é", "NCCL", ":", "#", "1 "]


class Mutator:
    """One kind of damage; ``apply(rng, text) -> (text or bytes, note)``."""

    def __init__(self, name: str, apply: Callable[[random.Random, str], tuple[str | bytes, str]], weight: float = 1.0):
        self.name, self.apply, self.weight = name, apply, weight


def _lines(text: str) -> list[str]:
    return text.split("\n")


def truncate(rng: random.Random, text: str) -> tuple[str, str]:
    cut = rng.randrange(len(text) + 1)
    return text[:cut], f"cut at {cut}"


def delete_lines(rng: random.Random, text: str) -> tuple[str, str]:
    lines = _lines(text)
    k = rng.randint(1, max(1, len(lines) // 4))
    for _ in range(k):
        if lines:
            del lines[rng.randrange(len(lines))]
    return "\n".join(lines), f"{k} lines deleted"


def duplicate_lines(rng: random.Random, text: str) -> tuple[str, str]:
    lines = _lines(text)
    k = rng.randint(1, 8)
    for _ in range(k):
        i = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return "\n".join(lines), f"{k} lines duplicated"


def swap_lines(rng: random.Random, text: str) -> tuple[str, str]:
    lines = _lines(text)
    k = rng.randint(1, 6)
    for _ in range(k):
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines), f"{k} line swaps"


def flip_bits(rng: random.Random, text: str) -> tuple[bytes, str]:
    data = bytearray(text.encode("utf-8"))
    k = rng.randint(1, 16)
    for _ in range(k):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return bytes(data), f"{k} bit flips"


def binary_junk(rng: random.Random, text: str) -> tuple[bytes, str]:
    data = text.encode("utf-8")
    junk = rng.randbytes(rng.choice([1, 8, 64, 512, 4096]))
    if rng.random() < 0.5:  # junk without NUL bytes gets past the binary check
        junk = junk.replace(b"\x00", b"\x01")
    at = rng.randrange(len(data) + 1)
    return data[:at] + junk + data[at:], f"{len(junk)} junk bytes at {at}"


def giant_number(rng: random.Random, text: str) -> tuple[str, str]:
    numbers = list(NUMBER_RE.finditer(text))
    if not numbers:
        return text, "no number"
    target = rng.choice(numbers)
    digits = rng.choice([20, 40, 309, 400, 4300, 4301, 5000, 20_000])
    giant = rng.choice(["9", "1", "7"]) * digits
    if rng.random() < 0.3:
        giant = f"1e{giant[: rng.choice([3, 4, 30])]}"
    return text[: target.start()] + giant + text[target.end() :], f"{target.group()!r} -> {digits}-digit number"


def non_finite(rng: random.Random, text: str) -> tuple[str, str]:
    numbers = list(NUMBER_RE.finditer(text))
    if not numbers:
        return text, "no number"
    note = []
    for _ in range(rng.randint(1, 4)):
        target = rng.choice(numbers)
        value = rng.choice(NON_FINITE)
        if text.lstrip()[:1] == "{" and rng.random() < 0.5:
            value = json.dumps(value)  # nccl-tests writes "nan" as a JSON string
        text = text[: target.start()] + value + text[target.end() :]
        note.append(f"{target.group()!r} -> {value}")
        numbers = list(NUMBER_RE.finditer(text))
        if not numbers:
            break
    return text, ", ".join(note)


def long_line(rng: random.Random, text: str) -> tuple[str, str]:
    length = rng.choice([MAX_LINE_CHARS + 1, 100_000, 300_000, 1_000_000])
    unit = rng.choice(LONG_UNITS)
    body = (unit * (length // len(unit) + 1))[:length]
    shape = rng.choice(["alone", "nccl-info", "nccl-warn", "comment", "after-row", "row-number"])
    if shape == "nccl-info":
        body += " NCCL INFO Channel 00/24 : 0 1 2 3"
    elif shape == "nccl-warn":
        body = "host:1:2 [0] misc.cc:12 NCCL WARN " + body
    elif shape == "comment":
        body = "# " + body
    elif shape == "row-number":
        body = "1" * length + " 2 float sum -1 1 1 1 0 1 1 1 0"
    lines = _lines(text)
    i = rng.randrange(len(lines) + 1)
    if shape == "after-row" and lines:
        i = min(i, len(lines) - 1)
        lines[i] += body
    else:
        lines.insert(i, body)
    return "\n".join(lines), f"{length:,}-character line ({shape}, unit {unit!r}) at line {i + 1}"


ENCODINGS = ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "cp1252", "utf-8-sig", "cr", "crlf", "mac-roman"]


def encoding(rng: random.Random, text: str) -> tuple[str | bytes, str]:
    name = rng.choice(ENCODINGS)
    if name == "cr":
        return text.replace("\n", "\r"), "CR line ends"
    if name == "crlf":
        return text.replace("\n", "\r\n"), "CRLF line ends"
    text = text.replace("(us)", "(µs)", 1)  # a non-ASCII character, as some copies have
    data = text.encode(name, errors="replace")
    if name == "utf-16-le" and rng.random() < 0.5:
        data = codecs.BOM_UTF16_LE + data
    return data, f"encoded as {name}"


def splice_collective(rng: random.Random, text: str, others: list[str]) -> tuple[str, str]:
    other = rng.choice(others)
    lines, foreign = _lines(text), _lines(other)
    shape = rng.choice(["lines", "append", "prepend", "header"])
    if shape == "append":
        return text + "\n" + other, "another log appended"
    if shape == "prepend":
        return other + "\n" + text, "another log prepended"
    if shape == "header":
        name = rng.choice(["all_gather_perf", "alltoall_perf", "broadcast_perf", "sendrecv_perf", "bogus_perf"])
        lines.insert(rng.randrange(len(lines) + 1), f"# Collective test starting: {name}")
        return "\n".join(lines), f"'Collective test starting: {name}' inserted"
    for _ in range(rng.randint(1, 10)):
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(foreign))
    return "\n".join(lines), "lines of another log spliced in"


NCCL_INFO_LINE = "dgx-h100-a07:2338417:2338478 [0] NCCL INFO Channel 00/24 : 0 1 2 3 4 5 6 7 via P2P/CUMEM/read"


def grow_to_limit(rng: random.Random, text: str) -> tuple[str, str]:
    """Repeat the log's lines up to just under, or just over, MAX_LOG_BYTES: either data rows only
    (more than MAX_ROWS of them), or up to 15,000 rows among NCCL INFO lines, as a big
    NCCL_DEBUG=INFO log has them (accepted)."""
    if text.lstrip()[:1] == "{" and '"results":[{' in text:
        try:
            row = json.dumps(json.loads(text)["results"][0], separators=(",", ":"))
        except (ValueError, LookupError, TypeError):
            row = ""
        if row:
            start = text.index('"results":[{') + len('"results":[')
            copies = (MAX_LOG_BYTES - len(text.encode())) // (len(row.encode()) + 1)
            if rng.random() < 0.5:
                copies = min(copies, MAX_ROWS - 100)
            grown = text[:start] + ",".join([row] * copies) + "," + text[start:]
            return grown, f"{copies:,} extra JSON results ({len(grown.encode()):,} bytes)"
    over = rng.random() < 0.3
    target = MAX_LOG_BYTES + (1 if over else -rng.randrange(1, 4096))
    lines = [line for line in _lines(text) if line.strip()[:1].isdigit()] or _lines(text)
    prefix = rng.choice(["", "", "", *LAUNCHER_PREFIXES])  # every line from a launcher: the slowest path
    with_info = rng.random() < 0.5
    if with_info:  # rows spread among NCCL INFO lines, fewer than MAX_ROWS in all
        per_block = max(1, (len(lines) * (MAX_LOG_BYTES // 15_000)) // (len(NCCL_INFO_LINE) + 1) - len(lines))
        lines = lines + [NCCL_INFO_LINE] * per_block
    block = "\n".join(prefix + line for line in lines) + "\n"
    grown = text + "\n" + block * ((target - len(text.encode())) // len(block.encode()))
    missing = target - len(grown.encode())
    grown += ("#" * 99 + "\n") * (missing // 100) + "#" * (missing % 100)
    kind = "rows and NCCL INFO lines" if with_info else "rows"
    return grown, f"grown to {len(grown.encode()):,} bytes of {kind}" + (f", prefix {prefix!r}" if prefix else "")


FLOOD_LINES = [
    "", "x", "# x", "8.52 123.07", "1 2 3 4 5 6 7 8 9", "h:1:2 [0] NCCL INFO x", "NCCL version 2.18.1",
    "#  Rank  7 Group  0 Pid 1 on h device  7 [0000:db:00] NVIDIA H100", "./all_reduce_perf -b 8 -e 8G",
    "node-1: # x", "0: node-1: # Out of bounds values : 3 OK", "2024-07-18T10:00:00Z h:1:2 [0] NCCL INFO x", "|",
]  # fmt: skip


def flood(rng: random.Random, text: str) -> tuple[str, str]:
    """Thousands to hundreds of thousands of short lines: cheap to send, each costly to examine."""
    line = rng.choice(FLOOD_LINES)
    count = rng.choice([5_000, 20_000, 49_000, 99_000, 300_000])
    lines = _lines(text)
    at = rng.randrange(len(lines) + 1)
    return "\n".join(lines[:at] + [line] * count + lines[at:]), f"{count:,} x {line!r} at line {at + 1}"


LAUNCHER_PREFIXES = [
    "[1,0]<stdout>:",
    "Thu Jul 18 10:00:00 2024[1,0]<stdout>:",
    "0: ",
    "node-1: ",
    "2024-07-18T10:00:00.123Z ",
]


def sprinkle_prefixes(rng: random.Random, text: str) -> tuple[str, str]:
    prefix = rng.choice([*LAUNCHER_PREFIXES, "| ", "\x1b[32m"])
    lines = [prefix + line if rng.random() < 0.7 else line for line in _lines(text)]
    return "\n".join(lines), f"prefix {prefix!r}"


def build_mutators(others: list[str]) -> list[Mutator]:
    return [
        Mutator("truncate", truncate),
        Mutator("delete lines", delete_lines),
        Mutator("duplicate lines", duplicate_lines),
        Mutator("swap lines", swap_lines),
        Mutator("bit flips", flip_bits),
        Mutator("binary junk", binary_junk),
        Mutator("giant number", giant_number, 1.5),
        Mutator("nan/inf/zero", non_finite, 2.0),
        Mutator("long line", long_line, 0.6),
        Mutator("encoding", encoding),
        Mutator("mixed collectives", lambda rng, text: splice_collective(rng, text, others)),
        Mutator("launcher prefixes", sprinkle_prefixes, 0.5),
        Mutator("line flood", flood, 0.03),
    ]


GROW = Mutator("5 MiB", grow_to_limit)
GROW_EVERY = 1000  # one case in a thousand is grown to the size limit (each takes about half a second)


def load_samples() -> dict[str, str]:
    samples = {}
    for directory in SAMPLE_DIRS:
        for path in sorted(directory.iterdir()):
            if path.suffix in (".log", ".txt", ".json"):
                samples[f"{directory.name}/{path.name}"] = path.read_text(encoding="utf-8")
    return samples


def make_case(
    rng: random.Random, samples: dict[str, str], mutators: list[Mutator], first: Mutator | None = None
) -> tuple[str, str | bytes]:
    """One case: a sample and one to three mutations (``first``, if given, then random ones)."""
    name = rng.choice(sorted(samples))
    data: str | bytes = samples[name]
    notes = [name]
    chosen = rng.choices(mutators, [m.weight for m in mutators], k=rng.choice([1, 1, 1, 2, 2, 3]))
    if first is not None:
        chosen = [first] + chosen[:1]
    for mutator in chosen:
        if isinstance(data, bytes):
            data = data.decode("utf-8", errors="replace")  # later mutations work on text
        data, note = mutator.apply(rng, data)
        notes.append(f"{mutator.name}: {note}")
    return "; ".join(notes), data


# ---------------------------------------------------------------------------------------------
# Checks on an accepted run
# ---------------------------------------------------------------------------------------------


def run_problems(run: NcclRun) -> list[str]:
    """What is wrong with an accepted run: non-finite values, rows without results, long messages."""
    problems = []
    n = len(run.size_bytes)
    for label, arrays in (
        ("out-of-place", (run.time_us, run.algbw_gbps, run.busbw_gbps)),
        ("in-place", (run.inplace_time_us, run.inplace_algbw_gbps, run.inplace_busbw_gbps)),
    ):
        block = np.stack(arrays, axis=1)
        if block.shape != (n, 3):
            problems.append(f"{label} arrays have shape {block.shape}, expected ({n}, 3)")
            continue
        absent = np.isnan(block).all(axis=1)
        present = block[~absent]
        if not np.isfinite(present).all():
            problems.append(f"{label}: a NaN or infinite value in a row that has results")
        elif (present[:, 0] <= 0).any() or (present < 0).any():
            problems.append(f"{label}: a zero or negative time, or a negative bandwidth")
    if n and (np.isnan(run.time_us) & np.isnan(run.inplace_time_us)).any():
        problems.append("a row with neither out-of-place nor in-place results")
    if n == 0:
        problems.append("accepted with no rows")
    if (run.size_bytes < 0).any():
        problems.append("a negative size")
    if run.ranks is not None and not 1 <= run.ranks <= 2**31:
        problems.append(f"rank count {run.ranks}")
    if len(run.warnings) > 20 or any(len(w) > MAX_MESSAGE_CHARS for w in run.warnings):
        problems.append(f"{len(run.warnings)} warnings, longest {max(map(len, run.warnings))} characters")
    return problems


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000, help="number of mutated logs (default 10,000)")
    parser.add_argument("--seed", type=int, default=20240718, help="random seed (default 20240718)")
    parser.add_argument("--no-audit", action="store_true", help="skip the regular-expression audit")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    linear = True if args.no_audit else regex_audit()
    samples = load_samples()
    others = [text for text in samples.values() if not text.lstrip().startswith("{")]
    mutators = build_mutators(others)
    rng = random.Random(args.seed)

    counts: Counter[str] = Counter()
    by_mutation: Counter[str] = Counter()
    crashes: list[tuple[str, str]] = []
    bad_runs: list[tuple[str, list[str]]] = []
    slowest_wall = slowest_cpu = (0.0, "")
    longest_error = (0, "")
    over_budget = 0
    fuzz_started, fuzz_cpu = time.perf_counter(), time.process_time()
    for index in range(args.cases):
        case, data = make_case(rng, samples, mutators, GROW if index % GROW_EVERY == GROW_EVERY // 2 else None)
        for name in {note.split(":")[0] for note in case.split("; ")[1:]}:
            by_mutation[name] += 1
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            run = parse_nccl_tests(data)
        except NcclLogError as error:
            outcome = "rejected"
            if len(str(error)) > longest_error[0]:
                longest_error = (len(str(error)), case)
        except Exception as error:  # noqa: BLE001 - anything but NcclLogError is what this script hunts
            outcome = "crashed"
            crashes.append((case, "".join(traceback.format_exception_only(error)).strip()))
        else:
            outcome = "accepted"
            problems = run_problems(run)
            if problems:
                bad_runs.append((case, problems))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        counts[outcome] += 1
        over_budget += cpu >= TARGET_CPU_S
        size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
        label = f"{case} [{size:,} bytes, {outcome}]"
        slowest_wall = max(slowest_wall, (wall, label))
        slowest_cpu = max(slowest_cpu, (cpu, label))
    fuzz_seconds, fuzz_cpu = time.perf_counter() - fuzz_started, time.process_time() - fuzz_cpu

    print(
        f"\nfuzzed {args.cases:,} mutated logs of {len(samples)} samples (seed {args.seed}) in {fuzz_seconds:.1f} s "
        f"({fuzz_cpu:.1f} s of CPU; the difference is time waiting for other processes)"
    )
    print("  mutations used: " + ", ".join(f"{name} {count:,}" for name, count in sorted(by_mutation.items())))
    print(
        f"  accepted {counts['accepted']:,}   rejected (NcclLogError) {counts['rejected']:,}   "
        f"crashed {counts['crashed']:,}"
    )
    print(f"  accepted runs with NaN/infinite values or other faults: {len(bad_runs)}")
    print(f"  slowest parse, CPU:  {slowest_cpu[0]:.3f} s  {slowest_cpu[1]}")
    print(f"  slowest parse, wall: {slowest_wall[0]:.3f} s  {slowest_wall[1]}")
    print(f"  parses over {TARGET_CPU_S:g} s of CPU: {over_budget}")
    print(f"  longest error message: {longest_error[0]} characters ({longest_error[1]})")
    for case, message in crashes[:10]:
        print(f"  CRASH {message}\n        case: {case}")
    for case, problems in bad_runs[:10]:
        print(f"  BAD RUN {'; '.join(problems)}\n        case: {case}")
    missed = []
    if crashes:
        missed.append(f"{len(crashes)} crashes")
    if bad_runs:
        missed.append(f"{len(bad_runs)} faulty accepted runs")
    if over_budget:
        missed.append(f"{over_budget} parses over {TARGET_CPU_S:g} s")
    if longest_error[0] > MAX_MESSAGE_CHARS:
        missed.append("an error message over 1,000 characters")
    if not linear:
        missed.append("a super-linear regular expression")
    total = time.perf_counter() - started
    print(f"targets: {'all met' if not missed else 'MISSED: ' + ', '.join(missed)} ({total:.0f} s in all)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
