"""Print model / paper for every published training run the seating chart is judged against.

Usage: ``.venv/bin/python benchmarks/seating_accuracy.py [--held-out | --held-out-runs]``. For each run of
``interconnect/data/published/training-runs.toml``: the paper's achieved TFLOP/s per GPU, the
model's (counted the same way), their ratio, the bubble, the exposed communication and whether the
memory fits, and how many of the run's model inputs are inferred by a rule rather than stated by the
source (its ``[run.provenance]``); then summaries (median |error|, share within ±15 % and ±25 %,
geometric-mean ratio) by kind, precision and GPU, the memory verdicts and, where the source measured it, the
model's memory against the measured peak, the scale-out pairs and whether the order of the runs is kept.
Kernel figures are the sourced ones; nothing is set per run.

The runs of sources marked ``holdout = true`` are the held-out set: without ``--held-out`` only the
development set is printed run by run and summarised, and the held-out set is not evaluated at all (so
that developing the model does not look at it); ``--held-out`` adds the held-out set's summary lines only,
and ``--held-out-runs`` its runs one by one too (for a final report); before, both sets were printed and summarised
apart.
"""

from __future__ import annotations

import itertools
import math
import statistics
import sys
import time

from interconnect.topics.seating.reference_runs import load_reference_runs, predict, reference_sources


def kind(run) -> str:
    """Dense small/medium (under 40B parameters), dense large, or MoE."""
    if run.experts:
        return "MoE"
    return "dense <40B" if run.params < 40e9 else "dense >=40B"


def summary(label: str, rows: list) -> str:
    if not rows:
        return f"  {label:<28} (none)"
    ratios = [p.ratio for p in rows]
    errors = [abs(r - 1) for r in ratios]
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    within15 = sum(e <= 0.15 for e in errors) / len(rows)
    within25 = sum(e <= 0.25 for e in errors) / len(rows)
    return (f"  {label:<28} n={len(rows):>3}  median |err| {statistics.median(errors):6.1%}  "
            f"±15 % {within15:5.0%}  ±25 % {within25:5.0%}"
            f"  geo-mean {geo:5.2f}  range {min(ratios):.2f}-{max(ratios):.2f}")


def report(title: str, rows: list, per_run: bool = True) -> None:
    print(f"\n== {title} ==")
    if per_run:
        _per_run(rows)
    _summaries(rows, per_run)


def _per_run(rows: list) -> None:
    print(f"{'run':<52} {'paper':>6} {'model':>6} {'ratio':>6} {'bubble':>7} {'exposed':>8} {'v':>3} "
          f"{'memory GB':>10} {'memory':<12} inferred")
    for p in rows:
        b = p.bill
        print(f"{p.run.name[:52]:<52} {p.run.achieved_tflops:>6.1f} {p.tflops:>6.1f} {p.ratio:>6.2f} "
              f"{b.bubble_fraction:>7.1%} {b.exposed_s / b.step_s:>8.1%} {b.virtual_stages:>3} "
              f"{b.memory.total / 1e9:>6.0f}/{b.memory.capacity / 1e9:.0f} {b.memory.verdict:<12} "
              f"{sum(v.startswith('inferred') for v in p.run.provenance.values())}/{len(p.run.provenance)}"
              + (f"  (measured {p.run.peak_memory_gib * 2**30 / 1e9:.0f} GB)" if p.run.peak_memory_gib else ""))


def _summaries(rows: list, per_run: bool) -> None:
    """The summary lines; the scale-out pairs name runs and their ratios, so only with ``per_run``."""
    print(summary("all", rows))
    groups = [("kind", kind), ("precision", lambda r: r.precision), ("GPU", lambda r: r.gpu)]
    if per_run:  # by source only where runs are printed one by one anyway (a held-out source is a handful of runs)
        groups.append(("source", lambda r: r.source))
    for name, key in groups:
        for value in sorted({key(p.run) for p in rows}):
            print(summary(f"{name} {value}", [p for p in rows if key(p.run) == value]))
    if per_run:  # one vote per source: a source with many rows (a vendor's scaling tables) does not set the figure
        medians = [statistics.median(abs(p.ratio - 1) for p in rows if p.run.source == s)
                   for s in sorted({p.run.source for p in rows})]
        print(f"  median of the {len(medians)} sources' median |err|: {statistics.median(medians):.1%}")
    verdicts = [p.bill.memory.verdict for p in rows if p.run.ran]
    print("  memory of the runs that ran: " + ", ".join(f"{verdicts.count(v)} {v}"
                                                     for v in ("fits", "tight", "does not fit")))
    measured = [p for p in rows if p.run.peak_memory_gib]
    if measured:
        shares = [p.bill.memory.total / (p.run.peak_memory_gib * 2**30) for p in measured]
        print(f"  memory against measured peaks: n={len(measured)}  model / measured median "
              f"{statistics.median(shares):.2f}  range {min(shares):.2f}-{max(shares):.2f}")
    if not per_run:
        return
    print("  scale-out (same source, model, batch and layout but DP): change of TFLOP/s per GPU, paper vs model")
    groups: dict[tuple, list] = {}
    for p in rows:
        r = p.run
        groups.setdefault((r.source, r.params, r.seq_len, r.global_batch // r.dp if r.counts == "model" else
                           r.global_batch, r.tp, r.pp, r.cp, r.precision, r.gpu), []).append(p)
    for group in groups.values():
        for a, b in itertools.combinations(sorted(group, key=lambda p: p.run.gpus), 2):
            if a.run.gpus == b.run.gpus:
                continue
            paper = b.run.achieved_tflops / a.run.achieved_tflops - 1
            model = b.tflops / a.tflops - 1
            print(f"    {a.run.gpus:>6,} -> {b.run.gpus:>6,} GPUs {a.run.name.split(',')[0][:26]:<26} "
                  f"paper {paper:+.1%}  model {model:+.1%}  ({abs(model - paper) * 100:.1f} points apart)")
    pairs = list(itertools.combinations(rows, 2))
    kept = sum((a.run.achieved_tflops - b.run.achieved_tflops) * (a.tflops - b.tflops) >= 0 for a, b in pairs)
    print(f"  order kept for {kept} of {len(pairs)} pairs of runs")


def main() -> None:
    start = time.perf_counter()
    held_out = bool({"--held-out", "--held-out-runs"} & set(sys.argv[1:]))
    sources = reference_sources()
    runs = load_reference_runs()
    dev = [predict(run) for run in runs if not sources[run.source].get("holdout")]
    report(f"development set ({len({p.run.source for p in dev})} sources)", dev)
    count = len(dev)
    if held_out:
        test = [predict(run) for run in runs if sources[run.source].get("holdout")]
        # The held-out set's summary only: its runs one by one with --held-out-runs (for the final report, never
        # while developing a mechanism).
        report(f"held-out set ({len({p.run.source for p in test})} sources)", test,
               per_run="--held-out-runs" in sys.argv[1:])
        count += len(test)
    else:
        print(f"\n(held-out set of {sum(bool(sources[r.source].get('holdout')) for r in runs)} runs not evaluated; "
              "pass --held-out)")
    print(f"(evaluated {count} runs in {time.perf_counter() - start:.2f} s)")


if __name__ == "__main__":
    main()
