"""Print model / paper for every published training run the seating chart is judged against.

Usage: ``.venv/bin/python benchmarks/seating_accuracy.py``. For each run of
``interconnect/data/published/training-runs.toml``: the paper's achieved TFLOP/s per GPU, the
model's (counted the same way), their ratio, the bubble, the exposed communication and whether the
memory fits, and how many of the run's model inputs are inferred by a rule rather than stated by the
source (its ``[run.provenance]``); then the scale-out pairs (same model, more GPUs, same batch) and whether the order of
the runs is kept. Kernel figures are the sourced ones; nothing is set per run.
"""

from __future__ import annotations

import itertools
import time

from interconnect.topics.seating.reference_runs import load_reference_runs, predict


def main() -> None:
    start = time.perf_counter()
    rows = [predict(run) for run in load_reference_runs()]
    print(f"{'run':<44} {'paper':>6} {'model':>6} {'ratio':>6} {'bubble':>7} {'exposed':>8} {'v':>3} "
          f"{'memory GB':>10} {'memory':<12} inferred")
    for p in rows:
        b = p.bill
        print(f"{p.run.name:<44} {p.run.achieved_tflops:>6.1f} {p.tflops:>6.1f} {p.ratio:>6.2f} "
              f"{b.bubble_fraction:>7.1%} {b.exposed_s / b.step_s:>8.1%} {b.virtual_stages:>3} "
              f"{b.memory.total / 1e9:>6.0f}/{b.memory.capacity / 1e9:.0f} {b.memory.verdict:<12} "
              f"{sum(v.startswith('inferred') for v in p.run.provenance.values())}/{len(p.run.provenance)}")
    ratios = [p.ratio for p in rows]
    inside = sum(0.85 <= r <= 1.15 for r in ratios)
    print(f"\nwithin ±15 %: {inside} of {len(rows)}; ratio {min(ratios):.2f} to {max(ratios):.2f}")
    verdicts = [p.bill.memory.verdict for p in rows if p.run.ran]
    counts = ", ".join(f"{verdicts.count(v)} {v}" for v in ("fits", "tight", "does not fit"))
    print(f"memory of the runs that ran: {counts}")
    print("scale-out (same model and batch, more GPUs): change of TFLOP/s per GPU, paper vs model")
    groups: dict[tuple, list] = {}
    for p in rows:
        r = p.run
        groups.setdefault((r.source, r.params, r.seq_len, r.global_batch, r.tp, r.pp, r.cp), []).append(p)
    for group in groups.values():
        for a, b in itertools.combinations(sorted(group, key=lambda p: p.run.gpus), 2):
            paper = b.run.achieved_tflops / a.run.achieved_tflops - 1
            model = b.tflops / a.tflops - 1
            print(f"  {a.run.gpus:>6,} -> {b.run.gpus:>6,} GPUs {a.run.name.split(',')[0]:<22} paper {paper:+.1%}  "
                  f"model {model:+.1%}  ({abs(model - paper) * 100:.1f} points apart)")
    pairs = list(itertools.combinations(rows, 2))
    kept = sum((a.run.achieved_tflops - b.run.achieved_tflops) * (a.tflops - b.tflops) >= 0 for a, b in pairs)
    print(f"order kept for {kept} of {len(pairs)} pairs of runs")
    apart = [(a, b) for a, b in pairs if max(a.run.achieved_tflops, b.run.achieved_tflops)
             > 1.1 * min(a.run.achieved_tflops, b.run.achieved_tflops)]
    kept_apart = sum((a.run.achieved_tflops - b.run.achieved_tflops) * (a.tflops - b.tflops) >= 0 for a, b in apart)
    print(f"  of the {len(apart)} pairs whose papers differ by more than 10 %: {kept_apart} kept")
    print(f"(evaluated {len(rows)} runs in {time.perf_counter() - start:.2f} s)")


if __name__ == "__main__":
    main()
