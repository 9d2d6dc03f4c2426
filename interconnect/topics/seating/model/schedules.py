"""Pipeline schedules: the bubble each pays and the micro-batches each keeps in flight.

1F1B, interleaved (virtual stages), zero-bubble and DualPipe; layers per stage, uneven stages included.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from interconnect.topics.seating.model.layout import Workload
from interconnect.units import expects

__all__ = [
    "blocking_1f1b_sends",
    "blocking_interleaved_transfers",
    "deepspeed_pipeline_waits",
    "dualpipe_end_rank_s",
    "interleaved_pipeline_s",
    "pipeline_bubble_fraction",
    "stage_layers",
]


def pipeline_bubble_fraction(pp: int, micro_batches: int, schedule: str = "1f1b", virtual_stages: int = 1) -> float:
    r"""Compute the share of a pipeline step spent idle, by schedule.

    Parameters
    ----------
    pp : int
        p, pipeline stages.
    micro_batches : int
        m, micro-batches per step.
    schedule : {"1f1b", "interleaved", "zero-bubble", "dualpipe"}, default "1f1b"
        The pipeline schedule.
    virtual_stages : int, default 1
        v, model chunks per GPU (interleaved only).

    Returns
    -------
    float
        The idle share of the whole step (0 for one stage).

    Notes
    -----
    The idle time in units of one micro-batch's forward and backward is :math:`I = p - 1` for 1F1B
    (Narayanan et al., https://arxiv.org/abs/2104.04473, section 2.2.1: the bubble is
    :math:`(p-1)/m` of the ideal time), :math:`(p - 1)/v` for the interleaved schedule (same paper,
    section 2.2.2) and about :math:`(p - 1)/3` for ZB-H1 (Qi et al.,
    https://arxiv.org/abs/2401.10241, with equal forward, input-gradient and weight-gradient
    times). Of the whole step it is

    .. math:: \beta = \frac{I}{m + I}

    Examples
    --------
    >>> f"{pipeline_bubble_fraction(4, 12):.0%}", f"{pipeline_bubble_fraction(16, 32, 'interleaved', 4):.1%}"
    ('20%', '10.5%')
    """
    if pp <= 1:
        return 0.0
    idle = {"1f1b": pp - 1.0, "interleaved": (pp - 1.0) / max(1, virtual_stages),
            "zero-bubble": (pp - 1.0) / 3.0, "dualpipe": max(pp / 2 - 1.0, 0.0) * 2 / 3}[schedule]
    return idle / (micro_batches + idle)


def stage_layers(layers: int, pp: np.ndarray, lighter_ends: bool,
                 last_layers: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Count the transformer layers on the fullest pipeline stage and on the last (which adds the output).

    Layers are spread as evenly as they go; the last stage gets the floor. With ``lighter_ends``
    the first and last stage each count the embedding or the output layer as one layer's slot. With
    ``last_layers`` (a pipeline layout that fixes the last rank's layers, ``Workload.last_stage_layers``) the last
    stage holds that many wherever there is a pipeline and the other stages share the rest, the fullest
    ``ceil((layers - last_layers) / (pp - 1))``.

    Examples
    --------
    >>> most, last = stage_layers(126, np.array([16]), lighter_ends=True)   # Llama 3 405B on 16 stages
    >>> int(most[0]), int(last[0])
    (8, 7)
    >>> [int(v[0]) for v in stage_layers(126, np.array([16]), lighter_ends=False)]
    [8, 7]
    >>> [int(v[0]) for v in stage_layers(61, np.array([16]), False, last_layers=1)]   # DeepSeek-V3, rule R46
    [4, 1]
    """
    pp = np.asarray(pp, dtype=float)
    slots = layers + (2.0 if lighter_ends else 0.0)
    slots = np.where(pp > 2, slots, layers)
    most = np.ceil(slots / pp)
    last = np.floor(slots / pp) - np.where((pp > 2) & lighter_ends, 1.0, 0.0)
    last = np.where(pp <= 1, layers, np.maximum(last, 1.0))
    if last_layers > 0:
        fixed = pp > 1
        most = np.where(fixed, np.ceil((layers - float(last_layers)) / np.maximum(pp - 1.0, 1.0)), most)
        last = np.where(fixed, float(last_layers), last)
    return most, last


def blocking_1f1b_sends(pp: np.ndarray | float, micro: np.ndarray | float) -> np.ndarray:
    r"""Stage-boundary transfers a 1F1B step waits for beyond the :math:`2(p - 1)` of filling and draining the pipeline.

    Parameters
    ----------
    pp, micro : array-like
        p pipeline stages and m micro-batches per step.

    Returns
    -------
    float or ndarray
        A count of transfers, each one stage-boundary send's time (0 without a pipeline or with one micro-batch).

    Notes
    -----
    Megatron-LM's schedule without interleaving (``forward_backward_pipelining_without_interleaving``) waits for each
    exchange before the next forward or backward: ``_communicate`` in ``megatron/p2p_communication.py`` (2021-2022)
    and ``megatron/core/pipeline_parallel/p2p_communication.py`` (r0.8 to 0.16) waits for the requests and, with
    ``batch_p2p_comm`` and ``batch_p2p_sync`` on, synchronizes the device; that schedule refuses ``overlap_p2p_comm``
    (rule R54 of ``training-runs.toml``). Its steady state on rank r is forward, ``send_forward_recv_backward``
    with rank r + 1, backward, ``send_backward_recv_forward`` with rank r - 1, each exchange one transfer each way. An
    event-by-event run of that order (tests/topics/seating/test_blocking_1f1b.py) ends after

    .. math:: (m + p - 1)\, t_\mu + \left[2(p - 1) + k(m - 1) - (k - 1)\right] t_{p2p}, \quad k = \min(p - 1, 2)

    for m >= 2, and after the fill-and-drain form alone for m = 1: a middle rank exchanges with k = 2 neighbours
    every micro-batch, and the first micro-batch's exchanges and the last's overlap the chain of filling and draining.

    PyTorch's ``Schedule1F1B`` (torch.distributed.pipelining, torchtitan's 1F1B; rule R57) waits for the same two
    exchanges in the same order in its steady state and leaves its warm-up and cool-down sends running beside the
    next compute; an event-by-event run of that order (tests/topics/seating/test_torchtitan_1f1b.py) ends at the same
    time, since the receiver of each of those sends is already waiting for it.

    Examples
    --------
    >>> [float(blocking_1f1b_sends(p, 8)) for p in (1, 2, 4)]   # no pipeline; one neighbour: m - 1; two: 2m - 3
    [0.0, 7.0, 13.0]
    >>> float(blocking_1f1b_sends(16, 1))
    0.0
    """
    pp, micro = np.asarray(pp, dtype=float), np.asarray(micro, dtype=float)
    k = np.clip(pp - 1.0, 0.0, 2.0)
    return np.where((pp > 1) & (micro >= 2), k * (micro - 1.0) - (k - 1.0), 0.0)


def blocking_interleaved_transfers(pp: np.ndarray | float, v: np.ndarray | float,
                                   micro: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    r"""Transfers and TP gathers Megatron-LM 2021's interleaved step waits for beyond those of filling and draining.

    Parameters
    ----------
    pp, v, micro : array-like
        p pipeline stages, v model chunks per GPU and m micro-batches per step.

    Returns
    -------
    tuple of (float or ndarray, float or ndarray)
        Stage-boundary transfers, and all-gathers of a received slice in the TP group (which only a run without
        sequence parallelism makes), each beyond the :math:`2(pv - 1)` sends, each with its gather, that the step
        charges an interleaved pipeline anyway; 0 without a pipeline.

    Notes
    -----
    Megatron-LM before Megatron-Core (``forward_backward_pipelining_with_interleaving``, ``megatron/schedules.py`` at
    6985e589) follows each steady-state chunk forward and chunk backward with one
    ``send_forward_backward_recv_forward_backward``: the forward's output to rank r + 1 and the backward's input
    gradient to rank r - 1, the next input from r - 1 and the next output gradient from r + 1, all in one
    ``batch_isend_irecv`` that ``_communicate`` waits for and follows with ``torch.cuda.synchronize()``, and then,
    without sequence parallelism, one TP all-gather per tensor received (rule R56 of ``training-runs.toml``). The
    batch's transfers with the two neighbours run at once (NCCL: calls of a group progress independently). An
    event-by-event run of that order (tests/topics/seating/test_blocking_interleaved.py) ends after

    .. math:: \left(m + \frac{p - 1}{v}\right) t_\mu + \left[2(pv - 1) + v(m - p) + p - 1\right] t_{net}
              + \left[2(pv - 1) + 2v(m - p) + 2p - 3\right] t_{gather}

    for m a multiple of p above p (the code asserts p > 2 and m a multiple of p), and with the added counts
    :math:`2(p - 1)` each for m = p, where every forward runs before the first backward: the steady state holds
    the whole ring in step, one transfer time a chunk pair, and two gathers where both directions receive. The
    form is used as it stands for every m > p (and the m = p one for m <= p).

    Examples
    --------
    >>> [float(x) for x in blocking_interleaved_transfers(4, 3, 28)]   # 3 x 24 + 3; 2 x 3 x 24 + 5
    [75.0, 149.0]
    >>> [float(x) for x in blocking_interleaved_transfers(8, 2, 8)]    # m = p: 2(p - 1) each
    [14.0, 14.0]
    >>> [float(x) for x in blocking_interleaved_transfers(1, 2, 8)]
    [0.0, 0.0]
    """
    pp, v, micro = (np.asarray(x, dtype=float) for x in (pp, v, micro))
    on = pp > 1
    steady = micro > pp
    sends = np.where(steady, v * (micro - pp) + pp - 1.0, 2.0 * (pp - 1.0))
    gathers = np.where(steady, 2.0 * v * (micro - pp) + 2.0 * pp - 3.0, 2.0 * (pp - 1.0))
    return np.where(on, sends, 0.0), np.where(on, gathers, 0.0)


def deepspeed_pipeline_waits(pp: np.ndarray | float,
                             micro: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    r"""Transfers and TP gathers a step of DeepSpeed's pipeline engine waits for, filling and draining included.

    Parameters
    ----------
    pp, micro : array-like
        p pipeline stages and m micro-batches per step.

    Returns
    -------
    tuple of (float or ndarray, float or ndarray)
        Stage-boundary transfers N, each one transfer time, and all-gathers G of a partitioned slice in the TP
        group, each one gather time (gathers happen only with TP > 1 and are the caller's to price); 0 without a
        pipeline.

    Notes
    -----
    ``TrainSchedule`` (``deepspeed/runtime/pipe/schedule.py``, microsoft/DeepSpeed at e2fdd254e and 29bee73, the
    engine MT-NLG's Megatron-DeepSpeed needs; rule R62 of ``training-runs.toml``) gives each stage
    :math:`2(m + p - 1)` steps, forward and backward in turn. A forward step receives its activation from stage
    s - 1 and then sends it the last gradient; a backward step sends the last activation to s + 1 and then receives
    its gradient. ``p2p.send`` and ``p2p.recv`` (``runtime/pipe/p2p.py``) are blocking ``dist.send`` and
    ``dist.recv``, one after the other, and a send ends only once its receiver has posted the receive. With TP > 1
    a crossing is a 1/t slice, and ``PartitionedTensor.full`` all-gathers the whole tensor on the compute stream
    inside the instruction that needs it (``runtime/pipe/engine.py``): a forward its input, a backward its output
    (to restore the graph) and the gradient it received; the first stage has no input to gather and the last no
    output to restore and no gradient to gather. An event-by-event run of that order with a forward and backward
    time per slot, each transfer taking :math:`c` and each gather :math:`g` (tests/topics/seating/
    test_deepspeed_pipeline.py) ends after

    .. math:: (m + p - 1)\, t_\mu + N c + G g, \quad N = 2(p - 1) + 4(m - 1) - 2, \quad G = 3(m + p - 1) - 5

    for p >= 3 stages and m >= 2 micro-batches; with two stages :math:`N = G = 2m`, and with one micro-batch
    :math:`N = 2(p - 1)` and :math:`G = 3(p - 1)`. A middle stage makes four transfers a micro-batch, one at a time,
    but the first and last micro-batches' exchanges overlap the chain of filling and draining; its three gathers a
    micro-batch hold its slot, idle slots included, as the slowest stage's compute does.

    Examples
    --------
    >>> [float(x) for x in deepspeed_pipeline_waits(35, 240)]   # 68 + 4 x 239 - 2; 3 x 274 - 5
    [1022.0, 817.0]
    >>> [float(x) for x in deepspeed_pipeline_waits(2, 8)]      # two stages: 2m each
    [16.0, 16.0]
    >>> [float(x) for x in deepspeed_pipeline_waits(12, 1)]     # one micro-batch: 2(p - 1), 3(p - 1)
    [22.0, 33.0]
    >>> [float(x) for x in deepspeed_pipeline_waits(1, 8)]
    [0.0, 0.0]
    """
    pp, micro = np.asarray(pp, dtype=float), np.asarray(micro, dtype=float)
    one = micro < 2
    two = pp < 3
    sends = np.where(one, 2.0 * (pp - 1.0), np.where(two, 2.0 * micro, 2.0 * (pp - 1.0) + 4.0 * (micro - 1.0) - 2.0))
    gathers = np.where(one, 3.0 * (pp - 1.0), np.where(two, 2.0 * micro, 3.0 * (micro + pp - 1.0) - 5.0))
    on = pp > 1
    return np.where(on, sends, 0.0), np.where(on, gathers, 0.0)


@expects(micro_s="s", send_s="s", gather_s="s")
def interleaved_pipeline_s(micro: np.ndarray | float, pp: np.ndarray | float, v: np.ndarray | float,
                           micro_s: np.ndarray | float, send_s: np.ndarray | float, overlap_slowdown: float = 0.0,
                           blocking: bool = False,
                           gather_s: np.ndarray | float = 0.0) -> np.ndarray:
    r"""Seconds of an interleaved step that depend on the chunk count ``v``: idle slots, exposed and hidden sends.

    Parameters
    ----------
    micro, pp, v : array-like
        m micro-batches, p stages, v model chunks per GPU.
    micro_s, send_s : array-like
        Seconds of one micro-batch on the slowest stage, and of one stage-boundary send.
    overlap_slowdown : float, default 0
        What compute loses while a send runs beside it, per second of hidden send (the step's ``OVERLAP_SLOWDOWN``).
    blocking : bool, default False
        Megatron-LM 2021's exchanges (``Workload.interleaved_p2p`` "blocking", rule R56): the transfers and gathers of
        :func:`blocking_interleaved_transfers` exposed as well, and no send hidden.
    gather_s : array-like, default 0
        Seconds of ``send_s`` that are the TP all-gather of a received slice (without sequence parallelism).

    Returns
    -------
    float or ndarray
        Seconds: the m micro-batches and the idle slots, the exposed sends and the slowdown the hidden ones cause.

    Notes
    -----
    The step (``evaluate_layouts``) charges the idle slots :math:`(p - 1)/v` micro-batch times (Narayanan et al.
    2021, section 2.2.2), the :math:`2(pv - 1)` sends of filling and draining the pipeline as exposed, and the rest
    of the :math:`2mv` sends as hidden behind the chunks' compute, which runs ``overlap_slowdown`` slower beside
    them (Lee et al. 2025, arXiv 2507.03114; Megatron-LM overlaps these sends when interleaving). So each chunk
    more adds :math:`2p` exposed sends and :math:`2(m - p)` hidden ones:

    .. math:: T(v) = \left(m + \frac{p - 1}{v}\right) t_\mu + 2(pv - 1)\, t_{p2p}
              + \sigma \cdot 2(mv - pv + 1)\, t_{p2p}

    Examples
    --------
    >>> float(interleaved_pipeline_s(128, 8, 10, 1.0, 0.01, 0.189))   # 128.7 + 1.58 + 0.189 x 2,402 x 0.01
    134.81978
    """
    micro, pp, v = (np.asarray(x, dtype=float) for x in (micro, pp, v))
    exposed = 2 * (pp * v - 1)
    hidden = np.maximum(2 * micro * v - exposed, 0.0)
    bubble = (micro + (pp - 1) / v) * micro_s + exposed * send_s
    if blocking:
        sends, gathers = blocking_interleaved_transfers(pp, v, micro)
        return bubble + sends * (send_s - gather_s) + gathers * gather_s
    return bubble + overlap_slowdown * hidden * send_s


def _virtual_stages(workload: Workload, most: np.ndarray, micro: np.ndarray, pp: np.ndarray,
                    t_micro: np.ndarray, t_p2p: np.ndarray, overlap_slowdown: float = 0.0,
                    fits: Callable[[np.ndarray], np.ndarray] | None = None,
                    t_gather: np.ndarray | float = 0.0) -> np.ndarray:
    """Model chunks per GPU: 1 unless interleaved; the workload's, else the fastest the layers allow.

    Fastest by what the step charges for the chunk count (:func:`interleaved_pipeline_s`): the idle slots, the
    exposed sends and the slowdown of the compute the other sends hide behind (or, for Megatron-LM 2021's blocking
    exchanges, rule R56, every transfer and gather it waits for; ``t_gather`` is the TP gather within ``t_p2p``). With
    ``fits`` (whether a layout's
    memory fits with v chunks), the fastest split that fits, where one does; fewer chunks keep more micro-batches'
    activations in flight. The data-parallel round's chunk-by-chunk sync (``Workload.chunk_dp_sync``, rule R53) is
    not weighed: it is priced after the chunk count is chosen, and it only ever hides more with more chunks.
    """
    if workload.schedule != "interleaved":
        return np.ones_like(most)
    if workload.virtual_stages > 0:
        return np.minimum(float(workload.virtual_stages), np.maximum(most, 1.0))
    blocking = workload.interleaved_p2p == "blocking" and workload.pipeline_engine == "megatron"  # rule R56
    def fastest(allowed: Callable[[float], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        best_v, best_t = np.ones_like(most), np.full_like(most, np.inf)
        for v in range(1, min(int(np.max(most)), 64) + 1):  # beyond 64 chunks the bubble gain is below 2 % of p - 1
            t = interleaved_pipeline_s(micro, pp, float(v), t_micro, t_p2p, overlap_slowdown, blocking, t_gather)
            better = (v <= most) & (np.mod(most, v) == 0) & (t < best_t - 1e-12)  # whole layers per model chunk
            better = better & allowed(float(v)) if better.any() else better
            best_v, best_t = np.where(better, v, best_v), np.where(better, t, best_t)
        return best_v, best_t

    best_v, _ = fastest(lambda v: True)
    if fits is None or bool(np.all(fits(best_v))):
        return best_v
    fit_v, fit_t = fastest(lambda v: fits(np.full_like(most, v)))
    return np.where(np.isfinite(fit_t), fit_v, best_v)


def _in_flight(schedule: str, pp: np.ndarray, micro: np.ndarray, v: np.ndarray | float,
               rank: int) -> np.ndarray:
    """Micro-batches whose activations pipeline rank ``rank`` holds at its fullest, in units of its layers.

    1F1B and ZB-H1: ``min(p - rank, m)`` (the warm-up forwards plus one; Narayanan et al. 2021, section
    2.2.1). Interleaved with ``v`` chunks, as Megatron-LM's interleaved schedule counts its warm-up
    (``megatron/core/pipeline_parallel/schedules.py``): ``2 (p - rank - 1) + (v - 1) p`` chunk forwards
    (micro-batch groups of p), capped at all ``m v`` of them, plus the one the steady state runs before
    its first backward; each chunk holds 1/v of the stage's layers. On rank 0 that is Korthikanti et
    al.'s ``p (1 + (p - 1)/(p v))`` (section 4.2.3). DualPipe: ``p + 1`` (its README). The group of p
    is Megatron-LM's default ``microbatch_group_size_per_vp_stage``; a smaller group (Llama 3's tunable
    N, arXiv 2407.21783, section 3.3.2) holds fewer, but no published run states it.
    """
    pp = np.asarray(pp, dtype=float)
    micro = np.asarray(micro, dtype=float)
    v = np.maximum(np.asarray(v, dtype=float), 1.0)
    later = np.maximum(pp - rank, 1.0)
    if schedule == "interleaved":
        warm = 2 * np.maximum(pp - rank - 1, 0.0) + (v - 1) * pp
        return np.minimum(warm + 1, micro * v) / v
    if schedule == "dualpipe":
        return np.minimum(pp + 1 - rank, micro)
    return np.minimum(later, micro)


def _bubble_reason(workload: Workload, pp: int, micro: int, v: int, idle_micro: float) -> str:
    """One sentence: the bubble this schedule pays and why."""
    if pp <= 1:
        return "No pipeline: no bubble."
    if workload.schedule == "interleaved":
        return (f"Interleaved 1F1B with {v} model chunks per GPU: the pipeline idles (p − 1)/v = {pp - 1}/{v} = "
                f"{idle_micro:.2f} micro-batch times against {micro} of work, for {v}× the stage-boundary sends.")
    if workload.schedule == "dualpipe":
        return (f"DualPipe: micro-batches enter from both ends; it idles (p/2 − 1) × 2/3 = {idle_micro:.2f} "
                f"micro-batch times against {micro} of work, keeps the weights twice and hides each chunk's expert "
                "all-to-all behind the other chunk's compute.")
    if workload.schedule == "zero-bubble":
        return (f"Zero-bubble (ZB-H1): weight gradients fill most of the pipeline's idle time; it idles about "
                f"(p − 1)/3 = {idle_micro:.2f} micro-batch times against {micro} of work.")
    return (f"1F1B: filling and draining {pp} stages idles p − 1 = {pp - 1} micro-batch times against {micro} of "
            "work; more micro-batches or an interleaved schedule shrink it.")


@expects(first_stage_s="s", last_stage_s="s")
def dualpipe_end_rank_s(first_stage_s, last_stage_s):
    """Seconds a micro-batch takes on average on DualPipe's end rank, which holds the first and the last stage.

    DualPipe sends half the micro-batches each way: rank i holds stage i of one direction and stage p - 1 - i of the
    other, so the deepest stage (the output layer, and any multi-token prediction) shares its rank with the shallowest
    (the embedding) and that rank spends the mean of the two stages' times a micro-batch (DeepSeek-V3 report, arXiv
    2412.19437, section 3.2.3: "the shallowest layers ... and deepest layers ... on the same PP rank"; the two copies
    of the weights are charged in memory).

    >>> dualpipe_end_rank_s(4.0, 6.0)
    5.0
    """
    return 0.5 * (first_stage_s + last_stage_s)
