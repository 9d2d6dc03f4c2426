"""Recognising the table's layout: from its ``#  size  count  type ...`` column header, or from a row's shape.

nccl-tests has printed several layouts since 2017 (with or without ``redop`` and ``root``, one or
two time/algbw/busbw groups, ``#wrong`` or the older ``error`` column, ``cputime`` under ``-C 1``,
a trailing timestamp under ``-S 1``, the 2017 ``bytes N type op`` layout timed in ms).
:class:`_TableLayouts` reads the header into a :class:`~.layouts._Layout`; without a header it
infers one from the number of columns of each row, and remembers it per shape. The warnings it
gives about a layout (a header not understood, a 2017 header, rows without a header) go to the
reader's warning list, each in the order the lines come.
"""

from __future__ import annotations

from interconnect.io.nccl_tests.decode import _is_number
from interconnect.io.nccl_tests.layouts import _HEADER_ROLES, _STANDARD_COLUMNS, _Group, _is_timestamp, _Layout
from interconnect.io.nccl_tests.run import NcclLogError

_HEADERLESS_COLUMNS = 13  # a row is read once it has this many tokens when no header says otherwise


def _header_names(tokens: list[str]) -> tuple[list[str], int]:
    """Return the header's column names in lower case without timestamps, and the tokens a timestamp adds (0 or 2).

    >>> _header_names("size count type redop root time algbw busbw #wrong timestamp".split())
    (['size', 'count', 'type', 'redop', 'root', 'time', 'algbw', 'busbw', '#wrong'], 2)
    """
    names = [t.lower() for t in tokens]
    if names and names[0] == "timestamp":  # a leading timestamp is stripped from rows as a prefix
        names = names[1:]
    max_extra = 0
    if "timestamp" in names:
        names = [n for n in names if n != "timestamp"]
        max_extra = 2
    return names, max_extra


def _header_groups(roles: list[str]) -> tuple[int | None, int | None, list[dict[str, int]]] | None:
    """Find ``redop``, ``root`` and each time/algbw/busbw group in the roles of a header's columns.

    Returns the column of redop and of root (None if absent) and the complete groups (role ->
    column), or None when the header does not read as nccl-tests' columns.

    >>> _header_groups(["size", "count", "type", "redop", "root", "time", "algbw", "busbw", "wrong"])
    (3, 4, [{'time': 5, 'algbw': 6, 'busbw': 7, 'wrong': 8}])
    """
    if roles[:3] != ["size", "count", "type"]:
        return None
    i = 3
    i_redop = i_root = None
    if i < len(roles) and roles[i] == "redop":
        i_redop, i = i, i + 1
    if i < len(roles) and roles[i] == "root":
        i_root, i = i, i + 1
    groups_found: list[dict[str, int]] = []
    for j in range(i, len(roles)):
        role = roles[j]
        if role == "time":
            groups_found.append({"time": j})
        elif role in ("algbw", "busbw", "wrong", "error") and groups_found and role not in groups_found[-1]:
            groups_found[-1][role] = j
        elif role != "extra":
            return None
    complete = [g for g in groups_found if "algbw" in g and "busbw" in g]
    if not complete or len(complete) != len(groups_found):
        return None
    return i_redop, i_root, complete


class _TableLayouts:
    """The layout of the table being read: the header's, once one is read, else one inferred per row shape.

    Also what the header and the title line above it say about the whole table: whether its time
    columns are CPU time (``cputime``), and whether a one-group table is in-place.
    """

    def __init__(self, warnings: list[str]) -> None:
        self.warnings = warnings  # the reader's list, shared so that warnings keep the order of the lines
        self.header_layout: _Layout | None = None
        self.inferred: dict[tuple[int, int, bool], _Layout] = {}  # by (tokens, timestamp tokens, has redop)
        self.title_in_place_only = False  # the title line names in-place results only (rccl-tests)
        self.cputime = False
        self.single_group_warned = False
        self.time_scale_warned = False

    @property
    def row_columns(self) -> int:
        """Tokens a data row must have before it is read (fewer: wait for the rest on the next lines)."""
        return self.header_layout.n_columns if self.header_layout else _HEADERLESS_COLUMNS

    def for_row(self, tokens: list[str], line_number: int) -> _Layout:
        """Return the layout to read a row with: the header's, or one inferred from the row's shape."""
        return self.header_layout or self.infer(tokens, line_number)

    def from_header(self, tokens: list[str], line_number: int) -> _Layout | None:
        """Read a column header (without its ``#``) into a layout; None, with a warning, if not understood.

        Reading a header also sets :attr:`cputime` and resets :attr:`title_in_place_only`.
        """
        names, max_extra = _header_names(tokens)
        roles = [_HEADER_ROLES.get(n, "extra") for n in names]
        found = _header_groups(roles)
        if found is None:
            self.warnings.append(
                f"line {line_number}: column header not understood; columns were inferred from each row"
            )
            return None
        i_redop, i_root, complete = found
        if len(complete) > 2:
            self.warnings.append(f"line {line_number}: the header has {len(complete)} time columns; read the first two")
            complete = complete[:2]
        if len(complete) == 2:
            placements = ("out", "in")
        else:
            placements = ("in",) if self.title_in_place_only else ("out",)
        groups = tuple(
            _Group(p, g["time"], g["algbw"], g["busbw"], g.get("wrong", g.get("error")))
            for p, g in zip(placements, complete, strict=True)
        )
        self.cputime = "cputime" in names
        self.title_in_place_only = False
        wrong_is_count = True if "wrong" in roles else (False if "error" in roles else None)
        time_scale = 1000.0 if names[0] == "bytes" else 1.0  # 2017 layout: "bytes N type op", time in ms
        if time_scale != 1.0 and not self.time_scale_warned:
            self.time_scale_warned = True
            self.warnings.append(
                f"line {line_number}: 2017-style header (bytes, N, op): its time column is in ms; converted to µs"
            )
        return _Layout(
            names=" ".join(names) + (" [timestamp]" if max_extra else ""),
            n_columns=len(names),
            max_extra=max_extra,
            i_size=0,
            i_count=1,
            i_type=2,
            i_redop=i_redop,
            i_root=i_root,
            groups=groups,
            time_scale_to_us=time_scale,
            wrong_is_count=wrong_is_count,
        )

    def infer(self, tokens: list[str], line_number: int) -> _Layout:
        """Infer the layout of a row without a header from its number of columns; raise if none fits.

        ``size count type [redop] [root]`` then one or two groups of ``time algbw busbw #wrong``,
        and perhaps a timestamp. One layout is kept per shape, so each is built once.
        """
        n = len(tokens)
        n_timestamp = 2 if n >= 2 and _is_timestamp(tokens) else 0
        has_redop = n - n_timestamp > 3 and not _is_number(tokens[3])
        key = (n, n_timestamp, has_redop)
        layout = self.inferred.get(key)
        if layout is not None:
            return layout
        i = 4 if has_redop else 3
        remaining = n - n_timestamp - i
        i_root = None
        if remaining % 4 == 1:
            i_root, i, remaining = i, i + 1, remaining - 1
        n_groups = remaining // 4
        if remaining % 4 != 0 or not 1 <= n_groups <= 2:
            raise NcclLogError(
                f"expected 13 columns like '{_STANDARD_COLUMNS}', found {n}"
                + ("" if n < 13 else "; paste the '#  size  count ...' header too if the layout is different"),
                line_number,
            )
        placements = ("out", "in") if n_groups == 2 else ("out",)
        groups = tuple(
            _Group(p, i + 4 * k, i + 4 * k + 1, i + 4 * k + 2, i + 4 * k + 3) for k, p in enumerate(placements)
        )
        if n_groups == 1 and not self.single_group_warned:
            self.single_group_warned = True
            self.warnings.append(
                f"line {line_number}: rows have one time/algbw/busbw group and there is no header; read as out-of-place"
            )
        names = ["size", "count", "type"] + (["redop"] if has_redop else []) + (["root"] if i_root else [])
        names += ["time", "algbw", "busbw", "#wrong"] * n_groups
        layout = _Layout(
            names=" ".join(names),
            n_columns=n - n_timestamp,
            max_extra=n_timestamp,
            i_size=0,
            i_count=1,
            i_type=2,
            i_redop=3 if has_redop else None,
            i_root=i_root,
            groups=groups,
            time_scale_to_us=1.0,
            wrong_is_count=None,
        )
        self.inferred[key] = layout
        return layout
