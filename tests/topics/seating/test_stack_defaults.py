"""The training-stack table: the published runs and the page read the same defaults, and TP overlap acts as it says."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.seating.model import (
    DEFAULT_STACK,
    STACKS,
    TP_OVERLAP_CHOICES,
    Layout,
    Workload,
    plan,
    search_layouts,
    stack_for_run,
    stack_workload,
    tp_overlap_note,
)
from interconnect.topics.seating.model.stack_defaults import OTHER_STACK, PLAN_FIELDS
from interconnect.topics.seating.reference_runs import load_reference_runs
from interconnect.workloads.presets import load_model_presets

RUNS = load_reference_runs()


def test_every_published_stack_has_a_row_and_the_brackets_do_not_decide():
    seen = {run.stack: stack_for_run(run.stack).id for run in RUNS}
    assert seen["NeMo 24.07 (Megatron-Core)"] == "nemo"
    assert seen["Megatron-Bridge 25.11 (Megatron-Core)"] == "megatron-bridge"
    assert seen["torchtitan (FSDP2, torch.compile)"] == "torchtitan"
    assert seen["DeepSpeed ZeRO-3 (2021)"] == "deepspeed"
    assert seen["Megatron-LM (2021)"] == "other"  # before Megatron-Core: the Workload's own defaults
    assert {"nemo", "megatron-bridge", "torchtitan", "deepspeed", "other"} <= set(seen.values())


def test_the_page_applies_the_row_the_runs_read():
    """stack_workload (the page's and plan's path) applied to a run's own workload changes nothing a stack decides:
    the runs and the page read one table. (That a run's fields equal its row is how ReferenceRun.workload is written,
    so it is not asserted here; the rows' values are pinned in test_the_table_says_what_each_stack_does.)"""
    checked = 0
    for run in RUNS:
        row, w = stack_for_run(run.stack), run.workload()
        if row is OTHER_STACK:
            continue
        again = stack_workload(w, row.id, "on" if w.tp_comm_overlap else "off", w.pipeline_engine)
        # CP's ring mode acts at CP > 1 only; rule R53's gradients-only stacks of mid-2024 are a run's own reading
        expected = w if run.cp > 1 or w.context_parallel != "ring" else replace(w, context_parallel=row.cp_ring)
        assert again == replace(expected, chunk_dp_sync=row.chunk_dp_sync), run.id
        checked += 1
    assert checked >= 40


def test_the_default_stack_changes_nothing():
    assert DEFAULT_STACK == next(iter(STACKS)) == "megatron-core"
    # the default stack's defaults are the Workload's own; stack_workload only names the stack (for the error band)
    assert stack_workload(Workload()) == replace(Workload(), stack="megatron-core")
    w = Workload(micro_batch=2, dtype_bytes=1, context_parallel="all-gather", sequence_parallel=False)
    assert stack_workload(w, "megatron-core", "auto") == replace(w, stack="megatron-core")


def test_the_table_says_what_each_stack_does():
    assert [sid for sid, s in STACKS.items() if s.tp_comm_overlap] == ["nemo", "megatron-bridge"]
    tt = stack_workload(Workload(), "torchtitan")
    assert (tt.selective_policy, tt.loss_fp32_copies, tt.fsdp2_copies, tt.context_parallel) == \
        ("torchtitan-op", 3, True, "pytorch")
    assert stack_workload(Workload(), "deepspeed").pipeline_engine == "deepspeed"
    assert stack_workload(Workload(), "deepspeed", pipeline_engine="megatron").pipeline_engine == "megatron"
    assert stack_workload(Workload(dtype_bytes=1), "megatron-bridge").fp8_param_gather
    assert not stack_workload(Workload(dtype_bytes=2), "megatron-bridge").fp8_param_gather
    assert all(s.source for s in STACKS.values())


def test_unknown_choices_are_refused_in_words():
    with pytest.raises(ValueError, match="Unknown training stack"):
        stack_workload(Workload(), "nonsense")
    with pytest.raises(ValueError, match="TP overlap must be auto, on, off"):
        stack_workload(Workload(), "nemo", "<script>")


def _bill(workload, tp=8, pp=4):
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    return plan(load_model_presets()["llama3-70b"], cluster, Layout(tp=tp, pp=pp, dp=64 // (tp * pp), zero=1),
                workload)


def test_overlap_shortens_a_tp8_step_and_only_with_sequence_parallelism():
    off, on = _bill(stack_workload(Workload())), _bill(stack_workload(Workload(), "nemo"))
    tp_off = next(d for d in off.dimensions if d.name == "tp").exposed_s
    tp_on = next(d for d in on.dimensions if d.name == "tp").exposed_s
    # overlap hides part of TP's exposed time (7.43 -> 4.42 s a step here), and the step falls by at least that
    # (the pipeline's idle slots are micro-batch times, which shrink with it: 34.58 -> 31.51 s)
    assert 0 < tp_on < tp_off
    assert off.step_s - on.step_s >= (tp_off - tp_on) * (1 - 1e-9)
    no_sp = Workload(sequence_parallel=False)
    assert _bill(stack_workload(no_sp, "nemo")).step_s == _bill(stack_workload(no_sp)).step_s
    assert "needs sequence parallelism" in tp_overlap_note(stack_workload(no_sp, "nemo"), 8, "nemo")
    forced = stack_workload(Workload(), "megatron-core", "on")
    assert "needs TP > 1" in tp_overlap_note(forced, 1, "megatron-core", "on")
    assert tp_overlap_note(stack_workload(Workload(), "nemo"), 8, "nemo") == ""


def test_the_search_tries_every_layout_with_the_stacks_settings():
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    model = load_model_presets()["llama3-70b"]
    off = search_layouts(model, cluster, stack_workload(Workload()))
    on = search_layouts(model, cluster, stack_workload(Workload(), "nemo"))
    assert on.best.workload.tp_comm_overlap and not off.best.workload.tp_comm_overlap
    assert on.best.step_s < off.best.step_s


def test_the_stack_sets_its_plan_fields_and_nothing_else():
    # PLAN_FIELDS is what stack_workload writes: every field a stack changes is one of them, and each of them is
    # changed by some stack from a workload that holds none of the stacks' values (the list and the code agree)
    start = Workload(dtype_bytes=1, selective_policy="none", loss_fp32_copies=2, chunk_dp_sync="grads",
                     p2p_blocking=False, pipeline_engine="other")
    changed = set()
    for sid in STACKS:
        for overlap in TP_OVERLAP_CHOICES:
            after = stack_workload(start, sid, overlap)
            changed |= {f.name for f in fields(Workload) if getattr(after, f.name) != getattr(start, f.name)}
    assert changed == set(PLAN_FIELDS)
