"""The reader of nccl-tests stdout: one pass over the lines that decides what each line is and hands it on.

:class:`_TextParser` walks the log once. A line is cleaned of NCCL messages and launcher prefixes
(:mod:`.noise`), then read as a data row (:mod:`.rows`, with the layout from :mod:`.header`), a
``#`` line (the column header, or the preamble and footer read by :mod:`.comments`), the rest of a
row split by an NCCL message, or noted as not nccl-tests output. What stays here is that decision,
the caps that keep the pass linear in the input (lines examined, rows, unrecognised lines), rows
waiting for their continuation, and where the first table ends. :mod:`.assemble` builds the
:class:`NcclRun` from what was kept.
"""

from __future__ import annotations

from interconnect.io.nccl_tests.assemble import _text_run
from interconnect.io.nccl_tests.comments import _RunNotes
from interconnect.io.nccl_tests.decode import _SHOWN_CHARS, _is_continuation_token, _show
from interconnect.io.nccl_tests.header import _TableLayouts
from interconnect.io.nccl_tests.layouts import _KNOWN_NOISE_RE, _column_count_error, _is_timestamp, _Layout
from interconnect.io.nccl_tests.noise import (
    _check_long_line,
    _only_prefixes,
    _SkippedLines,
    _split_nccl_message,
    _strip_prefix,
)
from interconnect.io.nccl_tests.rows import _is_row_start, _read_plain_row, _read_row, _RowTable
from interconnect.io.nccl_tests.run import (
    _MAX_EXAMINED,
    _MAX_UNRECOGNISED,
    MAX_LINE_CHARS,
    MAX_ROWS,
    NcclLogError,
    NcclRun,
)


class _TextParser:
    """One pass over nccl-tests stdout: :meth:`run` reads every line, :meth:`result` returns the run.

    Stops at the end of the first result table (a second column header or test after data rows),
    with a warning; :attr:`stopped` then says so (``runs.split_runs`` reads the others).
    """

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.fast_layout: _Layout | None = None  # layout of the last plain row, for run()'s fast path
        self.not_plain = 0  # line whose row the fast path found not plain
        self.rows = _RowTable()
        self.pending: tuple[int, list[str]] | None = None
        self.warnings: list[str] = []
        self.layouts = _TableLayouts(self.warnings)
        self.notes = _RunNotes(self.warnings)
        self.skipped = _SkippedLines()
        self.other_lines = 0  # unrecognised lines and echoed command lines, each costly to examine
        self.examined = 0  # lines and prefixes examined (see _MAX_EXAMINED)
        self.non_blank = 0
        self.stopped = False
        self.unknown_dtypes: set[str] = set()
        self.truncated_row: tuple[int, int, int] | None = None  # (line, columns found, columns expected)

    # -- main loop ---------------------------------------------------------------------------

    def run(self) -> None:
        """Read every line of the log in turn, up to the end of the first result table."""
        for index, line in enumerate(self.lines):
            if "NCCL " in line and ("NCCL INFO" in line or "NCCL WARN" in line):
                line, warn_text = _split_nccl_message(line)
                if warn_text:
                    self.skipped.nccl_warns.setdefault(warn_text)
                if not line or _only_prefixes(line):
                    continue
            if len(line) > MAX_LINE_CHARS:
                _check_long_line(line, index + 1)
                self.skipped.long_lines.append((index + 1, len(line)))
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
        """Count one line or prefix examined; refuse the log beyond _MAX_EXAMINED (the pass stays linear)."""
        self.examined += 1
        if self.examined > _MAX_EXAMINED:
            raise NcclLogError(
                f"the log is too long to read: more than {_MAX_EXAMINED:,} lines and line prefixes by line "
                f"{line_number:,}; nccl-tests output, even from a large run with launcher prefixes, is shorter",
                line_number,
            )

    def _check_row_count(self, line_number: int) -> None:
        """Refuse a log with more than MAX_ROWS data rows, read or skipped."""
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
        """Decide what a stripped line is and hand it on; strip up to four launcher prefixes to find out."""
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
        """Note a line that is no nccl-tests output (an echoed command names the collective)."""
        self.other_lines += 1
        if self.other_lines > _MAX_UNRECOGNISED:
            raise NcclLogError(
                f"more than {_MAX_UNRECOGNISED:,} lines are not nccl-tests output (line {line_number}: "
                f"{text[:_SHOWN_CHARS]!r}); paste the part of the log with the results table"
            )
        if not self.notes.command_line(text):  # the command line, echoed by the job script
            self.skipped.unrecognised_line(text, line_number)

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
        """End the reading at a second table (``what`` starts at ``line_number``), with a warning."""
        first, last = self.rows.row_lines[0], self.rows.row_lines[-1]
        self.warnings.append(
            f"the log holds more than one result table: {what} at line {line_number}; "
            f"only the first table (lines {first}-{last}) was read"
        )
        self.stopped = True

    def _header(self, body: str, line_number: int) -> None:
        """Take the layout of a column header, or stop there if data rows were read already."""
        layout = self.layouts.from_header(body.split(), line_number)
        if layout is None:
            return
        if self.rows.sizes:
            self._stop(line_number, "a new column header")
            return
        self.layouts.header_layout = layout

    # -- data rows ---------------------------------------------------------------------------

    def _row_start(self, tokens: list[str], line_number: int) -> None:
        """Read a row, or keep it waiting when it has fewer tokens than the layout needs."""
        self._flush_pending()
        expected = self.layouts.row_columns
        if len(tokens) < expected:
            # Maybe split by an interleaved NCCL message: wait for continuation lines.
            self.pending = (line_number, list(tokens))
            return
        self._add_row(tokens, line_number)

    def _continue_row(self, tokens: list[str]) -> None:
        """Add the tokens of a continuation line to the waiting row; read it once complete."""
        assert self.pending is not None
        self.pending[1].extend(tokens)
        expected = self.layouts.row_columns
        if len(self.pending[1]) >= expected:
            self._flush_pending()

    def _flush_pending(self) -> None:
        """Read the waiting row, if any, as it is (too few columns then raise)."""
        if self.pending is not None:
            line_number, tokens = self.pending
            self.pending = None
            self._add_row(tokens, line_number)

    def _add_row(self, tokens: list[str], line_number: int) -> None:
        """Read a complete row by the fast path if it is plain, else field by field; keep or skip it."""
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

    def result(self) -> NcclRun:
        """Return the run read (see :func:`~.assemble._text_run`); call after :meth:`run`."""
        return _text_run(
            self.rows,
            self.notes,
            self.skipped,
            cputime=self.layouts.cputime,
            truncated_row=self.truncated_row,
            non_blank=self.non_blank,
            warnings=self.warnings,
        )
