"""How fast ``interconnect explain`` reads a large job log, and the Explain page's paste path against the All-reduce
page's upload path.

1. Writes a realistic NCCL_DEBUG=INFO log of a 512-rank job (64 nodes x 8 GPUs, NCCL 2.21 line forms) into a
   temporary directory: every line behind a launcher prefix (srun's ``[rank] `` or Open MPI's
   ``[1,rank]<stdout>:``) and NCCL's ``host:pid:tid [dev]``; ranks interleaved in random order within each phase
   as a real job's output is; each rank's init (bootstrap, NIC list, network, ``Init START``, NVLS multicast,
   ``nNodes``, trees, rank 0's ring listing), 32 channels of ring connection lines (P2P/CUMEM inside a node,
   NET/IB/n/GDRDMA send and receive between nodes), the channel and NVLS counts, ``Init COMPLETE``; then COLL
   trace lines (AllReduce, AllGather, ReduceScatter) until the file is the target size (100 MB by default).
2. Times the whole command, ``interconnect explain FILE`` and ``--json``, as a new process (median of 3), against
   a bare ``python -c pass``. The target: under 30 s.
3. Times, in this process, the function the Explain page calls on a 5 MiB paste (read + findings + drawing data
   + the model's curve, :func:`~interconnect.topics.explain.model.explain_source`) against the function the
   All-reduce page calls on a 5 MiB nccl-tests upload (:func:`~interconnect.io.nccl_tests.parse_nccl_runs`),
   median of 5 each.

Tests do not assert timings (project rule); this script reports them.

Run from the repository root::

    .venv/bin/python benchmarks/explain_speed.py [--mb 100] [--ranks 512]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interconnect.io.nccl_tests import MAX_LOG_BYTES  # noqa: E402

GPUS_PER_NODE = 8
CHANNELS = 32
VERSION = "2.21.5"


def _prefix(rank: int, pid_base: int = 40000) -> str:
    node, local = divmod(rank, GPUS_PER_NODE)
    launcher = f"[{rank}] " if rank % 2 == 0 else f"[1,{rank}]<stdout>:"
    return f"{launcher}gpu-node-{node:03d}:{pid_base + local}:{pid_base + 200 + local} [{local}] NCCL INFO "


def _init_lines(rank: int, ranks: int) -> list[str]:
    node, local = divmod(rank, GPUS_PER_NODE)
    nodes = ranks // GPUS_PER_NODE
    p = _prefix(rank)
    nics = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(8))
    lines = [
        f"{p}Bootstrap : Using ib0:10.{node // 250}.{node % 250}.{local + 1}<0>",
        f"{p}NET/Plugin: No plugin found (libnccl-net.so), using internal implementation",
        f"{p}NET/IB : Using {nics} [RO]; OOB ib0:10.{node // 250}.{node % 250}.{local + 1}<0>",
        f"{p}Using network IB",
        f"{p}ncclCommInitRank comm 0x55d4c0a1{rank:04x} rank {rank} nranks {ranks} cudaDev {local} nvmlDev {local} "
        f"busId {0x18 + local * 0x10:x}000 commId 0x6b1d2f0e9c8a7b65 - Init START",
        f"{p}Setting affinity for GPU {local} to ffff,ffffffff",
        f"{p}NVLS multicast support is available on dev {local}",
        f"{p}comm 0x55d4c0a1{rank:04x} rank {rank} nRanks {ranks} nNodes {nodes} localRanks {GPUS_PER_NODE} "
        f"localRank {local} MNNVL 0",
        f"{p}NVLS Head  0: {local} {local + GPUS_PER_NODE}",
        f"{p}Trees [0] {rank + 1 if local < 7 else -1}/-1/-1->{rank}->{rank - 1 if local else -1} "
        f"[1] {rank + 1 if local < 7 else -1}/-1/-1->{rank}->{rank - 1 if local else -1}",
        f"{p}P2P Chunksize set to 524288",
    ]
    if rank == 0:
        order = " ".join(str(r) for r in range(ranks))
        lines += [f"{p}Channel {c:02d}/{CHANNELS} :    {order}" for c in range(2)]
    return lines


def _connection_lines(rank: int, ranks: int) -> list[str]:
    node, local = divmod(rank, GPUS_PER_NODE)
    p = _prefix(rank)
    nxt = (rank + 1) % ranks
    prev = (rank - 1) % ranks
    out = []
    for c in range(CHANNELS):
        nic = c % 8
        if local < GPUS_PER_NODE - 1:
            out.append(f"{p}Channel {c:02d}/0 : {rank}[{local}] -> {nxt}[{local + 1}] via P2P/CUMEM/read")
        else:
            out.append(f"{p}Channel {c:02d}/0 : {rank}[{local}] -> {nxt}[0] [send] via NET/IB/{nic}/GDRDMA")
        if local == 0:
            out.append(f"{p}Channel {c:02d}/0 : {prev}[7] -> {rank}[0] [receive] via NET/IB/{nic}/GDRDMA")
    out += [f"{p}Connected all rings", f"{p}Connected all trees",
            f"{p}NVLS comm 0x55d4c0a1{rank:04x} headRank {local} nHeads 8 buffSize 4194304 memSize 2097152 "
            "nvlsPerRankSize 201326592 nvlsTotalSize 1610612736",
            f"{p}Connected NVLS tree",
            f"{p}threadThresholds 8/8/64 | 4096/8/64 | 512 | 512",
            f"{p}{CHANNELS} coll channels, 16 nvls channels, {CHANNELS} p2p channels, 32 p2p channels per peer",
            f"{p}ncclCommInitRank comm 0x55d4c0a1{rank:04x} rank {rank} nranks {ranks} cudaDev {local} nvmlDev {local} "
            f"busId {0x18 + local * 0x10:x}000 commId 0x6b1d2f0e9c8a7b65 - Init COMPLETE"]
    return out


_OPS = (("AllReduce", 7, 0), ("AllGather", 9, 0), ("ReduceScatter", 9, 0))


def write_log(path: Path, target_bytes: int, ranks: int, seed: int = 1) -> tuple[int, int]:
    """Write the log; return (bytes, lines)."""
    rng = random.Random(seed)
    written = lines = 0
    with path.open("w", encoding="utf-8") as out:
        def emit(block: list[str]) -> None:
            nonlocal written, lines
            text = "\n".join(block) + "\n"
            out.write(text)
            written += len(text.encode("utf-8"))
            lines += len(block)

        emit([f"NCCL version {VERSION}+cuda12.4"])
        for phase in (_init_lines, _connection_lines):
            block = [line for rank in range(ranks) for line in phase(rank, ranks)]
            rng.shuffle(block)  # ranks print at once: their lines interleave
            emit(block)
        op_count = 0
        while written < target_bytes:
            block = []
            for _ in range(8):
                op, datatype, red = _OPS[op_count % 3]
                count = rng.choice((262144, 1048576, 7382228, 16777216, 67108864))
                for rank in rng.sample(range(ranks), ranks):
                    block.append(f"{_prefix(rank)}{op}: opCount {op_count:x} sendbuff 0x7f5a3c000000 recvbuff "
                                 f"0x7f5a3c000000 count {count} datatype {datatype} op {red} root 0 comm "
                                 f"0x55d4c0a1{rank:04x} [nranks={ranks}] stream 0x55d4c1b2c3d0")
                op_count += 1
            emit(block)
    return written, lines


def _time_process(argv: list[str], runs: int) -> tuple[float, int]:
    times = []
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = 0
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        times.append(time.perf_counter() - start)
        code = done.returncode
    return statistics.median(times), code


def _median(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def paste_comparison(tmp: Path, ranks: int) -> None:
    """The Explain page's 5 MiB paste against the All-reduce page's 5 MiB upload, in-process."""
    from benchmarks.parse_speed import build_log
    from interconnect.io.nccl_tests import parse_nccl_runs
    from interconnect.topics.explain.model import explain_source

    debug = tmp / "paste.log"
    write_log(debug, MAX_LOG_BYTES - 4096, ranks)
    paste = debug.read_bytes()[:MAX_LOG_BYTES]
    tests_log = build_log(10_000)
    while len(tests_log.encode()) < MAX_LOG_BYTES - 200_000:
        tests_log += tests_log
    tests_bytes = tests_log.encode()[:MAX_LOG_BYTES]
    tests_bytes = tests_bytes[:tests_bytes.rfind(b"\n") + 1]
    explain_source(paste)  # warm the catalog and the model's accuracy tables, as a running server has them
    parse_nccl_runs(tests_bytes)
    explain_s = _median(lambda: explain_source(paste), 5)
    upload_s = _median(lambda: parse_nccl_runs(tests_bytes), 5)
    paste_lines, tests_lines = paste.count(b"\n"), tests_bytes.count(b"\n")
    print(f"5 MiB paste, Explain page path (explain_source, {len(paste) / 2**20:.2f} MiB, "
          f"{paste_lines:,} lines): {explain_s:.2f} s median of 5")
    print(f"5 MiB upload, All-reduce page path (parse_nccl_runs, {len(tests_bytes) / 2**20:.2f} MiB, "
          f"{tests_lines:,} lines): {upload_s:.2f} s median of 5")
    print(f"ratio Explain / All-reduce: {explain_s / upload_s:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=100.0, help="size of the big log, MB (1e6 bytes)")
    parser.add_argument("--ranks", type=int, default=512)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        path = tmp / "job.log"
        start = time.perf_counter()
        size, lines = write_log(path, int(args.mb * 1e6), args.ranks)
        print(f"wrote {size / 1e6:.1f} MB, {lines:,} lines, {args.ranks} ranks in {time.perf_counter() - start:.1f} s")
        bare, _ = _time_process([python, "-c", "pass"], args.runs)
        text, code = _time_process([python, "-m", "interconnect", "explain", str(path)], args.runs)
        as_json, code_json = _time_process([python, "-m", "interconnect", "explain", str(path), "--json"], args.runs)
        print(f"bare python -c pass: {bare:.3f} s")
        print(f"interconnect explain (text): {text:.1f} s (exit {code}); --json: {as_json:.1f} s (exit {code_json}); "
              f"median of {args.runs}, target < 30 s; {size / 1e6 / text:.1f} MB/s")
        paste_comparison(tmp, args.ranks)


if __name__ == "__main__":
    main()
