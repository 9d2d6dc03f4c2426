"""Do the error bands hold? Each published case against the band computed with its own source left out.

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/error_bands.py [--held-out-runs | --crossdc]``. Prints; asserts
nothing. ``--crossdc`` prints only the Across sites figures (no training run, held out or not).

For every published training run (``interconnect/data/published/training-runs.toml``) and every packaged
nccl-tests table at every message-size band it covers (``interconnect/data/measurements/``): the model /
measured ratio, the band the app would show for it with every case of its own source left out
(:func:`interconnect.topics.seating.accuracy.run_band`,
:func:`interconnect.hardware.collectives.accuracy.table_band`), and whether the band contains the ratio.
Then the totals per group: how many cases got a band, the share of those whose band contained the
measured value, and the median width of the bands (high / low). An extrapolation counts as not
contained, and is counted apart.

The training runs of held-out sources (``holdout = true`` in the file) are totalled apart and not printed one
by one unless ``--held-out-runs`` is given (for a final report only), as ``seating_accuracy.py`` does: developing
a mechanism never shows a held-out run's ratio.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interconnect.hardware.accuracy import ErrorBand  # noqa: E402
from interconnect.hardware.collectives.accuracy import table_band, table_evaluations  # noqa: E402
from interconnect.topics.seating.accuracy import evaluated, run_band  # noqa: E402
from interconnect.topics.seating.reference_runs import load_reference_runs, reference_sources  # noqa: E402


def _band(band: ErrorBand) -> str:
    if band.extrapolation:
        return f"{'extrapolation':>21}"
    return f"{band.low:5.2f}-{band.high:5.2f} (n {band.n:>2}, med {band.median:4.2f})"


def _totals(name: str, rows: list[tuple[float, ErrorBand]]) -> None:
    banded = [(ratio, band) for ratio, band in rows if not band.extrapolation]
    inside = sum(band.contains(ratio) for ratio, band in banded)
    widths = [band.high / band.low for _, band in banded]
    width = f"{statistics.median(widths):.3f}" if widths else "-"
    share = f"{inside / len(banded):.0%}" if banded else "-"
    print(f"{name}: {len(rows)} cases, {len(banded)} with a band ({len(rows) - len(banded)} extrapolations); "
          f"band contained the measured value for {inside} of {len(banded)} ({share}); median width high/low "
          f"{width}")


def main() -> None:
    start = time.perf_counter()
    if "--crossdc" in sys.argv[1:]:
        _crossdc()
        print(f"(in {time.perf_counter() - start:.1f} s)")
        return
    print("Training runs: TFLOP/s per GPU, model / paper; band from the runs like it, its source left out")
    print(f"{'run':<44} {'source':<16} {'ratio':>6}  {'band':<33} in")
    training, held_out = [], []
    show_held_out = "--held-out-runs" in sys.argv[1:]
    sources = reference_sources()
    for run in load_reference_runs():
        ratio = evaluated()[run.id].ratio
        band = run_band(run)
        hidden = bool(sources[run.source].get("holdout"))
        (held_out if hidden else training).append((ratio, band))
        if hidden and not show_held_out:
            continue
        print(f"{run.name:<44} {run.source:<16} {ratio:6.2f}  {_band(band):<33} "
              f"{'yes' if band.contains(ratio) else 'no'}")
    if held_out and not show_held_out:
        print(f"({len(held_out)} held-out runs totalled below, not shown one by one; --held-out-runs shows them)")
    print()
    print("nccl-tests tables: time, model / measured (geometric mean over the rows of a size band); band from "
          "the tables like it, its source left out")
    print(f"{'table':<30} {'band':<7} {'ratio':>6}  {'band':<33} in")
    tables = []
    for table in table_evaluations():
        for name in ("small", "middle", "large"):
            if name not in table.ratios:
                continue
            ratio, band = table.ratios[name], table_band(table, name)
            tables.append((ratio, band))
            print(f"{table.id:<30} {name:<7} {ratio:6.2f}  {_band(band):<33} {'yes' if band.contains(ratio) else 'no'}")
    print()
    _totals("training runs, development set", training)
    _totals("training runs, held-out set", held_out)
    _totals("training runs, all", training + held_out)
    _totals("nccl-tests tables x size bands", tables)
    all_reduce = [(t.ratios[n], table_band(t, n)) for t in table_evaluations()
                  if t.measurement.collective == "all_reduce" for n in ("small", "middle", "large") if n in t.ratios]
    _totals("  of which all-reduce", all_reduce)
    for size in ("small", "middle", "large"):
        _totals(f"    all-reduce, {size} messages", [(t.ratios[size], table_band(t, size)) for t in table_evaluations()
                                                     if t.measurement.collective == "all_reduce" and size in t.ratios])
    for name in ("all_gather", "reduce_scatter", "alltoall"):
        _totals(f"  of which {name.replace('_', '-')}",
                [(t.ratios[n], table_band(t, n)) for t in table_evaluations() if t.measurement.collective == name
                 for n in ("small", "middle", "large") if n in t.ratios])
    print()
    _external_check()
    print()
    _crossdc()
    print(f"(in {time.perf_counter() - start:.1f} s)")


def _external_check() -> None:
    """The external all-reduce sweeps of benchmarks/accuracy.py, which are not in the manifest, as a held-out check.

    The collective band rule was chosen before these were compared with it; each is judged with its own source
    left out, as the packaged tables are, when that source also has packaged tables.
    """
    import numpy as np

    from benchmarks.accuracy import EXTERNAL, _rows
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.hardware.collectives import compare_collective
    from interconnect.hardware.collectives.accuracy import collective_band, size_band, source_key
    from interconnect.hardware.collectives.measurements import Measurement

    print("External all-reduce sweeps (benchmarks/accuracy.py; not packaged, not used to choose the band rule)")
    rows = []
    for ext in EXTERNAL:
        inputs = dict(ext.cluster)
        cluster, _ = resolve_cluster(inputs.pop("gpu"), **inputs)
        size, measured = _rows(ext.rows)
        ratio = np.asarray(compare_collective(cluster, "all_reduce", size, measured, ext.algorithm, ext.protocol,
                                              ext.launch).time_ratio, dtype=float)
        probe = Measurement(ext.id, ext.system, ext.system, "reference", {}, size, measured, url=ext.url)
        source = source_key(probe)
        bands = np.array([size_band(x) for x in size])
        for name, probe_size in (("small", 8.0), ("middle", float(2**20)), ("large", float(2**30))):
            mask = bands == name
            if not mask.any():
                continue
            value = float(np.exp(np.mean(np.log(ratio[mask]))))
            band = collective_band(cluster, "all_reduce", probe_size, launch=ext.launch, leave_out=source)
            rows.append((value, band))
            print(f"{ext.id:<30} {name:<7} {value:6.2f}  {_band(band):<33} {'yes' if band.contains(value) else 'no'}")
    _totals("external all-reduce sweeps x size bands (held out)", rows)


def _crossdc() -> None:
    """The Across sites page's published figures (:mod:`interconnect.topics.crossdc.accuracy`), each against the band
    of the others of its group with its own source left out, then with only itself left out."""
    from interconnect.topics.crossdc.accuracy import evaluated, judged

    print("Across sites: model / published per figure; band from the rest of its group, its source left out")
    print(f"{'figure':<44} {'source':<28} {'ratio':>6}  {'band':<33} in")
    for group in evaluated():
        rows = judged(group)
        for case, band in rows:
            inside = "-" if band.extrapolation else "yes" if band.contains(case.ratio) else "no"
            print(f"{case.id:<44} {case.source:<28} {case.ratio:6.3f}  {_band(band):<33} {inside}")
        _totals(f"{group}, own source left out", [(case.ratio, band) for case, band in rows])
        _totals(f"{group}, only the figure left out", [(case.ratio, band) for case, band in judged(group, "figure")])
        print()


if __name__ == "__main__":
    main()
