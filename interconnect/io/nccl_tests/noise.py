"""What surrounds nccl-tests output on a line: NCCL INFO/WARN messages, launcher prefixes, over-long lines.

The text reader asks these functions before it reads a line as nccl-tests output:
:func:`_split_nccl_message` cuts an NCCL message off the line (keeping any output printed before
it), :func:`_strip_prefix` removes one launcher prefix (OpenMPI tags, timestamps, srun labels,
pdsh hosts, Markdown pipes), :func:`_only_prefixes` says whether nothing but prefixes is left,
and :func:`_check_long_line` refuses a long line that looks like damaged output. All of them
take time linear in the length of the line. :class:`_SkippedLines` keeps what was left out, for
the warnings (or the message, when no row was found) that say so.
"""

from __future__ import annotations

from interconnect.io.nccl_tests.decode import _SHOWN_CHARS
from interconnect.io.nccl_tests.layouts import (
    _GLUED_VALUE_RE,
    _GLUED_VALUE_STARTS,
    _NCCL_PREFIX_REVERSED_RE,
    _NCCL_PREFIX_WINDOW,
    _NCCL_WARN_CHARS,
    _PREFIX_RE,
    _STD_TAG_RE,
)
from interconnect.io.nccl_tests.run import _MAX_WARNINGS_LISTED, MAX_LINE_CHARS, NcclLogError


def _split_nccl_message(line: str) -> tuple[str, str]:
    """Cut an NCCL INFO/WARN message off a line: the nccl-tests output before it, and the WARN text.

    stdout and stderr interleave mid-row when NCCL_DEBUG=INFO, so output printed before the
    message is kept. The second value is the text of an NCCL WARN (cut to ``_NCCL_WARN_CHARS``),
    or ``""`` for an INFO message.

    Linear in the length of the line: the marker is found with ``str.find`` and the
    ``host:pid:tid [dev]`` prefix is matched backwards from it over a bounded window.
    Without a recognisable prefix the whole line is dropped.

    >>> _split_nccl_message("  8  2  float  sum  -1  dgx-a07:123:456 [0] NCCL INFO Channel 00/32")
    ('  8  2  float  sum  -1  ', '')
    """
    info, warn = line.find("NCCL INFO"), line.find("NCCL WARN")
    marker = info if warn < 0 or 0 <= info < warn else warn
    window_start = max(0, marker - _NCCL_PREFIX_WINDOW)
    prefix = _NCCL_PREFIX_REVERSED_RE.match(line[window_start:marker][::-1])
    before = ""
    if prefix is not None and not (window_start > 0 and prefix.end() == marker - window_start):
        start = marker - prefix.end()
        before = line[:start]
        if line[start] in _GLUED_VALUE_STARTS:
            glued = _GLUED_VALUE_RE.match(line, start, marker)
            if glued and (not before or before[-1].isspace()):
                before += glued.group(0)
    warn_text = ""
    if warn >= 0:
        warn_text = line[warn + len("NCCL WARN") : warn + len("NCCL WARN") + _NCCL_WARN_CHARS + 1].strip()
        if len(warn_text) > _NCCL_WARN_CHARS:
            warn_text = warn_text[:_NCCL_WARN_CHARS] + "..."
    return before, warn_text


def _strip_prefix(text: str) -> str:
    """Remove one launcher prefix (or a Markdown row's pipes) from a stripped, non-empty line.

    Returns the text unchanged when it starts with no prefix this reader knows.

    >>> _strip_prefix("[1,0]<stdout>:  8  2  float")
    '8  2  float'
    """
    if text[0] == "|":  # a Markdown table row
        return text.replace("|", " ").strip()
    tag = _STD_TAG_RE.search(text, 0, 200)
    if tag:
        return text[tag.end() :].strip()
    match = _PREFIX_RE.match(text)
    if match and match.end() > 0:
        return text[match.end() :].strip()
    return text


def _only_prefixes(text: str) -> bool:
    """Say whether what preceded an NCCL message on its line is only launcher prefixes.

    A timestamp, an srun label, an OpenMPI tag, not nccl-tests output: then the line is dropped
    whole rather than counted as unrecognised (kubectl logs --timestamps with NCCL_DEBUG=INFO
    has thousands).
    """
    text = text.strip()
    for _ in range(4):
        if not text:
            return True
        stripped = _strip_prefix(text + " ")  # each prefix pattern ends at whitespace
        if stripped == text + " ":
            return False
        text = stripped
    return not text


def _check_long_line(line: str, line_number: int) -> None:
    """Refuse a line over MAX_LINE_CHARS that starts like nccl-tests' own output (``#`` or a number).

    Such a line means the log is damaged; any other long line (an environment dump, a progress
    bar) is skipped by the caller with a warning.
    """
    first = line[:80].split(maxsplit=1)[:1]
    if first and (first[0][0] == "#" or first[0].isdecimal()):
        raise NcclLogError(
            f"this line is {len(line):,} characters long; nccl-tests prints none longer than a few hundred "
            f"(this reader stops at {MAX_LINE_CHARS:,}), so the log is damaged here",
            line_number,
        )


def _long_lines_message(long_lines: list[tuple[int, int]]) -> str:
    """Say which over-long lines were skipped, given (line number, length) of each; at least one."""
    line_number, length = long_lines[0]
    if len(long_lines) == 1:
        return (
            f"line {line_number} is {length:,} characters long, more than the {MAX_LINE_CHARS:,} "
            "any nccl-tests line needs, and was skipped"
        )
    return (
        f"{len(long_lines)} lines longer than {MAX_LINE_CHARS:,} characters were skipped "
        f"(first, line {line_number}: {length:,} characters)"
    )


class _SkippedLines:
    """The lines left out of the reading: not nccl-tests output, over-long, and the NCCL WARN messages met."""

    def __init__(self) -> None:
        self.unrecognised: list[int] = []  # line numbers
        self.first_unrecognised_text = ""
        self.long_lines: list[tuple[int, int]] = []  # (line number, length in characters)
        self.nccl_warns: dict[str, None] = {}  # insertion-ordered set of WARN texts

    def unrecognised_line(self, text: str, line_number: int) -> None:
        """Note a line that is not nccl-tests output, quoting the first such line."""
        if not self.unrecognised:
            self.first_unrecognised_text = text[:_SHOWN_CHARS]
        self.unrecognised.append(line_number)

    def no_rows_detail(self, non_blank: int) -> str:
        """Say, for the message of a log without data rows, which lines were left out and why."""
        detail = ""
        if self.unrecognised:
            detail = (
                f"; {len(self.unrecognised)} of {non_blank} non-blank lines were not recognised "
                f"(first, line {self.unrecognised[0]}: {self.first_unrecognised_text!r})"
            )
        if self.long_lines:
            detail += "; " + _long_lines_message(self.long_lines)
        return detail

    def warnings(self) -> list[str]:
        """Warn about the unrecognised and the over-long lines, if any."""
        warnings = []
        if self.unrecognised:
            warnings.append(
                f"{len(self.unrecognised)} lines were not recognised and were skipped "
                f"(first, line {self.unrecognised[0]}: {self.first_unrecognised_text!r})"
            )
        if self.long_lines:
            warnings.append(_long_lines_message(self.long_lines))
        return warnings

    def nccl_warn_summary(self) -> str | None:
        """Quote the first few distinct NCCL WARN messages in one warning, or None if there were none."""
        if not self.nccl_warns:
            return None
        listed = "; ".join(list(self.nccl_warns)[:_MAX_WARNINGS_LISTED])
        more = len(self.nccl_warns) - _MAX_WARNINGS_LISTED
        return f"NCCL WARN: {listed}" + (f" (and {more} more)" if more > 0 else "")
