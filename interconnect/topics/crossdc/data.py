"""``crossdc.toml``, read and checked: what the papers on training across data centres ran and reported.

The records here are the published figures the Across sites page shows and the tests check: each
method's defaults, CrossPipe's network classes, the 6N compute rule, Streaming DiLoCo's Table 4,
INTELLECT-1's Table 2, the SparseLoCo encoding, the reported results, quoted claims and the model's
limits. Times are in s and rates in B/s, as each field's name says; sources are ids in ``sources.toml``.
The arithmetic on them is :mod:`interconnect.topics.crossdc.model`, which re-exports these names.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from interconnect.catalog import CatalogError, get_catalog
from interconnect.datafiles.records import Field, Record
from interconnect.datafiles.tables import DataFile, packaged_data_file

__all__ = [
    "CONFIDENCES",
    "METHODS",
    "PIPELINE_QUANTITIES",
    "STREAMING_METHODS",
    "EXCHANGES",
    "ComputeRule",
    "CrossDCData",
    "CrossDCDataError",
    "DiLoCoScaling",
    "Intellect1",
    "IntellectSpan",
    "Limit",
    "MethodDefaults",
    "NetworkClass",
    "PipelineCase",
    "PipelineDataError",
    "Quoted",
    "Reported",
    "ScalingPoint",
    "SparseEncoding",
    "Table4",
    "Table4Row",
    "TargetSteps",
    "TokenShape",
    "WeightSyncDataError",
    "WeightSyncMeasurement",
    "WeightSyncRatio",
    "get_crossdc_data",
    "get_pipeline_cases",
    "get_weight_sync_data",
    "get_weight_sync_ratios",
    "load_crossdc_data",
    "load_pipeline_cases",
    "load_weight_sync_data",
    "load_weight_sync_ratios",
]

#: Method ids (public schema: URL values and CLI choices); the file holds one [[method]] for each.
METHODS = ("dp", "diloco", "diloco-int8", "streaming-diloco", "sparseloco", "cocodc", "mt-dao", "crosspipe")
#: Methods that send one fragment of a few layers at a time, overlapped with tau inner steps.
STREAMING_METHODS = ("streaming-diloco", "cocodc")
#: How the sites exchange their payloads.
EXCHANGES = ("ring", "hierarchical", "allgather")
#: How sure we are of a reported result.
CONFIDENCES = ("high", "medium", "low")
#: Whether a steps-to-target ratio was measured for the method itself, carried over from another, or exact
#: (the method applies the very updates of fully synchronous data parallel, so its ratio is 1 by construction).
BASES = ("measured", "extrapolated", "exact")

_DATA_FILE = "crossdc.toml"


class CrossDCDataError(CatalogError):
    """``crossdc.toml`` is inconsistent; the message names the file, the table and the key."""


class _CrossDCFile(DataFile):
    error = CrossDCDataError


@dataclass(frozen=True)
class MethodDefaults:
    """What a paper ran: the defaults of one method, with where they are stated."""

    id: str
    name: str
    inner_steps: int
    bits: int
    topology: str
    sources: tuple[str, ...]
    where: str
    overlap_steps: int = 0
    layers_per_fragment: int = 0
    chunk: int = 0
    topk: int = 0
    index_bits: int = 0
    #: Model-sized tensors sent per synchronisation (3 for MT-DAO: parameters, momentum, second moment).
    states: int = 1
    #: Micro-batches per step of the global batch (CrossPipe's pipeline only).
    micro_batches: int = 0


@dataclass(frozen=True)
class NetworkClass:
    """A class of link between sites (CrossPipe §2.3), with the preset's latency and bandwidth."""

    id: str
    name: str
    published: str
    latency_s: float
    bandwidth_bytes_per_s: float
    per_port: bool
    sources: tuple[str, ...]
    where: str

    @property
    def rtt_s(self) -> float:
        """Round trip in s: twice the one-way latency."""
        return 2 * self.latency_s


@dataclass(frozen=True)
class Table4Row:
    """One model of Streaming DiLoCo's Table 4: its shape, step time (s) and WAN Gbit/s per utilisation target."""

    model: str
    params: float
    layers: int
    step_s: float
    variant: str
    required_gbit_per_s: tuple[float, ...]


@dataclass(frozen=True)
class Table4:
    """Streaming DiLoCo's Table 4: simulated WAN bandwidth for a target compute utilisation."""

    sources: tuple[str, ...]
    where: str
    utilization: tuple[float, ...]
    sites: int
    inner_steps: int
    grid_step: float
    rows: tuple[Table4Row, ...]


@dataclass(frozen=True)
class IntellectSpan:
    """One span of INTELLECT-1's Table 2: the median all-reduce time (s) and the utilisation (%)."""

    name: str
    allreduce_s: float
    utilization_percent: float


@dataclass(frozen=True)
class Intellect1:
    """INTELLECT-1's Table 2: compute per round and the median all-reduce time per span."""

    sources: tuple[str, ...]
    where: str
    confidence: str
    params: float
    inner_steps: int
    compute_s: float
    spans: tuple[IntellectSpan, ...]


@dataclass(frozen=True)
class SparseEncoding:
    """SparseLoCo's payload encoding as run in Covenant-72B."""

    sources: tuple[str, ...]
    where: str
    chunk: int
    topk: int
    value_bits: int
    index_bits: int
    index_bits_lower_bound: float
    compression_vs_fp32_at_least: float


@dataclass(frozen=True)
class ComputeRule:
    """Training FLOPs per parameter per token, and the backward pass's share of them."""

    sources: tuple[str, ...]
    where: str
    flops_per_param_per_token: float
    backward_flops_per_param_per_token: float

    @property
    def backward_fraction(self) -> float:
        """The backward pass's share of a training step's FLOPs (dimensionless; 4/6 by the 6N rule)."""
        return self.backward_flops_per_param_per_token / self.flops_per_param_per_token


@dataclass(frozen=True)
class Reported:
    """One published result, as a card: a headline number, a sentence, the source and our confidence."""

    id: str
    work: str
    headline: str
    claim: str
    sources: tuple[str, ...]
    where: str
    confidence: str
    note: str = ""


@dataclass(frozen=True)
class Quoted:
    """A claim heard in talks, and what the sources say."""

    claim: str
    correction: str
    sources: tuple[str, ...]


@dataclass(frozen=True)
class Limit:
    """A limit of the simple model, stated with its sources."""

    text: str
    sources: tuple[str, ...]


@dataclass(frozen=True)
class TargetSteps:
    """One method's steps to reach fully synchronous data parallel's loss, as published.

    ``steps_ratio`` is against ``relative_to`` (a method id); ``timing`` names the page's method whose time per
    step applies ("" for none); ``params``, ``replicas`` and ``inner_steps`` are where it was measured (0: not
    stated in what was read); ``time_ratio`` is the source's own wall-clock ratio against data parallel (0: none).
    """

    id: str
    name: str
    timing: str
    steps_ratio: float
    relative_to: str
    basis: str
    params: float
    replicas: int
    inner_steps: int
    sources: tuple[str, ...]
    where: str
    how: str
    time_ratio: float = 0.0
    #: "diloco-scaling": the ratio comes from the scaling law at each case (``[diloco_scaling]``), and
    #: ``steps_ratio`` is the published value kept beside it.
    law: str = ""


#: Laws a [[time_to_target]] row may take its ratio from.
LAWS = ("", "diloco-scaling")


@dataclass(frozen=True)
class ScalingPoint:
    """One model size of the DiLoCo scaling-law paper: data parallel's loss and DiLoCo's per replica count."""

    params: float
    dp_loss: float
    #: DiLoCo's loss for the first ``len(diloco_loss)`` entries of :attr:`DiLoCoScaling.replicas`.
    diloco_loss: tuple[float, ...]


@dataclass(frozen=True)
class TokenShape:
    """Hoffmann et al.'s parametric loss L(N, D) = E + A/N^alpha + B/D^beta (only its shape in D is used)."""

    sources: tuple[str, ...]
    where: str
    e: float
    a: float
    b: float
    alpha: float
    beta: float


@dataclass(frozen=True)
class DiLoCoScaling:
    """Charles et al. 2025's measured losses and fitted laws for DiLoCo against data parallel (arXiv 2503.09799).

    ``dp_law`` is (A, alpha) of L = A N^alpha; ``joint_law`` is (A, alpha, beta) of L = A N^alpha M^beta.
    """

    sources: tuple[str, ...]
    where: str
    inner_steps: int
    tokens_per_param: float
    replicas: tuple[int, ...]
    dp_law: tuple[float, float]
    joint_law: tuple[float, float, float]
    points: tuple[ScalingPoint, ...]
    tokens: TokenShape


@dataclass(frozen=True)
class CrossDCData:
    """Everything in ``crossdc.toml``, checked."""

    methods: Mapping[str, MethodDefaults]
    networks: Mapping[str, NetworkClass]
    compute: ComputeRule
    table4: Table4
    intellect1: Intellect1
    sparseloco: SparseEncoding
    reported: tuple[Reported, ...]
    quoted: tuple[Quoted, ...]
    limits: tuple[Limit, ...]
    time_to_target: tuple[TargetSteps, ...] = ()
    diloco_scaling: DiLoCoScaling | None = None

    def source_ids(self) -> set[str]:
        """Collect every source id the file cites (so the catalog's "every source is cited" check can count them).

        Returns
        -------
        set of str
            Ids of ``sources.toml``.

        Examples
        --------
        >>> "arxiv-diloco" in get_crossdc_data().source_ids()
        True
        """
        groups = [*self.methods.values(), *self.networks.values(), self.compute, self.table4, self.intellect1,
                  self.sparseloco, *self.reported, *self.quoted, *self.limits, *self.time_to_target]
        if self.diloco_scaling is not None:
            groups += [self.diloco_scaling, self.diloco_scaling.tokens]
        return {source_id for group in groups for source_id in group.sources}


# --- the tables of crossdc.toml, each declared once (datafiles.records) -----------------------------------------

#: What every sourced table ends with: the catalog sources it cites and where in them.
_CITED = (Field("sources", list, refs="source"), Field("where"))


def _counts(*keys: str, minimum: int = 0) -> tuple[Field, ...]:
    return tuple(Field(key, int, required=False, default=0, minimum=minimum) for key in keys)


METHOD = Record("method", (
    Field("id", choices=METHODS), Field("name"), Field("inner_steps", int, minimum=1), Field("bits", int, minimum=1),
    Field("topology", choices=EXCHANGES), *_CITED,
    *_counts("overlap_steps", "layers_per_fragment", "chunk", "topk", "index_bits", "micro_batches"),
    Field("states", int, required=False, default=1, minimum=1),
))
NETWORK = Record("network", (
    Field("id"), Field("name"), Field("published"), Field("latency", quantity=("time", "s"), to="latency_s"),
    Field("bandwidth", quantity=("bandwidth", "B/s"), to="bandwidth_bytes_per_s"), Field("per_port", bool), *_CITED,
))
COMPUTE = Record("compute", (Field("flops_per_param_per_token", float, positive=True),
                             Field("backward_flops_per_param_per_token", float, positive=True), *_CITED))
TABLE4 = Record("streaming_diloco_table4", (
    Field("utilization", list, items=float), Field("sites", int), Field("inner_steps", int),
    Field("grid_step", float, positive=True), Field("row", list), *_CITED,
))
TABLE4_ROW = Record("row", (
    Field("model"), Field("params", float, positive=True), Field("layers", int),
    Field("step_time", quantity=("time", "s"), to="step_s"), Field("variant"),
    Field("required_gbit_per_s", list, items=float),
))
INTELLECT1 = Record("intellect1", (
    Field("confidence", choices=CONFIDENCES), Field("params", float, positive=True), Field("inner_steps", int),
    Field("compute_time", quantity=("time", "s"), to="compute_s"), Field("span", list), *_CITED,
))
SPAN = Record("span", (Field("name"), Field("allreduce_time", quantity=("time", "s"), to="allreduce_s"),
                       Field("utilization_percent", float, positive=True)))
SPARSE_ENCODING = Record("sparseloco_encoding", (
    Field("chunk", int), Field("topk", int), Field("value_bits", int), Field("index_bits", int),
    Field("index_bits_lower_bound", float, positive=True), Field("compression_vs_fp32_at_least", float, positive=True),
    *_CITED,
))
REPORTED = Record("reported", (Field("id"), Field("work"), Field("headline"), Field("claim"),
                               Field("confidence", choices=CONFIDENCES), *_CITED,
                               Field("note", required=False, default="")))
QUOTED = Record("quoted", (Field("claim"), Field("correction"), Field("sources", list, refs="source")))
LIMIT = Record("limit", (Field("text"), Field("sources", list, refs="source")))
TIME_TO_TARGET = Record("time_to_target", (
    Field("id"), Field("name"), Field("timing"), Field("steps_ratio", float, positive=True), Field("relative_to"),
    Field("basis", choices=BASES), Field("params", float, minimum=0), Field("replicas", int, minimum=0),
    Field("inner_steps", int, minimum=0), *_CITED, Field("how"),
    Field("time_ratio", float, required=False, default=0.0, minimum=0),
    Field("law", required=False, default="", choices=LAWS),
))
SCALING = Record("diloco_scaling", (
    Field("inner_steps", int), Field("tokens_per_param", float, positive=True), Field("replicas", list, items=int),
    Field("dp_law", list), Field("joint_law", list), Field("point", list), Field("tokens", dict), *_CITED,
))
SCALING_POINT = Record("point", (Field("params", float, positive=True), Field("dp_loss", float, positive=True),
                                 Field("diloco_loss", list, items=float)))
TOKEN_SHAPE = Record("tokens", (*(Field(key, float, positive=True) for key in ("e", "a", "b", "alpha", "beta")),
                                *_CITED))


def load_crossdc_data(path: str | Path | None = None, source_ids: frozenset[str] | None = None) -> CrossDCData:
    """Read and check ``crossdc.toml``.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Another file in the same format; the packaged file by default.
    source_ids : frozenset of str, optional
        The ids a ``sources`` list may use; those of the packaged catalog by default.

    Returns
    -------
    CrossDCData
        Every table of the file, with quantities converted to the unit in each field's name.

    Raises
    ------
    CrossDCDataError
        Naming the table and key, for an unknown or missing key, a wrong type or dimension, or an
        unknown source id.

    Examples
    --------
    >>> data = load_crossdc_data()
    >>> f"{data.networks['cross-region'].rtt_s * 1e3:g} ms round trip", sorted(data.methods) == sorted(METHODS)
    ('100 ms round trip', True)
    """
    if source_ids is None:
        source_ids = get_catalog().sources
    toml = _CrossDCFile(path or packaged_data_file(_DATA_FILE), source_ids)
    toml.only_tables(("method", "network", "compute", "streaming_diloco_table4", "intellect1", "sparseloco_encoding",
                      "reported", "quoted", "limit", "time_to_target", "diloco_scaling"))
    data, file = toml.data, toml.name

    methods = {key: MethodDefaults(**values) for key, values in METHOD.read_all(toml).items()}
    if set(methods) != set(METHODS):
        raise CrossDCDataError(f"{file}: needs a [[method]] for each of {', '.join(METHODS)}")
    for streaming in (methods[m] for m in STREAMING_METHODS):
        if streaming.layers_per_fragment < 1 or streaming.overlap_steps < 0:
            raise CrossDCDataError(f"{file}: method '{streaming.id}' needs layers_per_fragment >= 1")
    sparse, pipeline = methods["sparseloco"], methods["crosspipe"]
    if pipeline.inner_steps != 1 or pipeline.micro_batches < 1:
        raise CrossDCDataError(f"{file}: method 'crosspipe' exchanges every step (inner_steps = 1) and needs "
                               "micro_batches >= 1")
    if not 1 <= sparse.topk <= sparse.chunk or sparse.index_bits < 1:
        raise CrossDCDataError(f"{file}: method 'sparseloco' needs 1 <= topk <= chunk and index_bits >= 1")

    networks = {key: NetworkClass(**values) for key, values in NETWORK.read_all(toml).items()}

    compute = ComputeRule(**COMPUTE.read(toml, data.get("compute"), where=f"{file}: [compute]"))
    if compute.backward_fraction >= 1:
        raise CrossDCDataError(f"{file}: [compute] backward FLOPs must be less than the total")

    where = f"{file}: [streaming_diloco_table4]"
    table = TABLE4.read(toml, data.get("streaming_diloco_table4"), where=where)
    utilizations = tuple(float(u) for u in table.pop("utilization"))
    if not all(0 < u < 1 for u in utilizations):
        raise CrossDCDataError(f"{where}: utilization values must lie between 0 and 1")
    rows = []
    for raw in table.pop("row"):
        row_where = f"{where} row {raw.get('model', '?')} {raw.get('variant', '?')}"
        values = TABLE4_ROW.read(toml, raw, where=row_where)
        required = tuple(float(v) for v in values.pop("required_gbit_per_s"))
        if len(required) != len(utilizations) or not all(v > 0 for v in required):
            raise CrossDCDataError(f"{row_where}: needs one positive bandwidth per utilization")
        rows.append(Table4Row(**values, required_gbit_per_s=required))
    table4 = Table4(**table, utilization=utilizations, rows=tuple(rows))

    where = f"{file}: [intellect1]"
    values = INTELLECT1.read(toml, data.get("intellect1"), where=where)
    spans = tuple(IntellectSpan(**SPAN.read(toml, raw, where=f"{where} span '{_name(raw)}'"))
                  for raw in values.pop("span"))
    intellect1 = Intellect1(**values, spans=spans)

    sparseloco = SparseEncoding(**SPARSE_ENCODING.read(toml, data.get("sparseloco_encoding"),
                                                       where=f"{file}: [sparseloco_encoding]"))
    reported = tuple(Reported(**values) for values in REPORTED.read_all(toml).values())
    quoted = tuple(Quoted(**QUOTED.read(toml, raw, where=f"{file}: quoted #{i + 1}"))
                   for i, raw in enumerate(toml.rows("quoted")))
    limits = tuple(Limit(**LIMIT.read(toml, raw, where=f"{file}: limit #{i + 1}"))
                   for i, raw in enumerate(toml.rows("limit")))
    return CrossDCData(methods, networks, compute, table4, intellect1, sparseloco, reported, quoted, limits,
                       _time_to_target(toml), _diloco_scaling(toml))


def _name(raw: object) -> str:
    return raw.get("name", "?") if isinstance(raw, Mapping) else "?"


def _numbers(r, key: str, count: int | None = None) -> tuple[float, ...]:
    values = r.get(key)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values) \
            or (count is not None and len(values) != count):
        r.fail(f"'{key}' must be {count or 'a list of'} finite numbers")
    return tuple(float(v) for v in values)


def _diloco_scaling(toml: _CrossDCFile) -> DiLoCoScaling | None:
    """The [diloco_scaling] table, checked: losses positive, model sizes rising, one loss per replica count
    at most, the laws' exponents negative in N."""
    raw = toml.data.get("diloco_scaling")
    if raw is None:
        return None
    where = f"{toml.name}: [diloco_scaling]"
    r, values = SCALING.read_row(toml, raw, where=where)
    replicas = values["replicas"]
    if not replicas or replicas[0] != 1 or any(b <= a for a, b in zip(replicas, replicas[1:], strict=False)):
        r.fail("'replicas' must start at 1 and rise")
    dp_law, joint_law = _numbers(r, "dp_law", 2), _numbers(r, "joint_law", 3)
    if dp_law[0] <= 0 or joint_law[0] <= 0 or dp_law[1] >= 0 or joint_law[1] >= 0:
        r.fail("the laws need A > 0 and a negative exponent in N")
    points = []
    for raw_point in values["point"]:
        rp, point = SCALING_POINT.read_row(toml, raw_point, where=f"{where} point {_params(raw_point)}")
        if not 1 <= len(point["diloco_loss"]) <= len(replicas) or min(point["diloco_loss"]) <= 0:
            rp.fail("needs a positive loss for data parallel and for 1 to len(replicas) replica counts")
        points.append(ScalingPoint(point["params"], point["dp_loss"], tuple(map(float, point["diloco_loss"]))))
    if any(b.params <= a.params for a, b in zip(points, points[1:], strict=False)) or len(points) < 2:
        r.fail("points must be at least two, in rising model size")
    tokens = TokenShape(**TOKEN_SHAPE.read(toml, values["tokens"], where=f"{where}.tokens"))
    return DiLoCoScaling(values["sources"], values["where"], values["inner_steps"], values["tokens_per_param"],
                         replicas, (dp_law[0], dp_law[1]), (joint_law[0], joint_law[1], joint_law[2]), tuple(points),
                         tokens)


def _params(raw: object) -> object:
    return raw.get("params", "?") if isinstance(raw, Mapping) else "?"


def _time_to_target(toml: _CrossDCFile) -> tuple[TargetSteps, ...]:
    """The [[time_to_target]] rows, checked: one per method of :data:`METHODS` at least, ratios positive, every
    ``relative_to`` a row met earlier in the file (so a chain resolves in file order), ``timing`` a method."""
    rows: dict[str, TargetSteps] = {}
    for raw in toml.rows("time_to_target"):
        r, values = TIME_TO_TARGET.read_row(toml, raw)
        if values["id"] in rows:
            r.fail("ids must be unique")
        if values["relative_to"] != values["id"] and values["relative_to"] not in rows:
            r.fail("'relative_to' must name a row above this one (or the row itself)")
        if values["timing"] and values["timing"] not in METHODS:
            r.fail(f"'timing' must be empty or one of {', '.join(METHODS)}")
        rows[values["id"]] = TargetSteps(**values)
    if rows and not set(METHODS) <= set(rows):
        toml.fail(f"[[time_to_target]] needs a row for each of {', '.join(METHODS)}")
    if rows and rows["dp"].steps_ratio != 1:
        toml.fail("[[time_to_target]] 'dp' is the reference: its steps_ratio is 1")
    return tuple(rows.values())


@functools.lru_cache(maxsize=1)
def get_crossdc_data() -> CrossDCData:
    """Return the packaged ``crossdc.toml``, read once per process.

    Returns
    -------
    CrossDCData
        As :func:`load_crossdc_data` gives it.

    Examples
    --------
    >>> get_crossdc_data().methods["diloco"].inner_steps
    500
    """
    return load_crossdc_data()


# --- weight_sync.toml: published RL weight-sync measurements -------------------------------------------

_WEIGHT_SYNC_FILE = "weight_sync.toml"
#: Whether an input is given by the source or inferred by us (the file's header says how).
HOW = ("stated", "inferred")
#: What a measurement measured.
SYNC_QUANTITIES = ("sync_time", "payload")


class WeightSyncDataError(CrossDCDataError):
    """``weight_sync.toml`` is inconsistent; the message names the file, the measurement and the key."""


class _WeightSyncFile(DataFile):
    error = WeightSyncDataError


@dataclass(frozen=True)
class WeightSyncMeasurement:
    """One published weight-sync measurement with its inputs, each marked stated or inferred.

    ``measured`` is in s for ``sync_time`` and in B for ``payload``; ``staging_bytes_per_s`` is a software-path
    rate a row may state with its source (none does today: the file's rule 3), infinite otherwise;
    ``pending`` says why the model is not compared.
    """

    id: str
    sources: tuple[str, ...]
    where: str
    quantity: str
    measured: float
    system: str
    params: float
    bytes_per_value: float
    precision: str
    route: str
    receivers: int
    how: Mapping[str, str]
    mode: str = "full"
    fraction: float = 1.0
    index_bits: float = 32.0
    staging_bytes_per_s: float = float("inf")
    pending: str = ""
    note: str = ""

    @property
    def compared(self) -> bool:
        """Whether the tests hold the model to this measurement."""
        return not self.pending


def load_weight_sync_data(path: str | Path | None = None,
                          source_ids: frozenset[str] | None = None) -> tuple[WeightSyncMeasurement, ...]:
    """Read and check ``weight_sync.toml``.

    Raises
    ------
    WeightSyncDataError
        Naming the measurement and key, for an unknown or missing key, a wrong type, dimension or choice,
        or an unknown source id.

    Examples
    --------
    >>> rows = load_weight_sync_data()
    >>> len(rows) >= 8, len({s for r in rows for s in r.sources}) >= 4
    (True, True)
    """
    from interconnect.topics.crossdc.model.weight_sync import BYTES_PER_VALUE

    if source_ids is None:
        source_ids = get_catalog().sources
    toml = _WeightSyncFile(path or packaged_data_file(_WEIGHT_SYNC_FILE), source_ids)
    toml.only_tables(("measurement", "ratio"))
    rows: list[WeightSyncMeasurement] = []
    for raw in toml.rows("measurement"):
        r, values = _measurement().read_row(toml, raw)
        quantity = values["quantity"]
        measured = r.quantity("measured", "time", "s") if quantity == "sync_time" else \
            r.quantity("measured", "size", "B")
        how = {key.removesuffix("_how"): values[key] for key in raw if key.endswith("_how")}
        for key in ("fraction", "index_bits", "staging"):
            if (key in raw) != (key in how):
                r.fail(f"'{key}' and '{key}_how' go together")
        rows.append(WeightSyncMeasurement(
            id=values["id"], sources=values["sources"], where=values["where"], quantity=quantity, measured=measured,
            system=values["system"], params=values["params"], bytes_per_value=BYTES_PER_VALUE[values["precision"]],
            precision=values["precision"], route=values["route"], receivers=max(1, values["receivers"]), how=how,
            mode=values["mode"], fraction=float(values["fraction"]), index_bits=float(values["index_bits"]),
            staging_bytes_per_s=r.quantity("staging", "bandwidth", "B/s") if "staging" in raw else float("inf"),
            pending=values["pending"], note=values["note"]))
    ids = [row.id for row in rows]
    if len(set(ids)) != len(ids):
        toml.fail("measurement ids must be unique")
    return tuple(rows)


@functools.cache
def _measurement() -> Record:
    """A ``[[measurement]]`` of ``weight_sync.toml``: each model input with how it is known (``*_how``: stated or
    inferred). ``measured`` is a time or a size, as ``quantity`` says (read by the loader)."""
    from interconnect.topics.crossdc.model.weight_sync import BYTES_PER_VALUE, MODES, ROUTES

    def how(key: str, required: bool = True) -> Field:
        return Field(f"{key}_how", choices=HOW, required=required)

    return Record("measurement", (
        Field("id"), Field("quantity", choices=SYNC_QUANTITIES), Field("measured"), Field("system"),
        Field("params", float, positive=True), how("params"), Field("precision", choices=tuple(BYTES_PER_VALUE)),
        how("precision"), Field("route", choices=ROUTES), Field("receivers", int), how("receivers"), *_CITED,
        Field("mode", required=False, default="full", choices=MODES),
        Field("fraction", float, required=False, default=1.0), how("fraction", False),
        Field("index_bits", int, required=False, default=32), how("index_bits", False),
        Field("staging", required=False), how("staging", False),
        Field("pending", required=False, default=""), Field("note", required=False, default=""),
    ))


@functools.cache
def get_weight_sync_data() -> tuple[WeightSyncMeasurement, ...]:
    """Return the packaged ``weight_sync.toml``, read once per process."""
    return load_weight_sync_data()


@dataclass(frozen=True)
class WeightSyncRatio:
    """One measured time over another of the same source on the same system (the file's rule 5).

    Whatever rate the software path runs at cancels, so the model is held to how the time scales: with the
    bytes (only the model changed) or with the receivers (only their number changed).
    """

    id: str
    of: WeightSyncMeasurement
    against: WeightSyncMeasurement
    sources: tuple[str, ...]
    where: str
    pending: str = ""
    note: str = ""

    @property
    def measured(self) -> float:
        """The published ratio, ``of.measured / against.measured`` (dimensionless)."""
        return self.of.measured / self.against.measured

    @property
    def compared(self) -> bool:
        """Whether the tests hold the model to this ratio."""
        return not self.pending


#: A ``[[ratio]]`` of ``weight_sync.toml``: two ``sync_time`` measurements of one source, by id.
RATIO = Record("ratio", (Field("id"), Field("of"), Field("against"), *_CITED,
                         Field("pending", required=False, default=""), Field("note", required=False, default="")))


def load_weight_sync_ratios(path: str | Path | None = None,
                            source_ids: frozenset[str] | None = None) -> tuple[WeightSyncRatio, ...]:
    """Read the ``[[ratio]]`` rows of ``weight_sync.toml``, each naming two ``sync_time`` measurements.

    Raises
    ------
    WeightSyncDataError
        For a ratio naming a measurement that is missing, is not a time, or is itself; or naming the same
        one twice; or a duplicate id.

    Examples
    --------
    >>> r = {x.id: x for x in load_weight_sync_ratios()}["ckpt-engine-kimi-256-over-16"]
    >>> f"{r.measured:.3f}", r.of.receivers, r.against.receivers  # 16.04 s over 14.36 s
    ('1.117', 32, 2)
    """
    if source_ids is None:
        source_ids = get_catalog().sources
    measurements = {m.id: m for m in load_weight_sync_data(path, source_ids)}
    toml = _WeightSyncFile(path or packaged_data_file(_WEIGHT_SYNC_FILE), source_ids)
    rows: list[WeightSyncRatio] = []
    for raw in toml.rows("ratio"):
        r, values = RATIO.read_row(toml, raw)
        pair = []
        for key in ("of", "against"):
            m = measurements.get(values[key])
            if m is None:
                r.fail(f"'{key}' names no measurement: {values[key]!r}")
            if m.quantity != "sync_time":
                r.fail(f"'{key}' must name a sync_time measurement, not a {m.quantity}")
            pair.append(m)
        if pair[0].id == pair[1].id:
            r.fail("'of' and 'against' must name two different measurements")
        rows.append(WeightSyncRatio(**{**values, "of": pair[0], "against": pair[1]}))
    ids = [row.id for row in rows]
    if len(set(ids)) != len(ids):
        toml.fail("ratio ids must be unique")
    return tuple(rows)


@functools.cache
def get_weight_sync_ratios() -> tuple[WeightSyncRatio, ...]:
    """Return the packaged ``weight_sync.toml``'s ratios, read once per process."""
    return load_weight_sync_ratios()


# --- crossdc_pipeline.toml: CrossPipe's published cases for a pipeline across sites ---------------------

_PIPELINE_FILE = "crossdc_pipeline.toml"
#: What a case states: a message size (B) or a ratio (see the file's header).
PIPELINE_QUANTITIES = ("message_bytes", "transfer_over_forward", "latency_over_forward", "latency_step_ratio",
                       "speedup_vs_dp", "slowdown_vs_one_site", "schedule_gain", "relaxed_gain",
                       "runtime_per_micro_batch", "slowdown_vs_ideal")


class PipelineDataError(CrossDCDataError):
    """``crossdc_pipeline.toml`` is inconsistent; the message names the file, the case and the key."""


class _PipelineFile(DataFile):
    error = PipelineDataError


@dataclass(frozen=True)
class PipelineCase:
    """One published CrossPipe figure with the inputs it rests on, each marked stated or inferred.

    ``inputs`` are plain numbers whose names carry their unit; ``pending`` says why the model is not
    compared.
    """

    id: str
    sources: tuple[str, ...]
    where: str
    quantity: str
    published: float
    system: str
    inputs: Mapping[str, float]
    how: Mapping[str, str]
    pending: str = ""
    note: str = ""

    @property
    def compared(self) -> bool:
        """Whether the tests hold the model to this case."""
        return not self.pending


#: A ``[[case]]`` of ``crossdc_pipeline.toml``: a published figure and the inputs it rests on, each with its ``how``.
CASE = Record("case", (Field("id"), *_CITED, Field("quantity", choices=PIPELINE_QUANTITIES),
                       Field("published", float, positive=True), Field("system"), Field("inputs", dict),
                       Field("how", dict), Field("pending", required=False, default=""),
                       Field("note", required=False, default="")))


def load_pipeline_cases(path: str | Path | None = None,
                        source_ids: frozenset[str] | None = None) -> tuple[PipelineCase, ...]:
    """Read and check ``crossdc_pipeline.toml``: every input numeric, finite and marked stated or inferred.

    >>> cases = load_pipeline_cases()
    >>> sum(c.compared for c in cases) >= 4
    True
    """
    import math

    if source_ids is None:
        source_ids = get_catalog().sources
    toml = _PipelineFile(path or packaged_data_file(_PIPELINE_FILE), source_ids)
    toml.only_tables(("case",))
    rows: list[PipelineCase] = []
    for raw in toml.rows("case"):
        r, values = CASE.read_row(toml, raw)
        inputs, how = values["inputs"], values["how"]
        if set(inputs) != set(how):
            r.fail(f"every input needs its 'how' and no more: {sorted(set(inputs) ^ set(how))}")
        for key, value in inputs.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0:
                r.fail(f"input '{key}' must be a finite number >= 0")
            if how[key] not in HOW:
                r.fail(f"how '{key}' must be one of {', '.join(HOW)}")
        rows.append(PipelineCase(**{**values, "inputs": {k: float(v) for k, v in inputs.items()}, "how": dict(how)}))
    ids = [row.id for row in rows]
    if len(set(ids)) != len(ids):
        toml.fail("case ids must be unique")
    return tuple(rows)


@functools.cache
def get_pipeline_cases() -> tuple[PipelineCase, ...]:
    """Return the packaged ``crossdc_pipeline.toml``, read once per process."""
    return load_pipeline_cases()
