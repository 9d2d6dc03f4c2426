"""The published training runs the seating model is judged against, and what the model says of them."""

from __future__ import annotations

import dataclasses
import re

import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.seating.kernels import gemm_pass_shapes, gemm_shape_factor, kernel_figures
from interconnect.topics.seating.model import Layout, LayoutError, Workload, pipeline_bubble_fraction, plan
from interconnect.topics.seating.reference_runs import load_reference_runs, paper_flops, predict, reference_sources
from interconnect.workloads.presets import load_model_presets

RUNS = {run.id: run for run in load_reference_runs()}


def test_at_least_ten_runs_from_five_sources_each_consistent():
    assert len(RUNS) >= 10 and len({r.source for r in RUNS.values()}) >= 5
    for run in RUNS.values():
        assert run.tp * run.cp * run.pp * run.dp == run.gpus, run.id
        assert run.global_batch % (run.dp * run.micro_batch) == 0, run.id
        assert run.achieved_tflops > 0 and run.checked, run.id


def test_megatron_flop_count_closed_form():
    # Narayanan et al. 2021, eq. 3: 96·B·s·l·h²·(1 + s/6h + V/16lh) with full recomputation, 72 without
    run = RUNS["narayanan-1t-3072"]
    B, s, n, h, V = 3072, 2048, 128, 25600, 51200
    assert paper_flops(run) == pytest.approx(96 * B * s * n * h * h * (1 + s / (6 * h) + V / (16 * n * h)))
    # 163 TFLOP/s per GPU (the abstract's 502 PFLOP/s on 3,072 GPUs) means this many seconds per step
    assert paper_flops(run) / (502e15) == pytest.approx(paper_flops(run) / 3072 / 163e12, rel=0.01)


def test_llama3_scale_out_pair_within_five_points():
    # Llama 3 Table 4: 8,192 -> 16,384 H100 at the same 16M tokens per batch, 430 -> 400 TFLOP/s per GPU (-7 %)
    small, large = predict(RUNS["llama3-405b-8k-8192"]), predict(RUNS["llama3-405b-8k-16384"])
    paper = 400 / 430 - 1
    model = large.tflops / small.tflops - 1
    assert model < 0 and abs(model - paper) <= 0.05
    # why: half the micro-batches per pipeline (32 -> 16) doubles the bubble's share, and the gradient
    # reduce-scatter has the same last-micro-batch window to hide behind in a step half as long
    assert large.bill.bubble_fraction > 1.5 * small.bill.bubble_fraction
    dp = {p: next(d for d in p.bill.dimensions if d.name == "dp") for p in (small, large)}
    assert dp[large].exposed_s / large.bill.step_s > dp[small].exposed_s / small.bill.step_s


def test_mtnlg_scale_out_within_five_points():
    # MT-NLG section 2.4: 2,240 -> 3,360 A100 at batch 1,920, 126 -> 113 TFLOP/s per GPU (-10.3 %)
    a, b = predict(RUNS["mtnlg-530b-2240"]), predict(RUNS["mtnlg-530b-3360"])
    assert abs((b.tflops / a.tflops - 1) - (113 / 126 - 1)) <= 0.05


def test_memory_of_every_run_that_ran_fits_in_the_gpu_and_only_llama3_needs_the_allowance():
    # Every run ran, so none may be "does not fit". Llama 3 405B without recomputation at 32 micro-batches per
    # pipeline (8K on 8,192 GPUs) and at 128K counts as tight: below the driver-reported 85.5 GB of an "80 GB" H100
    # (Modal's NVML table: 81,559 MiB) but inside the 10 % allowance (the page says why: Meta's tunable N is
    # unpublished). The 16,384-GPU run at 8K fits with the allowance kept free.
    # (the first batch of 22 runs; the second batch's verdicts are printed by benchmarks/seating_accuracy.py)
    first_batch = {"llama3", "korthikanti2022", "mtnlg", "narayanan2021", "nemotron4-340b", "bloom"}
    verdicts = {run_id: predict(run).bill.memory.verdict for run_id, run in RUNS.items()
                if run.ran and run.source in first_batch and not run_id.startswith("narayanan-t2")}
    assert "does not fit" not in verdicts.values()
    tight = {run_id for run_id, v in verdicts.items() if v == "tight"}
    assert tight <= {"llama3-405b-8k-8192", "llama3-405b-128k-16384"}
    assert verdicts["llama3-405b-8k-16384"] == "fits"


def test_torchtitan_measured_peaks_against_the_memory_model():
    # pytorch/torchtitan docs/performance.md at eaea6f6 (Grand Teton H100, 96 GB HBM2e) measures the caching
    # allocator's peak reserved memory per run, GiB. Llama 3.1 8B, FSDP + torch.compile, local batch 2, selective
    # (operator-level) checkpointing: 77.0 GiB on 8 GPUs (Table 1), 62.0 GiB on 128 (Table 3). What the model counts
    # must not exceed the measured peak, and with its 10 % allowance for buffers and fragmentation must reach it.
    gib = 2**30
    for run_id, measured in (("torchtitan-gt-llama31-8b-8-bf16", 77.0), ("torchtitan-gt-llama31-8b-128-bf16", 62.0)):
        run = RUNS[run_id]
        assert run.peak_memory_gib == measured
        memory = predict(run).bill.memory
        assert memory.total <= measured * gib <= memory.total + memory.reserved, run_id
    # 8 -> 128 GPUs changes only how far FSDP shards the 2 + 4 + 12 bytes a parameter (FP32 gradients): the model's
    # drop is that closed form, within 6 % of the measured 15.0 GiB
    eight, many = (predict(RUNS[k]).bill.memory for k in ("torchtitan-gt-llama31-8b-8-bf16",
                                                          "torchtitan-gt-llama31-8b-128-bf16"))
    psi = RUNS["torchtitan-gt-llama31-8b-8-bf16"].params
    assert eight.total - many.total == pytest.approx(psi * 18 * (1 / 8 - 1 / 128), rel=0.01)
    assert eight.total - many.total == pytest.approx((77.0 - 62.0) * gib, rel=0.06)


def test_megatron_bridge_gb200_70b_offloads_half_its_layers():
    # NVIDIA-NeMo/Megatron-Bridge scripts/performance/configs/llama/llama3_workload_base_configs.py at 97ad8cc, GB200
    # FP8-CS: Megatron-FSDP, micro-batch 2, cpu_offloading_num_layers=40 of 80: the model keeps 41 layers' activations
    run = RUNS["mbridge2511-llama3-70b-gb200-64"]
    assert run.offload_layers == 40 and run.recompute == "none" and run.pp == 1
    with_offload = predict(run).bill.memory.activations
    without = predict(dataclasses.replace(run, offload_layers=0)).bill.memory.activations
    assert with_offload < 0.55 * without


def test_of_the_development_runs_that_ran_two_are_called_does_not_fit_by_under_one_percent():
    # Every run ran. After the memory pass (ZeRO over DP x CP, torchtitan's memory, activation offload, FP8-stored
    # inputs) only two runs still count more than the GPU holds, each by under 1 %: Megatron-Bridge's Llama 3.1 405B
    # on 256 GB200 (TP 4 x PP 16, VP 4), whose 25.11 table row is not one of the release's base configs, so its other
    # settings are not known (docs/accuracy-history.md, the memory pass); and the DGX Cloud recipe's Nemotron-4 340B
    # BF16 on 128 H100 (TP 8 x PP 8, VP 12, DP 2: the distributed optimizer splits the FP32 state over two ranks
    # only; NVIDIA/dgxc-benchmarking nemotron/README_340b.md at 35a9aec), 0.3 % over (the fifty-third pass)
    sources = reference_sources()
    memories = {run_id: predict(run).bill.memory for run_id, run in RUNS.items()
                if run.ran and not sources[run.source].get("holdout")}
    over = {run_id: memory for run_id, memory in memories.items() if memory.verdict == "does not fit"}
    assert set(over) == {"mbridge2511-llama31-405b-gb200-256", "dgxc2411-nemotron4-340b-bf16-128"}
    for memory in over.values():
        assert memory.total < 1.01 * memory.capacity


def test_memory_verdict_has_three_states():
    from interconnect.topics.seating.model.bill import Memory
    gb = 1e9
    assert Memory(10 * gb, 0, 0, 60 * gb, capacity=80 * gb, reserved=8 * gb).verdict == "fits"      # 70 + 8 <= 80
    assert Memory(10 * gb, 0, 0, 65 * gb, capacity=80 * gb, reserved=8 * gb).verdict == "tight"     # 75 <= 80 < 83
    assert Memory(10 * gb, 0, 0, 75 * gb, capacity=80 * gb, reserved=8 * gb).verdict == "does not fit"  # 85 > 80


def test_megatron_weak_scaling_series_as_the_launch_script_ran_it():
    # Narayanan et al. 2021, Table 1 (Megatron-LM on Selene, A100 80GB, full recomputation, eq. 3 FLOP count):
    # 1.7B on 32 GPUs 137, 3.6B/64 138, 7.5B/128 142, 18.4B/256 135, 39.1B/512 138, 76.1B/1,024 140,
    # 145.6B/1,536 148, 310.1B/1,920 155, 529.6B/2,520 163, 1T/3,072 163 TFLOP/s per GPU. Inputs as NVIDIA's
    # examples/sc21/run_table_1.sh ran them (MBS 16/16/16/8/4/2/2/1/1/1; --num-layers-per-virtual-pipeline-stage
    # 5/5/3/1 for 76B-530B; CONFIG.sh --fp16). Expected model / paper is what that data gives (the issue expected
    # about 1.08-1.18), with A100's GEMM rate 230.0 TFLOP/s (gpu-kernels.toml: ml-engineering's current table);
    # the ratios moved by up to 0.015 when compute that overlaps a collective became 18.9 % slower for the
    # overlapped time (step.OVERLAP_SLOWDOWN, Lee et al. 2025, arXiv 2507.03114): the TP and DP traffic these rows
    # hide; and by up to 0.05 (the small models, whose norms, GeLU, dropout and softmax weigh most) when the
    # backward pass of a memory-bound operator moved 3 bytes per stored byte, not 2 (compute._MEMORY_PASSES_BWD),
    # which brought the 1.7B and 3.6B rows inside 15 %; the 39.1B row by 0.03 when its gradients were all-reduced
    # after the backward, as the script's DDP=local did (the rows from 39.1B up; Workload.ddp "after-backward");
    # the 7.5B row by -0.011 and the 1T row by +0.009 when the backward GEMMs took their own shapes' tiles and waves
    # (kernels.gemm_pass_shapes); the rows from 39.1B up by -0.005 to -0.035 when local DDP's add of every
    # micro-batch's gradients into its buffer was charged (rule R36, 6 bytes a parameter a micro-batch; the 1T row
    # most, 512 micro-batches), the 18.4B row by -0.001 (PyTorch DDP under no_sync: autograd's add, 3 of 4); the 1T
    # row (1F1B, PP 64, 512 micro-batches) by -0.009 when its steady state waited for every stage-boundary exchange, as
    # Megatron-LM's _communicate at 6985e589 does (torch.cuda.synchronize() after each; rule R54); the four interleaved
    # rows (76.1B-529.6B) by -0.004 to -0.015 when the 2021 interleaved schedule's batched exchange after every chunk
    # pair was waited for too, with a TP gather per tensor received (rule R56); the 1.7B row by -0.02 (1.141 to 1.121)
    # when the loss's memory-bound passes over its 51,200-token vocabulary were charged (rule R59, 52 bytes a logit);
    # every row by -0.015 to -0.022 when the slowest of the job's GPUs set the tensor cores' pace (seventh sitting:
    # A100 takes H200's 4.5 % spread of speeds, so 32 to 3,072 GPUs run 2.1-2.2 % behind a typical GPU).
    series = {"narayanan-1.7b-32": (137, 1.105), "narayanan-3.6b-64": (138, 1.108),
              "narayanan-7.5b-128": (142, 1.065), "narayanan-18.4b-256": (135, 1.072),
              "narayanan-39.1b-512": (138, 1.02), "narayanan-76.1b-1024": (140, 1.08),
              "narayanan-145.6b-1536": (148, 1.035), "narayanan-310.1b-1920": (155, 1.029),
              "narayanan-529.6b-2520": (163, 1.022), "narayanan-1t-3072": (163, 0.967)}
    for run_id, (tflops, ratio) in series.items():
        run = RUNS[run_id]
        assert run.achieved_tflops == tflops and run.source == "narayanan2021", run_id
        p = predict(run)
        assert p.ratio == pytest.approx(ratio, abs=0.01) and p.bill.fits, (run_id, p.ratio)
    within = [run_id for run_id in series if 0.85 <= predict(RUNS[run_id]).ratio <= 1.15]
    assert sorted(set(series) - set(within)) == []


def test_table_1_inputs_are_the_launch_script_s():
    # examples/sc21/run_table_1.sh (NVIDIA/Megatron-LM, README: commit 6985e58938): MBS per row, and the
    # interleaved schedule where --num-layers-per-virtual-pipeline-stage is set (layers / PP / that = chunks)
    script = {"narayanan-1.7b-32": (16, 0), "narayanan-3.6b-64": (16, 0), "narayanan-7.5b-128": (16, 0),
              "narayanan-18.4b-256": (8, 0), "narayanan-39.1b-512": (4, 0), "narayanan-76.1b-1024": (2, 5),
              "narayanan-145.6b-1536": (2, 5), "narayanan-310.1b-1920": (1, 3), "narayanan-529.6b-2520": (1, 1),
              "narayanan-1t-3072": (1, 0)}
    for run_id, (mbs, layers_per_chunk) in script.items():
        run = RUNS[run_id]
        assert run.micro_batch == mbs and run.precision == "fp16", run_id
        if layers_per_chunk:
            assert run.schedule == "interleaved", run_id
            assert run.virtual_stages == run.layers // run.pp // layers_per_chunk, run_id
            assert predict(run).bill.virtual_stages == run.virtual_stages, run_id
        else:
            assert run.schedule == "1f1b", run_id


def test_the_mtnlg_gap_is_the_software_not_the_model_shape():
    # The 530B shape at TP 8 x PP 35 on A100: Megatron-LM's own pipeline on 2,520 GPUs reached 163 TFLOP/s
    # (Narayanan et al. 2021, Table 1, run with run_table_1.sh's interleaved schedule, one layer per model chunk);
    # DeepSpeed's pipeline engine in MT-NLG on 2,240 reached 126 (Smith et al. 2022, section 2.4). The model reads
    # 1.02 on the first (the script's inputs; 1.06 before rule R56 charged its blocking exchanges, 1.04 before the
    # slowest GPU set the pace) and 1.21 on the second: the miss on MT-NLG is not the shape.
    megatron, deepspeed = predict(RUNS["narayanan-529.6b-2520"]), predict(RUNS["mtnlg-530b-2240"])
    assert megatron.ratio == pytest.approx(1.022, abs=0.01)
    assert deepspeed.ratio > 1.15 and deepspeed.ratio - megatron.ratio > 0.15


def test_a_run_from_a_source_added_after_the_constants_were_set():
    # Nemotron-4 340B (arXiv 2406.11704, Table 2): 6,144 H100, TP 8 x PP 12 x DP 64, batch 2,304 x 4,096 tokens,
    # 8.0 s per iteration; with section 2's 341.0B parameters (9.4B embedding + 331.6B other) that is 409.5 TFLOP/s
    # per GPU (MFU 41.4 %, inside the report's 41-42 %). Added with no constant chosen for it.
    p = predict(RUNS["nemotron4-340b-6144"])
    assert 0.85 <= p.ratio <= 1.15 and p.bill.fits
    assert RUNS["nemotron4-340b-6144"].achieved_tflops == pytest.approx(
        paper_flops(RUNS["nemotron4-340b-6144"]) / 8.0 / 6144 / 1e12, rel=1e-3)


def test_megatron_2022_runs_are_not_pessimistic():
    # the issue's complaint: model / paper 0.57-0.88 on every run; with the sourced kernel figures and the
    # schedules, no Megatron-LM run of Korthikanti et al. 2022 or Narayanan et al. 2021 is under 0.9
    for run_id in ("korthikanti-175b", "korthikanti-530b", "korthikanti-1t", "narayanan-1t-3072"):
        assert predict(RUNS[run_id]).ratio > 0.9, run_id


def test_interleaving_divides_the_bubble():
    # Narayanan et al. 2021, section 2.2.2: (p-1)/(v·m) of the ideal time
    assert pipeline_bubble_fraction(8, 64, "interleaved", 4) == pytest.approx(7 / 4 / (64 + 7 / 4))
    assert pipeline_bubble_fraction(8, 64, "zero-bubble") == pytest.approx(7 / 3 / (64 + 7 / 3))
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    model = load_model_presets()["llama3-70b"]
    one = plan(model, cluster, Layout(tp=8, pp=4), Workload(global_batch=16))
    two = plan(model, cluster, Layout(tp=8, pp=4), Workload(global_batch=16, schedule="interleaved",
                                                            virtual_stages=2))
    assert two.virtual_stages == 2 and "(p − 1)/v" in two.bubble_reason
    assert two.bubble_fraction == pytest.approx(one.bubble_fraction / 2, rel=0.1)
    # interleaving holds more activations on the first stage: (1 + (p-1)/(p·v)) times (Korthikanti, 4.2.3)
    assert two.memory.activations > one.memory.activations


def test_gemm_shape_factor_closed_forms():
    sms = kernel_figures("a100-sxm").sms
    assert sms == 108  # NVIDIA's matmul guide's A100
    assert float(gemm_shape_factor(6912, 16384, 2048, sms)) == 1.0  # 54 x 128 tiles of 128 x 128: 64 whole waves
    assert float(gemm_shape_factor(2048, 1536, 12288, sms)) == pytest.approx(96 / 108)  # one wave, 96 of 108 SMs
    # a narrow slice (N = 576, as TP 64 would cut GPT-3's QKV): 80 tiles of 128 x 128, 90 % useful, on 108 SMs
    assert float(gemm_shape_factor(2048, 576, 12288, sms)) == pytest.approx(0.9 * 80 / 108)
    assert kernel_figures("v100") is None  # no published kernel figures: the 0.5 assumption, said in the bill


def test_backward_gemms_have_their_own_tiles_and_waves():
    # NVIDIA's fully-connected layers guide, Table 1: forward (tokens x outputs, reducing inputs), activation
    # gradient (tokens x inputs, reducing outputs), weight gradient (inputs x outputs, reducing tokens)
    forward, dgrad, wgrad = gemm_pass_shapes(2048, 1536, 12288)
    assert forward == (2048, 1536, 12288) and dgrad == (2048, 12288, 1536) and wgrad == (12288, 1536, 2048)
    sms = kernel_figures("a100-sxm").sms
    # forward: 16 x 12 tiles of 128 x 128 fill one wave of 192 on 108 SMs: 192 / 216
    assert float(gemm_shape_factor(*forward, sms)) == pytest.approx(192 / 216)
    # inputs' gradient: 16 x 96 = 1,536 tiles of 128 x 128 in 15 waves (1,620 slots)
    assert float(gemm_shape_factor(*dgrad, sms)) == pytest.approx(1536 / 1620)
    # weights' gradient: 96 x 12 = 1,152 tiles in 11 waves (1,188 slots)
    assert float(gemm_shape_factor(*wgrad, sms)) == pytest.approx(1152 / 1188)


def test_dualpipe_hides_the_expert_all_to_all_across_nodes():
    # deepseek-ai/DualPipe README: bubble (PP/2 - 1)(F&B + B - 3W), 2x parameters, PP + 1 activations; with
    # F = W = 1, B = 2 and F&B = F + B that is (p/2 - 1) x 2/3 micro-batch times
    assert pipeline_bubble_fraction(16, 64, "dualpipe") == pytest.approx(7 * 2 / 3 / (64 + 7 * 2 / 3))
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=256)
    model = load_model_presets()["deepseek-v3"]
    layout = Layout(tp=1, pp=16, dp=128, ep=64, zero=1)  # DeepSeek-V3's PP 16 and EP 64 over 8 nodes
    bills = {s: plan(model, cluster, layout, Workload(global_batch=1024, seq_len=4096, schedule=s))
             for s in ("1f1b", "dualpipe")}
    ep = {s: next(d for d in b.dimensions if d.name == "ep") for s, b in bills.items()}
    assert ep["1f1b"].tier == "network (NIC)" and ep["1f1b"].domains_spanned == 8  # where MoE meets the cliff
    assert ep["1f1b"].exposed_s == ep["1f1b"].time_s  # nothing to hide behind under 1F1B
    assert ep["dualpipe"].time_s == pytest.approx(ep["1f1b"].time_s)
    assert ep["dualpipe"].exposed_s < 0.6 * ep["dualpipe"].time_s
    assert bills["dualpipe"].memory.params == pytest.approx(2 * bills["1f1b"].memory.params)
    small, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=3)
    with pytest.raises(LayoutError, match="even number of pipeline stages"):
        plan(load_model_presets()["llama3-70b"], small, Layout(tp=8, pp=3), Workload(global_batch=24,
                                                                                      schedule="dualpipe"))


def test_deepspeed_pipeline_engine_blocks_its_sends_and_reduces_after_the_flush():
    # DeepSpeed's PipelineEngine: p2p sends without async_op (runtime/pipe/p2p.py); ReduceGrads only at the last
    # step of TrainSchedule (runtime/pipe/schedule.py). The same run under Megatron-LM's engine is faster.
    from dataclasses import replace

    run = RUNS["mtnlg-530b-2240"]
    assert run.pipeline_engine == "deepspeed"
    model, cluster, layout, workload = run.model(), run.cluster(), run.layout(), run.workload()
    ds = plan(model, cluster, layout, workload)
    # against Megatron's engine with its steady-state sends beside compute (not its blocking 1F1B, rule R54)
    mg = plan(model, cluster, layout, replace(workload, pipeline_engine="megatron", p2p_blocking=False))
    dim = {b: {d.name: d for d in bill.dimensions} for b, bill in (("ds", ds), ("mg", mg))}
    assert ds.step_s > mg.step_s
    assert dim["ds"]["pp"].exposed_s > dim["mg"]["pp"].exposed_s
    assert dim["ds"]["dp"].exposed_s > dim["mg"]["dp"].exposed_s
    # blocking sends, one call at a time, and the TP gathers inside the forward and backward: the N transfers and G
    # gathers of an event-by-event run of TrainSchedule (rule R62, tests/topics/seating/test_deepspeed_pipeline.py),
    # each transfer priced with its gather in the bill's per-call time
    from interconnect.topics.seating.model.schedules import deepspeed_pipeline_waits

    sends, gathers = (float(x) for x in deepspeed_pipeline_waits(run.pp, ds.micro_batches))
    per_call = dim["ds"]["pp"].time_s / dim["ds"]["pp"].calls_per_step
    assert gathers * per_call < dim["ds"]["pp"].exposed_s < sends * per_call


def test_all_gather_context_parallelism_is_exposed():
    # Llama 3 (arXiv 2407.21783, section 3.3.2) gathers K and V before attention instead of passing them in a ring:
    # forward all-gather, backward all-gather and reduce-scatter of their gradients, none behind attention
    from dataclasses import replace

    run = RUNS["llama3-405b-128k-16384"]
    assert run.context_parallel == "all-gather"
    model, cluster, layout, workload = run.model(), run.cluster(), run.layout(), run.workload()
    gathered = {d.name: d for d in plan(model, cluster, layout, workload).dimensions}["cp"]
    ring_bill = plan(model, cluster, layout, replace(workload, context_parallel="ring"))
    ring = {d.name: d for d in ring_bill.dimensions}["cp"]
    assert gathered.collective == "all-gather + reduce-scatter" and gathered.exposed_s == gathered.time_s > 0
    assert ring.exposed_s < gathered.exposed_s
    assert gathered.bytes_per_step == pytest.approx(ring.bytes_per_step)  # 3 (cp - 1) x K,V per layer either way


def test_fp32_gradients_double_the_data_parallel_bytes_and_fsdp_reduces_per_layer():
    # Llama 3 (section 3.3.2) reduce-scatters gradients in FP32: twice BF16's bytes for the gradients, while the
    # ZeRO-2-like all-gather of the weights after the step moves BF16 weights; FSDP reduces one wrapped layer at a
    # time (arXiv 2304.11277), so one call per layer of the stage instead of one per 25 MB bucket; and its gradients
    # stay sharded while the micro-batches accumulate, so every micro-batch's are reduce-scattered (rule R32)
    from dataclasses import replace

    run = RUNS["llama3-405b-8k-8192"]
    assert run.grad_bytes == 4 and run.dp_bucket_per_layer
    model, cluster, layout, workload = run.model(), run.cluster(), run.layout(), run.workload()
    fp32 = {d.name: d for d in plan(model, cluster, layout, workload).dimensions}["dp"]
    bf16 = {d.name: d for d in plan(model, cluster, layout, replace(workload, grad_bytes=0)).dimensions}["dp"]
    # m micro-batches (2,048 sequences over DP 64: 32): BF16 m x 2 reduced + 2 gathered bytes a parameter;
    # FP32 m x 4 + 2
    bill = plan(model, cluster, layout, workload)
    m = bill.micro_batches
    assert m == 32
    assert fp32.bytes_per_step == pytest.approx((4 * m + 2) / (2 * m + 2) * bf16.bytes_per_step)
    assert fp32.calls_per_step == (m + 1) * bill.stage_layers[0]  # m reduce-scatters and one all-gather per layer


@pytest.mark.parametrize("run_id", ["llama3-405b-8k-8192", "llama3-405b-8k-16384", "llama3-405b-128k-16384"])
def test_llama3_chunks_per_rank_follow_the_papers_first_and_last_chunks(run_id):
    # Rule R49 (Llama 3 section 3.3.2): the first chunk holds only the embedding, the last only the output layer and
    # the loss, and the first and last stages one transformer layer fewer; with equal chunks of n layers,
    # (PP x V - 2) n = 126 has the whole solutions V = 1 (n = 9) and V = 8 (n = 1), and the schedule is interleaved
    run = RUNS[run_id]
    solutions = [v for v in range(1, 64) if (run.pp * v - 2) > 0 and run.layers % (run.pp * v - 2) == 0]
    assert solutions == [1, 8] and run.schedule == "interleaved" and run.virtual_stages == 8
    assert run.provenance["virtual_stages"].startswith("inferred: R49")
    bill = predict(run).bill
    assert bill.virtual_stages == 8 and bill.stage_layers == (8, 7)  # 8 a rank, 7 on the last beside the output


def test_a_gradient_round_hides_behind_the_micro_batch_wall_time_less_what_shares_its_links():
    # Llama 3 (section 3.3.2: DP "can tolerate longer network latency by asynchronously prefetching sharded model
    # weights and reducing gradients") reduce-scatters each micro-batch's FP32 gradients on its own stream. While the
    # compute stream waits for TP's collectives (TP 8 inside the Grand Teton server, on NVLink) the NIC is free for
    # them; PP's sends leave the server as DP's do and hold the same NIC. Closed form against ZeRO-1 (one round a
    # step, the same last round), with t_rs one round's reduce-scatters (one call per layer of the fullest stage):
    #   exposed(ZeRO-2) - exposed(ZeRO-1) = (m - 1) max(0, t_rs - W),  W = t_micro - PP's seconds per micro-batch
    from dataclasses import replace

    import numpy as np

    from interconnect.topics.seating.model.step import evaluate_layouts
    from interconnect.topics.seating.model.traffic import _time_s

    run = RUNS["llama3-405b-8k-16384"]
    model, cluster, layout, workload = run.model(), run.cluster(), run.layout(), run.workload()
    a = lambda v: np.array([v], dtype=float)  # noqa: E731

    def bill(zero, wl=workload, tp=layout.tp, pp=layout.pp, dp=layout.dp):
        return evaluate_layouts(model, cluster, wl, a(tp), a(pp), a(dp), a(1), a(1), a(zero))

    one, two = bill(1), bill(2)
    m, layers = float(two["micro"][0]), float(two["stage_most"][0])
    assert (m, layers) == (16, 8)
    assert float(two["tp_domains"][0]) == 1 and float(two["pp_domains"][0]) > 1 and float(two["dp_domains"][0]) > 1
    grads = 4 * float(two["psi"][0])
    t_rs = layers * float(_time_s(cluster, "reduce_scatter", two["dp_per"], two["dp_domains"], a(grads / layers))[0])
    window = float(two["t_micro"][0]) - float(two["pp_time"][0]) / m
    # the window is longer than the compute by TP's NVLink time, which the compute alone would leave out
    assert window > float(two["compute_s"][0]) / m + 0.9 * float(two["tp_time"][0]) / m - float(two["pp_time"][0]) / m
    added = float(two["dp_exposed"][0] - one["dp_exposed"][0])
    # DP 128's FP32 rounds (0.299 s) just fit the published run's micro-batch (0.303 s, its GPUs at the pace of the
    # slowest): nothing added. Half the tokens a micro-batch halve the window, and the rounds outlast it
    assert t_rs < window and added == pytest.approx((m - 1) * max(0.0, t_rs - window), abs=1e-9)
    short = replace(workload, seq_len=workload.seq_len // 2)
    one_s, two_s = bill(1, short), bill(2, short)
    window_s = float(two_s["t_micro"][0]) - float(two_s["pp_time"][0]) / m
    assert t_rs > window_s
    assert float(two_s["dp_exposed"][0] - one_s["dp_exposed"][0]) == pytest.approx((m - 1) * (t_rs - window_s),
                                                                                     rel=1e-6)
    # TP across the server (TP 16 on 8-GPU servers) shares the NIC: its seconds leave the window as PP's do
    wide = {z: bill(z, tp=16, dp=64) for z in (1, 2)}
    m16 = float(wide[2]["micro"][0])  # 2,048 sequences over DP 64: 32
    assert float(wide[2]["tp_domains"][0]) > 1 and m16 == 32
    w16 = float(wide[2]["t_micro"][0]) - (float(wide[2]["tp_time"][0]) + float(wide[2]["pp_time"][0])) / m16
    grads16 = 4 * float(wide[2]["psi"][0])
    t16 = layers * float(_time_s(cluster, "reduce_scatter", wide[2]["dp_per"], wide[2]["dp_domains"],
                                 a(grads16 / layers))[0])
    assert float(wide[2]["dp_exposed"][0] - wide[1]["dp_exposed"][0]) == pytest.approx(
        (m16 - 1) * max(0.0, t16 - w16), rel=1e-6, abs=1e-9)
    # one micro-batch a step: no earlier round, nothing changes
    single = replace(workload, global_batch=layout.dp)
    assert float(bill(2, single)["dp_exposed"][0]) == pytest.approx(float(bill(1, single)["dp_exposed"][0]))


def test_a_bad_run_is_refused_by_name(tmp_path):
    from interconnect.datafiles.tables import packaged_data_file
    from interconnect.topics.seating.reference_data import ReferenceRunDataError, load_training_runs

    text = packaged_data_file("published/training-runs.toml").read_text(encoding="utf-8")
    bad = tmp_path / "training-runs.toml"
    first = text.index("\n[[run]]\n")
    text = text[:text.index("\n[[run]]\n", first + 1) + 1]  # the header, the sources and the first run: each copy
    # below is parsed whole, and the 292 runs' 1.6 MB would be parsed fourteen times
    run_id = text[first:].split('id = "', 1)[1].split('"', 1)[0]
    for broken, message in (
        (text[:first] + text[first:].replace("\ntp = ", "\ntensor = ", 1), r"unknown key\(s\) tensor"),
        (text[:first] + text[first:].replace("\ngpus = ", "\ngpus = 1", 1), "TP x CP x PP x DP"),
        (text[:first] + text[first:].replace("\ntp = ", "\nddp = \"sometimes\"\ntp = ", 1), "'ddp' must be"),
        (text[:first] + text[first:].replace("\ntp = ", "\nhbm_tb_s = -1.0\ntp = ", 1), "'hbm_tb_s' must be"),
        # the first run recomputes nothing: a count of block-recomputed layers needs full recomputation
        (text[:first] + text[first:].replace("\ntp = ", "\nrecompute_num_layers = 2\ntp = ", 1),
         "'recompute_num_layers' needs recompute"),
        (text[:first] + text[first:].replace("\ntp = ", "\nrecompute_num_layers = -1\ntp = ", 1),
         "'recompute_num_layers' must be 0"),
        # Megatron-Core refuses the expert all-to-all overlap with full recomputation (R45)
        (text[:first] + text[first:].replace('\nrecompute = "none"', '\nrecompute = "full"\nep_a2a_overlap = true', 1),
         "'ep_a2a_overlap' does not run"),
        # multi-token prediction and a fixed last stage (rule R46): no negative depth, and the first run has no
        # pipeline to fix a last stage of
        (text[:first] + text[first:].replace("\ntp = ", "\nmtp_layers = -1\ntp = ", 1), "'mtp_layers' must be"),
        # a recipe's bucket for Megatron-Core's DDP (rule R55): a size, and only where that DDP ran
        (text[:first] + text[first:].replace("\ntp = ", "\ndp_bucket_params = -1\ntp = ", 1),
         "'dp_bucket_params' must be"),
        (text[:first] + text[first:].replace("\ntp = ", '\nddp = "bucketed"\ndp_bucket_params = 1000\ntp = ', 1),
         "'dp_bucket_params' sizes Megatron-Core's"),
        (text[:first] + text[first:].replace("\ntp = ", "\nlast_stage_layers = 200\ntp = ", 1),
         "'last_stage_layers' needs PP > 1"),
        (text[:first] + text[first:].replace('\nsource = "', '\nsource = "no-such-', 1), "cites unknown source"),
        (text[:first] + re.sub(r"\nlayers = (\d+)", r'\nlayers = "\1"', text[first:], count=1),
         "'layers' has the wrong type"),
    ):
        bad.write_text(broken, encoding="utf-8")
        with pytest.raises(ReferenceRunDataError, match=f"^training-runs.toml: run '{run_id}': {message}"):
            load_training_runs(bad)


def test_megatron_bridge_rows_carry_the_bucket_their_recipes_set():
    # NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/training/comm_overlap.py at v0.2.0 (25.11) and v0.3.0 (26.02),
    # _get_optimizer_overlap_cfgs: bucket_size = 128 * 1024 * 1024 parameters with DP > 1 and the distributed optimizer
    # (rule R55); Megatron-FSDP's rows reduce per layer and take none
    bridge = [run for run in RUNS.values() if run.source == "megatron-bridge-perf"]
    sized = [run for run in bridge if run.dp_bucket_params]
    assert len(sized) == 15
    for run in bridge:
        fsdp = "Megatron-FSDP" in run.stack
        assert run.dp_bucket_params == (0 if fsdp else 128 * 1024 * 1024), run.id
        if not fsdp:
            tag = {"25.11": "v0.2.0", "26.02": "v0.3.0"}[run.stack.split("Megatron-Bridge ")[1][:5]]
            assert run.provenance["dp_bucket_params"].startswith(
                f"stated: src/megatron/bridge/training/comm_overlap.py@{tag} "), run.id
            assert run.ddp_mode == "megatron-core" and run.grad_bytes == 0   # BF16 gradients: the scripts' setting
            assert run.workload().dp_bucket_params == 128 * 1024 * 1024
    # no other source's run sets a bucket, but NeMo 2.0's (below): Megatron-Core's own default stands for them
    assert all(not run.dp_bucket_params for run in RUNS.values()
               if run.source != "megatron-bridge-perf" and "NeMo 2.0" not in run.stack)


def test_nemo2_dgxc_rows_carry_the_bucket_their_callback_sets():
    # NVIDIA/NeMo nemo/lightning/pytorch/callbacks/megatron_comm_overlap.py at d2b21556 (the commit dgxc-benchmarking's
    # setup.sh checks out for GSW 25.04) and v2.2.1, _get_optimizer_overlap_cfgs: bucket_size = 128 * 1024 * 1024
    # parameters with the distributed optimizer and DP > 1; every performance recipe adds the callback (rule R63 (g)).
    # The NeMo Launcher rows of 24.09 and 24.12 ran Apex's optimizer and take Megatron-Core's default.
    nemo2 = [run for run in RUNS.values() if "NeMo 2.0" in run.stack]
    # 58 rows of GSW 25.04 (Llama 3.1 34, Nemotron-4 24) and 22 of GSW 25.05 (rule R66: on GB200 Llama 3.1 405B 6 and
    # Nemotron-4 340B 12, on H100 Nemotron-4 4), whose NeMo commits (7a8f1cc7bc, b4148d2169) set the same buckets in
    # the same callback.
    assert len(nemo2) == 80 and {run.source for run in nemo2} == {"dgxc-benchmarking"}
    for run in nemo2:
        assert run.dp_bucket_params == (128 * 1024 * 1024 if run.dp > 1 else 0), run.id
        assert run.zero == 1 and run.grad_bytes == 0, run.id   # distributed optimizer, BF16 gradient reduce
    launcher = [run for run in RUNS.values() if "NeMo Launcher" in run.stack]
    assert len(launcher) == 130 and all(not run.dp_bucket_params for run in launcher)  # Llama 3.1 68, others 62


def _fp8_plan(gpu: str, dtype: str):
    cluster, _ = resolve_cluster(gpu, gpus_per_node=8, nodes=8)
    workload = Workload(global_batch=256, micro_batch=1, dtype_bytes={"bf16": 2, "fp8": 1}[dtype])
    return plan(load_model_presets()["llama3-70b"], cluster, Layout(tp=8, pp=4, dp=2, zero=1), workload)


def test_fp8_runs_gemms_at_the_measured_or_spec_ratio_and_mfu_counts_against_the_fp8_peak():
    # H100 SXM: FP8 dense peak 1979 against BF16 989.4 TFLOP/s (ml-engineering's TFLOPS table); its best measured
    # FP8 matmul is 1402.6 against 794.5 for BF16 (the same page's MAMF table): 1.765x, not 2x
    bf16, fp8 = _fp8_plan("h100-sxm", "bf16"), _fp8_plan("h100-sxm", "fp8")
    assert 1.0 < bf16.compute_s / fp8.compute_s < 1.765  # attention and the rest stay in BF16
    assert 0 < fp8.mfu < 1 and fp8.mfu == pytest.approx(fp8.tflops_per_gpu / 1979e12, rel=1e-6)
    assert "1402.6" in fp8.efficiency_basis
    # A100 has no FP8 tensor cores and Gaudi 3 runs FP8 at its BF16 rate (1835 TFLOP/s either way at Intel's
    # 1750 MHz MME clock; 1677 at the 1600 MHz it ships at, ml-engineering): no faster
    for gpu in ("a100-sxm", "gaudi3"):
        a, b = _fp8_plan(gpu, "bf16"), _fp8_plan(gpu, "fp8")
        assert b.compute_s == pytest.approx(a.compute_s, rel=1e-9), gpu  # the same compute time: only bytes shrink
        assert "BF16 rate" in b.efficiency_basis, gpu


def test_inputs_corrected_against_their_sources():
    # Nemotron-4 340B report (arXiv 2406.11704), section 2: 9.4B embedding + 331.6B non-embedding parameters
    assert RUNS["nemotron4-340b-6144"].params == pytest.approx(341.0e9)
    # BigScience tr11-176B-ml README: "The default Megatron-LM dropout settings are inherited" (0.1 and 0.1), and
    # pp rank 0 [embed | 5 transformer blocks], ranks 1-10 six blocks, rank 11 [5 transformer blocks | embed]
    bloom = RUNS["bloom-176b-384"]
    assert bloom.dropout and bloom.uneven_stages
    # Llama 3 Table 4 prints DP 4 for the 128K row; 16,384 / (8 x 16 x 16) and 16M / (16 x 131,072) both give 8
    llama = RUNS["llama3-405b-128k-16384"]
    assert llama.dp == 8 and llama.global_batch == 8 * 16 and "prints 4" in llama.checked
    # llm-foundry's benchmark sweeps of 2023 (scripts/train/benchmarking at 300cc5c, 4b482bd, 803e671, 061f2c7) pass no
    # --attn_impl, so its default 'triton' ran on every row, H100 included: no FlashAttention-3 (rules R61, R5)
    foundry = [run for run in RUNS.values() if run.source == "llm-foundry-bench"]
    assert len(foundry) == 8 and {run.attention for run in foundry} == {"flash2"}


def test_every_model_input_of_every_run_has_a_provenance():
    from interconnect.topics.seating.reference_data import MODEL_INPUTS, inference_rules

    rules = inference_rules()
    assert list(rules) == [f"R{n}" for n in range(1, len(rules) + 1)] and all(rules.values())
    from interconnect.topics.seating.reference_data import OPTIONAL_INPUTS, PublishedRun

    defaults = {f.name: f.default for f in dataclasses.fields(PublishedRun)}
    first_batch = {"llama3", "korthikanti2022", "mtnlg", "narayanan2021", "nemotron4-340b", "bloom"}
    for run in RUNS.values():
        # every input the run sets has an entry; an optional one left at its default needs none (R1); `stack` is
        # named by the source's title
        needed = [k for k in MODEL_INPUTS if k != "stack"
                  and (k not in OPTIONAL_INPUTS or getattr(run, k) != defaults[k] or k in run.provenance)]
        assert set(needed) <= set(run.provenance), (run.id, sorted(set(needed) - set(run.provenance)))
        if run.source in first_batch and not run.id.startswith("narayanan-t2"):
            assert list(run.provenance) == [k for k in MODEL_INPUTS if k in run.provenance], run.id
        for key, value in run.provenance.items():
            assert value.startswith(("stated: ", "inferred: R")), (run.id, key)
    # the corrections say where they come from
    assert RUNS["narayanan-76.1b-1024"].provenance["micro_batch"] == "stated: run_table_1.sh 76B: MBS=2"
    assert "331.6 billion" in RUNS["nemotron4-340b-6144"].provenance["params"]
    assert "prints DP 4" in RUNS["llama3-405b-128k-16384"].provenance["dp"]


def test_a_bad_provenance_is_refused_by_name(tmp_path):
    from interconnect.datafiles.tables import packaged_data_file
    from interconnect.topics.seating.reference_data import ReferenceRunDataError, load_training_runs

    text = packaged_data_file("published/training-runs.toml").read_text(encoding="utf-8")
    bad = tmp_path / "training-runs.toml"
    first = text.index("\n[[run]]\n")
    text = text[:text.index("\n[[run]]\n", first + 1) + 1]  # the header, the sources and the first run: each copy
    # below is parsed whole, and the 292 runs' 1.6 MB would be parsed fourteen times
    run_id = text[first:].split('id = "', 1)[1].split('"', 1)[0]
    head, rest = text[:first], text[first:]
    for broken, message in (
        (head + re.sub(r'\nmicro_batch = "[^"]*"', "", rest, count=1), "provenance missing for micro_batch"),
        (head + re.sub(r'\nmicro_batch = "(inferred|stated): ', '\nmicro_batch = "guessed: ', rest, count=1),
         "provenance of 'micro_batch' must start with"),
        (head + re.sub(r'\nmicro_batch = "inferred: R\d+', '\nmicro_batch = "inferred: R99', rest, count=1),
         "provenance of 'micro_batch' cites no rule"),
        (head + rest.replace("\n[run.provenance]\n", '\n[run.provenance]\nnote = "stated: x"\n', 1),
         "provenance for key\\(s\\) that are not model inputs: note"),
    ):
        bad.write_text(broken, encoding="utf-8")
        with pytest.raises(ReferenceRunDataError, match=f"^training-runs.toml: run '{run_id}': {message}"):
            load_training_runs(bad)


def test_mtnlg_vocabulary_is_megatrons_padding_of_gpt2s_at_tp_8():
    # MT-NLG (arXiv 2201.11990) ran GPT-2's BPE (50,257 tokens) through Megatron-LM's tensor slicing, which pads
    # the vocabulary to a multiple of --make-vocab-size-divisible-by (default 128) x TP (tokenizer.py,
    # _vocab_size_with_padding): at TP 8 a multiple of 1,024, so 51,200 (at TP 1 it would be 50,304). The earlier
    # 50,272 (a multiple of 32, OPT's figure) had no source.
    def padded(vocab: int, tp: int, divisible_by: int = 128) -> int:
        multiple = divisible_by * tp
        return -(-vocab // multiple) * multiple

    assert padded(50_257, 1) == 50_304 and padded(50_257, 8) == 51_200
    runs = [run for run in RUNS.values() if run.source == "mtnlg"]
    assert len(runs) == 3
    for run in runs:
        assert run.vocab == padded(50_257, run.tp) == 51_200, run.id
        assert run.provenance["vocab"].startswith("inferred: R1") and "128" in run.provenance["vocab"], run.id


def test_blackwell_fp8_gemms_run_at_the_measured_ratio():
    # ml-engineering's MAMF table (commit 744d01e): B200 SXM FP8 3432.5 against BF16 1745.0 TFLOP/s = 1.967x, just
    # under the peaks' 2x (4500 / 2250); the family's FP8 GEMM rate is its sustained BF16 one times that ratio
    from interconnect.topics.seating.kernels import kernel_figures
    from interconnect.topics.seating.model.compute import _rates

    k = kernel_figures("b200")
    assert k.fp8_gemm_ratio == pytest.approx(3432.5 / 1745.0, abs=5e-4)
    cluster, _ = resolve_cluster("b200", gpus_per_node=8, nodes=1)
    gemm, _, _, basis = _rates(cluster, Workload(dtype_bytes=1))
    # at the pace of the slowest of the node's 8 GPUs: (10.4 % / 2) x 7 / 9 behind (gpu-kernels.toml speed_spread)
    assert gemm == pytest.approx(1426.4e12 * 1.967 / (1 + 0.104 / 2 * 7 / 9)) and "3432.5" in basis
    bf16, fp8 = _fp8_plan("b200", "bf16"), _fp8_plan("b200", "fp8")
    assert 1.0 < bf16.compute_s / fp8.compute_s < 1.967


def test_megatron_family_runs_on_hopper_and_newer_call_cudnn_attention_the_rest_keep_theirs():
    # rule R26: Transformer Engine's DotProductAttention prefers FusedAttention (cuDNN) to FlashAttention on sm90+
    from dataclasses import replace

    runs = {r.id: r for r in load_reference_runs()}
    mb = next(r for r in runs.values() if "Megatron-Bridge" in r.stack and r.gpu == "h100-sxm" and not r.experts)
    assert mb.attention == "flash" and mb.attention_kernel == "cudnn" and mb.workload().attention == "cudnn"
    assert replace(mb, gpu="a100-sxm").attention_kernel == "flash"          # Ampere: FlashAttention
    assert replace(mb, stack="torchtitan (FSDP2)").attention_kernel == "flash"  # not Transformer Engine's
    assert replace(mb, attention="flash2").attention_kernel == "flash2"      # a stated kernel stays


def test_torchtitans_interleaved_schedule_beats_its_1f1b_by_the_published_margin():
    # torchtitan docs/performance.md at eaea6f6, Table 5: Llama 3.1 405B on 512 H100 (FSDP 8, TP 8, PP 8), 100 TPS/GPU
    # with 1F1B and 128 with interleaved 1F1B. Both ran the code's pipeline defaults (rule R27, torchtitan at 9dec370):
    # 8 micro-batches of 4, two stages per rank for the interleaved schedule.
    runs = {r.id: r for r in load_reference_runs()}
    plain, looped = runs["torchtitan-gt-llama31-405b-512-1f1b"], runs["torchtitan-gt-llama31-405b-512-interleaved"]
    assert (plain.micro_batch, looped.micro_batch, looped.virtual_stages) == (4, 4, 2)
    published = looped.achieved_tflops / plain.achieved_tflops
    assert published == pytest.approx(128 / 100, abs=0.01)
    assert predict(looped).tflops / predict(plain).tflops == pytest.approx(published, rel=0.05)


def test_deepspeed_2021_zero3_rows_gather_on_demand_so_their_exposed_time_does_not_shrink_with_dp():
    # Rule R31 (written before these rows were compared under it): the stack "DeepSpeed ZeRO-3 (2021)" fetched every
    # weight on demand (deepspeed/runtime/zero/stage3.py at c83e49f: the prefetcher's trace step ran one behind),
    # every other run prefetches.
    zero3 = [RUNS[f"narayanan-t2-zero3-175b-{n}"] for n in (384, 768, 1536)]
    assert [r.zero3_fetch_mode for r in zero3] == ["on-demand"] * 3
    assert all(r.workload().zero3_fetch == "on-demand" for r in zero3)
    assert {r.zero3_fetch_mode for r in RUNS.values() if r.stack != "DeepSpeed ZeRO-3 (2021)"} == {"prefetch"}
    # Published: at a fixed global batch of 1,536 the step does not get shorter from 768 to 1,536 GPUs
    # (Narayanan et al. 2021, arXiv 2104.04473, Table 2, ZeRO-3 174.6B rows: 88 TFLOP/s per GPU on 768 GPUs,
    # 44 on 1,536), so what the step waits for grows as fast as the compute per GPU shrinks.
    paper_step = [paper_flops(r) / r.gpus / (r.achieved_tflops * 1e12) for r in zero3]
    assert paper_step[2] == pytest.approx(paper_step[1], rel=0.01)
    # The model's mechanism: every gather is waited for, and a GPU gathers the whole model three times a step
    # whatever DP is, while NCCL's ring latency grows with the ranks; so the exposed time grows with DP.
    bills = [predict(r).bill for r in zero3]
    exposed = [b.exposed_s for b in bills]
    assert exposed[0] < exposed[1] < exposed[2]
    compute = [b.compute_s for b in bills]
    assert compute[2] < compute[1] < compute[0]


def test_deepspeed_2021_zero3_step_is_flat_in_the_gpu_count_as_published():
    # Narayanan et al. 2021, Table 2: 88 TFLOP/s per GPU on 768 GPUs and 44 on 1,536 at the same batch: equal steps.
    # With rule R38's copy per rank of PyTorch's list all-gather the model's step falls 7.5 % (it fell 24 % before).
    pair = [predict(RUNS[f"narayanan-t2-zero3-175b-{n}"]).bill.step_s for n in (768, 1536)]
    assert pair[1] / pair[0] == pytest.approx(1.0, abs=0.15)


def test_deepspeed_2021_zero3_rows_ran_fp16_which_the_model_reads_as_bf16():
    # DeepSpeed at c83e49f (2021-04-14) has no BF16 path: engine.py builds "fp16 ZeRO stage" optimizers after
    # module.half(), and stage3.py keeps its gradient partitions in torch.half (the forty-ninth pass corrected the six
    # rows from bf16). Both are 2 bytes at one A100 tensor-core rate (rule R6), so the correction moves no ratio.
    zero3 = [r for r in RUNS.values() if r.stack == "DeepSpeed ZeRO-3 (2021)"]
    assert len(zero3) == 6 and {r.precision for r in zero3} == {"fp16"}
    for run in zero3:
        as_bf16 = dataclasses.replace(run, precision="bf16")
        assert predict(as_bf16).bill.step_s == pytest.approx(predict(run).bill.step_s, rel=1e-12)


def test_torchtitan_context_parallelism_is_pytorchs_ring():
    # rule R32: torchtitan's CP rows ran PyTorch's context_parallel (load-balanced ring over SDPA, FP32 merges, K and
    # V repeated to the query heads and all-gathered); Megatron-family CP rows keep their own key, and a torchtitan
    # row without CP has no ring at all
    pytorch = [r for r in RUNS.values() if r.workload().context_parallel == "pytorch"]
    assert {r.id for r in pytorch} >= {"torchtitan-gt-llama31-8b-8-cp8-256k", "torchtitan-gt-llama31-405b-512-cp8-256k"}
    assert all("torchtitan" in r.stack and r.cp > 1 and r.context_parallel == "ring" for r in pytorch)
    assert RUNS["torchtitan-gt-llama31-8b-8-cp1-32k"].workload().context_parallel == "ring"
    assert RUNS["llama3-405b-128k-16384"].workload().context_parallel == "all-gather"
    megatron_cp = [r for r in RUNS.values() if r.cp > 1 and "torchtitan" not in r.stack]
    assert megatron_cp and all(r.workload().context_parallel == r.context_parallel for r in megatron_cp)
def test_bloom_runs_deepspeeds_bf16_optimizer_and_reads_near_its_published_throughput():
    # Rule R35 (written before BLOOM was compared under it): the tr11-176B-ml README states the BF16_Optimizer
    # ("implements its own ZeRO Stage 1", "accumulates grads in fp32") under DeepSpeed's pipeline engine, so every
    # micro-batch's gradients are added into FP32 buffers and those are all-reduced in FP32 after the last one.
    bloom = RUNS["bloom-176b-384"]
    assert (bloom.ddp_mode, bloom.grad_bytes, bloom.pipeline_engine) == ("deepspeed-bf16", 4, "deepspeed")
    assert {r.ddp_mode for r in RUNS.values() if r.id != bloom.id} & {"deepspeed-bf16"} == set()
    # Published: about 150 TFLOP/s per GPU (the README's log at iteration 85,376: 104.70 s per iteration, 149.77
    # TFLOPs); the model read 1.155 of it before the rule (1.136 since the slowest of the 384 GPUs sets the pace) and
    # should now be within 10 %.
    assert predict(bloom).tflops == pytest.approx(149.77, rel=0.10)
    before = dataclasses.replace(bloom, ddp="", grad_bytes=0)
    assert predict(before).tflops > 1.13 * 149.77


def test_fsdp2_copies_are_charged_for_torchtitan_runs_only():
    # Rule R37 (written before any run was compared under it): torchtitan's data parallelism is PyTorch FSDP2, whose
    # gathers and reductions copy the weights and gradients through HBM outside NCCL; Megatron-FSDP's buffers are the
    # communication buffers (its README: "zero copy communication") and DeepSpeed 2021's gather copies are R31's.
    titan = [r for r in RUNS.values() if r.torchtitan]
    assert titan and all(r.workload().fsdp2_copies for r in titan)
    assert not any(r.workload().fsdp2_copies for r in RUNS.values() if not r.torchtitan)
    # on a torchtitan row the copies are compute-stream time: the step grows by them (8B on 8 GPUs, one micro-batch:
    # 14 bytes a weight over the 8.0e9 weights at the model's HBM rate, about 52 ms of a 2.5 s step)
    run = RUNS["torchtitan-gt-llama31-8b-8-bf16"]
    with_copies = predict(run).bill
    without = plan(run.model(), run.cluster(), run.layout(), dataclasses.replace(run.workload(), fsdp2_copies=False))
    assert with_copies.compute_s - without.compute_s == pytest.approx(14 * run.params / (0.8955 * 2.4e12), rel=0.02)


def test_gpt_oss_rows_window_the_odd_layers_as_megatron_core_does():
    # Rule R41: Megatron-Bridge's GPT-OSS provider (v0.3.0) sets window_size (128, 0) and window_attn_skip_freq 2;
    # Megatron-Core's is_layer_window_attention (b0cc270) windows layer n (from 1) where n % 2 != 0.
    runs = [run for run in RUNS.values() if run.id.startswith("mbridge2602-gptoss-120b-")]
    assert len(runs) == 3
    for run in runs:
        odd = sum(1 for n in range(1, run.layers + 1) if n % 2 != 0)
        assert (run.attention_window, run.window_layers, odd) == (128, 18, 18), run.id
        assert run.provenance["window_layers"].startswith("inferred: R41"), run.id
    assert all(run.window_layers == 0 for run in RUNS.values() if run not in runs)


def test_megatron_bridge_rows_carry_their_recipes_recomputation_and_pipeline_split():
    # NVIDIA-NeMo/Megatron-Bridge v0.2.0: scripts/performance/configs/llama3/workload_base_configs.py,
    # LLAMA3_8B_H100_FP8_CS_BASE_CONFIG recompute_num_layers=5 (utils/helpers.py: granularity "full", method "block");
    # src/megatron/bridge/recipes/qwen/qwen3_moe.py, qwen3_235b_a22b_pretrain_config: the embedding and the loss
    # counted as pipeline layers
    runs = {r.id: r for r in load_reference_runs()}
    llama = runs["mbridge2511-llama3-8b-h100-8"].workload()
    assert (llama.recompute, llama.recompute_num_layers) == ("full", 5)
    assert runs["mbridge2511-qwen3-235b-h100-256"].workload().lighter_ends
    # no other row of the source recomputes whole layers
    others = [r for r in runs.values() if r.source == "megatron-bridge-perf" and r.id != "mbridge2511-llama3-8b-h100-8"]
    assert all(r.recompute != "full" and r.recompute_num_layers == 0 for r in others)


def test_deepseek_rows_carry_their_multi_token_prediction_and_pipeline_layout():
    # rule R46: the 25.11 table's 'DeepSeekV3 (w/ MTP)' (B200) and '(w/o MTP)' (GB200); Megatron-Bridge v0.2.0's
    # recipes/deepseek/deepseek_v3.py layout_map: (16, 1) leaves the last stage 1 decoder layer (then MTP and the
    # loss), (4, 4) leaves PP rank 3 with 4 + 4 + 4 + 1 = 13; DeepSeek's own weights carry one MTP module
    runs = {r.id: r for r in load_reference_runs()}
    b200, gb200 = runs["mbridge2511-deepseekv3-b200-256"], runs["mbridge2511-deepseekv3-gb200-256"]
    assert (b200.workload().mtp_layers, b200.workload().last_stage_layers) == (1, 1)
    assert (gb200.workload().mtp_layers, gb200.workload().last_stage_layers) == (0, 13)
    assert runs["deepseekv3-pretrain-2048"].mtp_layers == 1
    assert b200.provenance["mtp_layers"].startswith("stated:")
    assert gb200.provenance["last_stage_layers"].startswith("inferred: R46")
    listed = {b200.id, gb200.id, "deepseekv3-pretrain-2048"}
    assert all(r.mtp_layers == 0 and r.last_stage_layers == 0 for r in runs.values() if r.id not in listed)
    # the MTP depth lengthens the B200 row's step (its last stage, 1 layer + MTP + two output layers, becomes the
    # slowest), so the model's TFLOP/s fall; the published side (6N + 12 l h s x tokens/s, R17) does not move
    with_mtp, without = predict(b200), predict(dataclasses.replace(b200, mtp_layers=0))
    assert with_mtp.bill.step_s > without.bill.step_s
    assert with_mtp.ratio < without.ratio
    assert with_mtp.run.achieved_tflops == without.run.achieved_tflops


def test_only_torchtitans_compiled_cp_rows_wait_for_their_ring_where_it_is_issued():
    # Rule R48: the flag follows from the run's stack (torchtitan, CP > 1, torch.compile), no key of its own
    runs = load_reference_runs()
    flagged = sorted(r.id for r in runs if r.workload().cp_waits_at_issue)
    assert flagged == sorted(r.id for r in runs if r.torchtitan and r.cp > 1 and "torch.compile" in r.stack)
    assert len(flagged) == 2
    assert all(r.context_parallel_mode == "pytorch" for r in runs if r.id in flagged)


# NVIDIA/Megatron-LM README at f2e5db402c, images/model_table.png: (row id, per-GPU teraFLOP/s, MFU %, parameters as
# the table labels them, billions). Megatron-LM's count (megatron/training/training.py num_floating_point_operations at
# that commit) for a GPT with one K/V head per head, FFN 4h and no SwiGLU: 72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h)).
_MLM_README_TABLE = (("mlm-readme-1.7b-48", 408.8, 41, 1.7), ("mlm-readme-7.1b-96", 465.9, 47, 7.1),
                     ("mlm-readme-16b-192", 489.1, 49, 16), ("mlm-readme-32b-384", 459.6, 46, 32),
                     ("mlm-readme-70b-768", 419.7, 42, 70), ("mlm-readme-119b-1536", 420.5, 43, 119),
                     ("mlm-readme-177b-2304", 432.8, 44, 177), ("mlm-readme-314b-3072", 474.4, 48, 314),
                     ("mlm-readme-462b-6144", 459.9, 47, 462))


def _megatron_lm_2024_flops(run) -> float:
    B, s, n, h, V = run.global_batch, run.seq_len, run.layers, run.hidden, run.vocab
    return 72 * B * s * n * h * h * (1 + s / (6 * h) + V / (12 * n * h))


@pytest.mark.parametrize(("run_id", "table_tflops", "mfu_percent", "label_b"), _MLM_README_TABLE)
def test_megatron_lm_readme_rows_keep_the_tables_step_time(run_id, table_tflops, mfu_percent, label_b):
    # rule R50 (a): the rows carry PaLM's count, converted so that the step time is the one the table's teraFLOP/s
    # gives in Megatron-LM's own count; the table's MFU is that figure over the H100's 989 TFLOP/s (R50 b)
    run = RUNS[run_id]
    assert run.counts == "model" and run.precision == "bf16" and run.gpu == "h100-sxm"
    step_published = _megatron_lm_2024_flops(run) / run.gpus / (table_tflops * 1e12)
    assert paper_flops(run) / run.gpus / (run.achieved_tflops * 1e12) == pytest.approx(step_published, rel=5e-4)
    assert round(100 * table_tflops / 989) == mfu_percent
    # R50 (c): the table's parameter counts hold two V x h matrices (untied embeddings); its labels are rounded
    # loosely (1.7B for 1.745B, 32B for 31.47B, 119B for 118.45B), so within 3 %; tied, the 1.7B would be 1.48B
    assert run.params == pytest.approx(12 * run.layers * run.hidden ** 2 + 2 * run.vocab * run.hidden, rel=1e-3)
    assert run.params / 1e9 == pytest.approx(label_b, rel=0.03)
    assert not run.tied_embeddings and run.zero == 1 and run.grad_bytes == 4


def test_megatron_lm_readme_strong_scaling_reads_the_texts_end_points():
    # README at f2e5db402c: GPT 177B at batch 1,152 from 96 to 4,608 H100, "a reduction in MFU from 47% to 42%";
    # the rows' throughput was read off images/strong_scaling.png (rule R52), so their Megatron-LM-count MFU must
    # round to the text's figures, and the 2,304-GPU marker (not a row) to the table's 997.2 PFLOP/s
    for run_id, mfu in (("mlm-readme-177b-strong-96", 0.47), ("mlm-readme-177b-strong-4608", 0.42)):
        run = RUNS[run_id]
        assert run.tp == 8 and run.pp == 6 and run.dp * 48 == run.gpus and run.global_batch == 1152
        megatron_tflops = run.achieved_tflops * _megatron_lm_2024_flops(run) / paper_flops(run)
        assert megatron_tflops / 989 == pytest.approx(mfu, abs=0.005)
    series = sorted((r for r in RUNS.values() if r.id.startswith("mlm-readme-177b-strong-")), key=lambda r: r.gpus)
    assert [r.gpus for r in series] == [96, 144, 288, 576, 1152, 3072, 4608]
    assert all(a.achieved_tflops >= b.achieved_tflops for a, b in zip(series, series[1:], strict=False))


def test_the_megatron_lm_readme_rows_pay_for_dropout_inside_cudnns_attention(monkeypatch):
    # rule R58: Megatron-LM's GPT defaults (attention dropout 0.1) and Transformer Engine 1.7-1.9's backend choice,
    # whose cuDNN conditions do not read the dropout probability, so these H100 rows ran cuDNN's attention with dropout
    # inside it, 1.034 times as long as without (TransformerEngine issue 3312: 0.614 ms against 0.594 ms on an H200)
    from interconnect.topics.seating import kernels

    rows = [r for r in RUNS.values() if r.source == "megatron-lm-readme-h100"]
    assert len(rows) == 16
    assert all(r.workload().dropout and r.workload().attention == "cudnn" for r in rows)
    charged = {r.id: predict(r).tflops for r in rows}
    real = kernels.kernel_figures
    monkeypatch.setattr(kernels, "kernel_figures",
                        lambda gpu: dataclasses.replace(real(gpu), cudnn_dropout_ratio=1.0) if real(gpu) else None)
    for r in rows:
        # only the attention calls lengthen, so the whole step by more than nothing and less than the ratio
        assert 1.0 < predict(r).tflops / charged[r.id] < 1.034, r.id
