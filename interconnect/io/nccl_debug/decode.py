"""From what the user brings (text, bytes, an open file) to numbered lines, as a stream.

Bytes are decoded as UTF-8 with every undecodable byte replaced (a log cut by ``head -c`` or holding a
terminal's colour codes still reads); UTF-16 with a byte-order mark (PowerShell's ``>``) is recognised. A line
longer than :data:`~.limits.MAX_LINE_CHARS` is cut there. Nothing here holds more than one chunk of the input.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from typing import IO

from interconnect.io.nccl_debug.limits import MAX_LINE_CHARS

__all__ = ["iter_lines"]

_CHUNK = 1 << 16


def _chunks_of(source: str | bytes | IO | Iterable) -> Iterator[str]:
    """Yield the text of ``source`` in pieces, decoding bytes as it goes."""
    if isinstance(source, str):
        for start in range(0, len(source), _CHUNK):
            yield source[start:start + _CHUNK]
        return
    if isinstance(source, bytes | bytearray | memoryview):
        source = bytes(source)
        pieces: Iterable = (source[start:start + _CHUNK] for start in range(0, len(source), _CHUNK))
    elif hasattr(source, "read"):
        pieces = iter(lambda: source.read(_CHUNK), source.read(0))
    else:
        pieces = source
    decoder = None
    for piece in pieces:
        if isinstance(piece, str):
            yield piece
            continue
        if decoder is None:
            encoding = "utf-16" if piece[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) else "utf-8"
            decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        yield decoder.decode(bytes(piece))
    if decoder is not None:
        yield decoder.decode(b"", final=True)


def iter_lines(source: str | bytes | IO | Iterable) -> Iterator[tuple[int, str, bool]]:
    r"""Yield ``(line number, text, cut)`` for every line of ``source``, numbered from 1.

    ``text`` has no line ending (``\n``, ``\r\n`` or a lone ``\r``) and at most :data:`MAX_LINE_CHARS`
    characters; ``cut`` says a longer line was cut. Time and memory are linear in the input and bounded per line.

    >>> list(iter_lines(b"a\r\nb\xff\nc"))
    [(1, 'a', False), (2, 'b\ufffd', False), (3, 'c', False)]
    """
    number = 0
    held: list[str] = []  # the current line's pieces, at most MAX_LINE_CHARS characters in all
    held_chars = 0
    cut = False
    after_cr = False  # the previous chunk ended with "\r": a "\n" starting this one ends no further line
    for chunk in _chunks_of(source):
        if after_cr and chunk[:1] == "\n":
            chunk = chunk[1:]
        after_cr = chunk[-1:] == "\r"
        if "\r" in chunk:
            chunk = chunk.replace("\r\n", "\n").replace("\r", "\n")
        start = 0
        while True:
            end = chunk.find("\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            room = MAX_LINE_CHARS - held_chars
            if len(piece) > room:
                piece, cut = piece[:room], True
            if piece:
                held.append(piece)
                held_chars += len(piece)
            if end < 0:
                break
            number += 1
            yield number, "".join(held), cut
            held, held_chars, cut = [], 0, False
            start = end + 1
    if held or cut:
        number += 1
        yield number, "".join(held), cut
