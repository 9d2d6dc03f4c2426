"""The reader of nccl-tests stdout: a line-by-line state machine that finds the header and reads each data row."""

from __future__ import annotations

import dataclasses

import numpy as np

from interconnect.io.nccl_tests.checks import (
    _and_the_others,
    _build_run,
    _check_algbw,
    _check_complete,
    _impossible_rows,
    _skipped_rows_warning,
)
from interconnect.io.nccl_tests.comments import _RunNotes
from interconnect.io.nccl_tests.decode import (
    _SHOWN_CHARS,
    _is_continuation_token,
    _show,
)
from interconnect.io.nccl_tests.header import _TableLayouts
from interconnect.io.nccl_tests.layouts import (
    _KNOWN_NOISE_RE,
    _column_count_error,
    _is_timestamp,
    _Layout,
)
from interconnect.io.nccl_tests.noise import (
    _check_long_line,
    _long_lines_message,
    _only_prefixes,
    _split_nccl_message,
    _strip_prefix,
)
from interconnect.io.nccl_tests.ranks import _decide_ranks
from interconnect.io.nccl_tests.rows import _is_row_start, _read_plain_row, _read_row, _RowTable
from interconnect.io.nccl_tests.run import (
    _EXAMPLE_ROW,
    _MAX_EXAMINED,
    _MAX_UNRECOGNISED,
    _MAX_WARNINGS_LISTED,
    MAX_LINE_CHARS,
    MAX_ROWS,
    NcclLogError,
    NcclRun,
)


class _TextParser:
    """Line-by-line state machine over nccl-tests stdout."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.fast_layout: _Layout | None = None  # layout of the last plain row, for run()'s fast path
        self.not_plain = 0  # line whose row the fast path found not plain
        self.rows = _RowTable()
        self.pending: tuple[int, list[str]] | None = None
        self.warnings: list[str] = []
        self.layouts = _TableLayouts(self.warnings)
        self.notes = _RunNotes(self.warnings)
        self.nccl_warns: dict[str, None] = {}  # insertion-ordered set
        self.unrecognised: list[int] = []
        self.other_lines = 0  # unrecognised lines and echoed command lines, each costly to examine
        self.examined = 0  # lines and prefixes examined (see _MAX_EXAMINED)
        self.long_lines: list[tuple[int, int]] = []  # (line number, length in characters)
        self.first_unrecognised_text = ""
        self.non_blank = 0
        self.stopped = False
        self.unknown_dtypes: set[str] = set()
        self.truncated_row: tuple[int, int, int] | None = None  # (line, columns found, columns expected)

    # -- main loop ---------------------------------------------------------------------------

    def run(self) -> None:
        for index, line in enumerate(self.lines):
            if "NCCL " in line and ("NCCL INFO" in line or "NCCL WARN" in line):
                line, warn_text = _split_nccl_message(line)
                if warn_text:
                    self.nccl_warns.setdefault(warn_text)
                if not line or _only_prefixes(line):
                    continue
            if len(line) > MAX_LINE_CHARS:
                _check_long_line(line, index + 1)
                self.long_lines.append((index + 1, len(line)))
                continue
            if not line or line.isspace():
                continue
            self.non_blank += 1
            text = line.strip()
            if text[0] == "#":  # what _dispatch does first with such a line, without its other tests
                self._count_examined(index + 1)
                self._flush_pending()
                self._comment(text, index + 1)
            else:
                self._dispatch(text, index + 1)
            if self.stopped:
                break
        self._flush_last_row()

    def _flush_last_row(self) -> None:
        """Read the row still waiting for continuation lines when the input ends.

        A log copied or written only in part ends inside a row: with rows read before it, that row
        is left out with a warning that says so, rather than refusing the whole log.
        """
        if self.pending is not None and self.rows.sizes and not self.stopped:
            line_number, tokens = self.pending
            expected = self.layouts.row_columns
            if len(tokens) < expected:
                self.pending = None
                self.truncated_row = (line_number, len(tokens), expected)
                return
        self._flush_pending()

    def _count_examined(self, line_number: int) -> None:
        self.examined += 1
        if self.examined > _MAX_EXAMINED:
            raise NcclLogError(
                f"the log is too long to read: more than {_MAX_EXAMINED:,} lines and line prefixes by line "
                f"{line_number:,}; nccl-tests output, even from a large run with launcher prefixes, is shorter",
                line_number,
            )

    def _check_row_count(self, line_number: int) -> None:
        if len(self.rows.row_lines) + len(self.rows.skipped_rows) >= MAX_ROWS:
            raise NcclLogError(
                f"more than {MAX_ROWS:,} data rows; nccl-tests prints one per size, data type, reduction and "
                "root, a few thousand at most: is this one log?",
                line_number,
            )

    def _plain_row_shape(self, tokens: list[str], layout: _Layout) -> bool:
        """Whether the tokens have the plain row's length (and no fewer than _row_start waits for)."""
        n = len(tokens)
        if n < self.layouts.row_columns:
            return False
        if n == layout.n_columns:
            return True
        return n == layout.n_columns + 2 == layout.n_columns + layout.max_extra and _is_timestamp(tokens)

    def _dispatch(self, text: str, line_number: int) -> None:
        original = text
        for _ in range(4):
            self._count_examined(line_number)
            tokens = text.split()
            if not tokens:
                return
            fast = self.fast_layout
            if fast is not None and self.pending is None and self._plain_row_shape(tokens, fast):
                # The common data row, read as the general path below would, in a third of the time.
                self._check_row_count(line_number)
                row = _read_plain_row(tokens, fast)
                if row is not None:
                    self.rows.append(line_number, row)
                    return
                self.not_plain = line_number  # _add_row need not try again
            if _is_row_start(tokens):
                self._row_start(tokens, line_number)
                return
            if text[0] == "#":
                self._flush_pending()
                self._comment(text, line_number)
                return
            if self.pending is not None and all(_is_continuation_token(t) for t in tokens):
                self._continue_row(tokens)
                return
            if _KNOWN_NOISE_RE.match(text):
                return
            stripped = _strip_prefix(text)
            if stripped == text:
                break
            text = stripped
        self._unrecognised(original, line_number)

    def _unrecognised(self, text: str, line_number: int) -> None:
        self.other_lines += 1
        if self.other_lines > _MAX_UNRECOGNISED:
            raise NcclLogError(
                f"more than {_MAX_UNRECOGNISED:,} lines are not nccl-tests output (line {line_number}: "
                f"{text[:_SHOWN_CHARS]!r}); paste the part of the log with the results table"
            )
        if not self.notes.command_line(text):  # the command line, echoed by the job script
            if not self.unrecognised:
                self.first_unrecognised_text = text[:_SHOWN_CHARS]
            self.unrecognised.append(line_number)

    # -- comments: preamble, header, footer --------------------------------------------------

    def _comment(self, text: str, line_number: int) -> None:
        """Read a ``#`` line: the column header and its title here, the other kinds by :class:`_RunNotes`."""
        body = " ".join(text.lstrip("#").split())  # tabs or collapsed spaces read the same
        if not body:
            return
        notes = self.notes
        if body.startswith("Rank"):
            notes.rank_line(body, line_number)
        elif "algbw" in body and "time" in body:
            self._header(body, line_number)
        elif body.startswith("(B)") or body.startswith("(us)"):
            return
        elif "in-place" in body and body.split()[0] in ("in-place", "out-of-place"):
            self.layouts.title_in_place_only = "out-of-place" not in body
        elif body.startswith("nThread"):
            notes.nthread_line(body, line_number)
        elif body.startswith("Collective test starting:"):
            name = body.split(":", 1)[1].strip()
            if self.rows.sizes:
                self._stop(line_number, f"a second test ({_show(name)}) starts")
            else:
                notes.test_name(name)
        elif body.startswith("Reducing maxBytes to"):
            notes.reduced_max_bytes(body)
        elif body.startswith("Avg bus bandwidth"):
            notes.avg_busbw(body, line_number)
        elif body.startswith("Out of bounds values"):
            notes.out_of_bounds(body, line_number)
        elif body.startswith("error:") and body[6:].strip():
            notes.error_line(body, line_number)

    def _stop(self, line_number: int, what: str) -> None:
        first, last = self.rows.row_lines[0], self.rows.row_lines[-1]
        self.warnings.append(
            f"the log holds more than one result table: {what} at line {line_number}; "
            f"only the first table (lines {first}-{last}) was read"
        )
        self.stopped = True

    def _header(self, body: str, line_number: int) -> None:
        layout = self.layouts.from_header(body.split(), line_number)
        if layout is None:
            return
        if self.rows.sizes:
            self._stop(line_number, "a new column header")
            return
        self.layouts.header_layout = layout

    # -- data rows ---------------------------------------------------------------------------

    def _row_start(self, tokens: list[str], line_number: int) -> None:
        self._flush_pending()
        expected = self.layouts.row_columns
        if len(tokens) < expected:
            # Maybe split by an interleaved NCCL message: wait for continuation lines.
            self.pending = (line_number, list(tokens))
            return
        self._add_row(tokens, line_number)

    def _continue_row(self, tokens: list[str]) -> None:
        assert self.pending is not None
        self.pending[1].extend(tokens)
        expected = self.layouts.row_columns
        if len(self.pending[1]) >= expected:
            self._flush_pending()

    def _flush_pending(self) -> None:
        if self.pending is not None:
            line_number, tokens = self.pending
            self.pending = None
            self._add_row(tokens, line_number)

    def _add_row(self, tokens: list[str], line_number: int) -> None:
        self._check_row_count(line_number)
        layout = self.layouts.for_row(tokens, line_number)
        n = len(tokens)
        if not layout.n_columns <= n <= layout.n_columns + layout.max_extra:
            raise _column_count_error(layout.names, str(layout.n_columns), n, line_number)
        if line_number != self.not_plain:
            row = _read_plain_row(tokens, layout)
            if row is not None:
                self.rows.append(line_number, row)
                self.fast_layout = layout  # rows like this one are read with it from now on
                return
        row, wrong, unusable = _read_row(tokens, layout, line_number, self.unknown_dtypes, self.warnings)
        if unusable is not None:
            self.rows.skip(line_number, row, unusable)
            return
        if wrong:
            self.rows.wrong_rows.append(line_number)
        self.rows.append(line_number, row)

    # -- result ------------------------------------------------------------------------------

    def _no_rows_error(self) -> NcclLogError:
        if self.rows.skipped_rows:
            line_number, why = self.rows.skipped_rows[0]
            more = len(self.rows.skipped_rows) - 1
            return NcclLogError(f"no usable data rows: {why}{_and_the_others(more, 'data rows')}", line_number)
        detail = ""
        if self.unrecognised:
            detail = (
                f"; {len(self.unrecognised)} of {self.non_blank} non-blank lines were not recognised "
                f"(first, line {self.unrecognised[0]}: {self.first_unrecognised_text!r})"
            )
        if self.long_lines:
            detail += "; " + _long_lines_message(self.long_lines)
        return NcclLogError(f"no data rows found: expected lines like '{_EXAMPLE_ROW}'{detail}")

    def result(self) -> NcclRun:
        if not self.rows.sizes:
            raise self._no_rows_error()
        warnings = self.warnings
        out = np.array(self.rows.out_values, dtype=np.float64).reshape(-1, 3)
        inp = np.array(self.rows.in_values, dtype=np.float64).reshape(-1, 3)
        if np.isnan(out[:, 0]).all() and not np.isnan(inp[:, 0]).all():
            warnings.append("the table has in-place results only; the out-of-place arrays are NaN")
        collective = self.notes.collective or self.notes.collective_from_command
        keep = _impossible_rows(collective, np.array(self.rows.sizes, dtype=np.int64), out, inp, self.layouts.cputime,
                                [f"line {n}" for n in self.rows.row_lines], warnings)
        if not keep.all():
            out, inp = out[keep], inp[keep]
            self.rows.keep_only(keep)
        if self.rows.wrong_rows:
            warnings.append(
                f"{len(self.rows.wrong_rows)} rows report wrong elements (#wrong > 0), "
                f"first at line {self.rows.wrong_rows[0]}: "
                "those results failed nccl-tests' validation"
            )
        if self.notes.rank_zero_lines > 1:
            warnings.append(
                f"'Rank 0' is listed {self.notes.rank_zero_lines} times: the launcher may have started independent "
                "single-process copies (nccl-tests built without MPI=1?), each with its own communicator"
            )
        listed_ranks = None
        gpu_names: list[str] = []
        hostnames: list[str] = []
        if self.notes.rank_info:
            listed_ranks = max(self.notes.rank_info) + 1
            if len(self.notes.rank_info) != listed_ranks:
                warnings.append(
                    f"Rank lines list {len(self.notes.rank_info)} ranks but the highest is {listed_ranks - 1}; "
                    "the device list may be truncated"
                )
            for rank in sorted(self.notes.rank_info):
                host, gpu = self.notes.rank_info[rank]
                hostnames.append(host)
                gpu_names.append(gpu)
        header_ranks = self.notes.nthread_ngpus[0] * self.notes.nthread_ngpus[1] if self.notes.nthread_ngpus else None
        sizes = np.array(self.rows.sizes, dtype=np.int64)
        algbw = np.where(np.isnan(out[:, 1]), inp[:, 1], out[:, 1])
        busbw = np.where(np.isnan(out[:, 2]), inp[:, 2], out[:, 2])
        ranks, ranks_source = _decide_ranks(
            collective, algbw, busbw, listed_ranks, "Rank lines", "rank lines", header_ranks, None, warnings
        )
        if self.rows.skipped_rows:
            warnings.append(_skipped_rows_warning([(f"line {n}", why) for n, why in self.rows.skipped_rows]))
        if self.notes.sweep is not None:
            rows = self.rows
            _check_complete(self.notes.sweep, rows.sizes, rows.dtypes, rows.redops, rows.skipped_sweep, ranks, warnings)
        if not self.layouts.cputime:
            _check_algbw(collective, sizes, out, inp, [f"line {n}" for n in self.rows.row_lines], warnings)
        if self.unrecognised:
            warnings.append(
                f"{len(self.unrecognised)} lines were not recognised and were skipped "
                f"(first, line {self.unrecognised[0]}: {self.first_unrecognised_text!r})"
            )
        if self.long_lines:
            warnings.append(_long_lines_message(self.long_lines))
        if self.truncated_row is not None:
            line_number, found, expected = self.truncated_row
            warnings.insert(0,
                f"the log ends in the middle of a row (line {line_number}: {found} of {expected} columns), as a "
                f"copy that stopped early does; that row was left out and the {len(self.rows.sizes):,} complete rows "
                "before it were read"
            )
        if self.nccl_warns:
            listed = "; ".join(list(self.nccl_warns)[:_MAX_WARNINGS_LISTED])
            more = len(self.nccl_warns) - _MAX_WARNINGS_LISTED
            warnings.append(f"NCCL WARN: {listed}" + (f" (and {more} more)" if more > 0 else ""))
        run = _build_run(
            collective=collective,
            ranks=ranks,
            ranks_source=ranks_source,
            sizes=sizes,
            counts=np.array(self.rows.counts, dtype=np.int64),
            dtypes=self.rows.dtypes,
            redops=self.rows.redops,
            out=out,
            inp=inp,
            time_is_cputime=self.layouts.cputime,
            avg_busbw_gbps=self.notes.avg_busbw_gbps,
            gpu_names=gpu_names,
            hostnames=hostnames,
            warnings=warnings,
            fmt="text",
        )
        if self.notes.nthread_ngpus is None:
            return run
        return dataclasses.replace(run, gpus_per_process=self.notes.nthread_ngpus[0] * self.notes.nthread_ngpus[1])
