"""One line's prefixes: the launcher's and NCCL's own ``host:pid:tid [dev] NCCL INFO``.

Launchers: Open MPI ``[1,3]<stdout>:``, srun ``[155] ``, pdsh ``10.0.0.1: `` or ``host: ``, Ray's
``(RayTrainWorker pid=…, ip=…) ``, a timestamp, Python logging's ``… - INFO - ``.

Everything here is plain string search over a line of bounded length (``str.find`` and splits, no regular
expression over the whole line), so a line costs time linear in its length whatever it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Prefix", "split_line"]

_LEVELS = (" NCCL INFO ", " NCCL WARN ")


@dataclass(frozen=True)
class Prefix:
    """What stood before a message.

    The launcher's rank (Open MPI ``[job,rank]``, srun ``[rank]``), NCCL's host, process, thread and local device,
    and the level (``INFO``, ``WARN``, or ``""`` for a bare message).
    """

    launcher_rank: int | None = None
    host: str | None = None
    pid: int | None = None
    tid: int | None = None
    device: int | None = None
    level: str = ""


def _launcher_rank(head: str) -> int | None:
    """Return the rank a launcher prefix names: ``[1,3]<stdout>:`` -> 3, ``[155] `` -> 155."""
    text = head.lstrip()
    if not text.startswith("["):
        return None
    close = text.find("]", 1, 40)
    if close < 0:
        return None
    inside = text[1:close]
    part = inside.rsplit(",", 1)[-1].strip()
    if part.isascii() and part.isdigit() and len(part) <= 7 and (("," in inside) or inside.strip().isdigit()):
        return int(part)
    return None


def _host_pid_tid(token: str) -> tuple[str, int, int] | None:
    """Split ``gpu01:124172:124452`` into ``("gpu01", 124172, 124452)``."""
    parts = token.rsplit(":", 2)
    if len(parts) != 3 or not parts[0] or not (parts[1] + parts[2]).isascii() or not parts[1].isdigit() \
            or not parts[2].isdigit():
        return None
    if len(parts[1]) > 10 or len(parts[2]) > 10:
        return None
    return parts[0], int(parts[1]), int(parts[2])


def _device(token: str) -> int | None:
    inner = token[1:-1]
    if 3 <= len(token) <= 8 and token[0] == "[" and token[-1] == "]" and inner.isascii() and inner.isdigit():
        return int(inner)
    return None


def split_line(line: str) -> tuple[Prefix, str] | None:
    """Split a line holding ``NCCL INFO`` or ``NCCL WARN`` into its prefix and its message.

    Returns ``None`` when neither appears. The message is what follows the level, with a WARN's
    ``file.cc:123`` moved out of the way (``init.cc:290 Cuda Host Alloc`` stays as NCCL printed it).

    >>> prefix, message = split_line("[1,3]<stdout>:gpu6:1410:1605 [3] NCCL INFO NET/Socket : Using [0]eth0:1.2.3.4<0>")
    >>> prefix.launcher_rank, prefix.host, prefix.pid, prefix.device, prefix.level, message
    (3, 'gpu6', 1410, 3, 'INFO', 'NET/Socket : Using [0]eth0:1.2.3.4<0>')
    >>> split_line(" [0] NCCL INFO Bootstrap : Using [0]br0:10.1.1.1<0>")[0].device
    0
    """
    at = -1
    level = ""
    for marker in _LEVELS:
        found = line.find(marker)
        if found >= 0 and (at < 0 or found < at):
            at, level = found, marker[6:10]
    if at < 0:
        if line.startswith("NCCL INFO ") or line.startswith("NCCL WARN "):
            return Prefix(level=line[5:9]), line[10:]
        return None
    head = line[:at]
    message = line[at + len(_LEVELS[0]):]
    tokens = head.split()
    device = host = pid = tid = None
    # From the right: an optional WARN "file.cc:123", the "[dev]", then "host:pid:tid".
    if tokens and level == "WARN" and ".cc:" in tokens[-1] and _device(tokens[-1]) is None:
        tokens.pop()
    if tokens:
        device = _device(tokens[-1])
        if device is not None:
            tokens.pop()
    if tokens:
        found_host = _host_pid_tid(tokens[-1])
        if found_host is not None:
            host, pid, tid = found_host
            tokens.pop()
            # "[1,3]<stdout>:gpu6:1410:1605": the launcher tag glued to the host
            if ">:" in host:
                glued = host.rfind(">:")
                tokens.append(host[:glued + 2])
                host = host[glued + 2:]
    return Prefix(_launcher_rank(" ".join(tokens[:2])), host or None, pid, tid, device, level), message


def strip_launcher(line: str) -> tuple[str, int | None]:
    """Remove launcher prefixes from a line without NCCL's prefix; return the rest and the launcher's rank.

    Removes, up to four times: ``[...]`` with ``<stdout>:``/``<stderr>:`` after it, ``(...)`` (Ray), a Markdown
    quote's ``> `` (a log pasted into a thread as a quote), and a first word ending in ``:`` followed by a space
    (pdsh's ``10.0.0.1: ``, ``host: ``).

    >>> strip_launcher("[1,0]<stdout>:NCCL version 2.4.2+cuda10.0")
    ('NCCL version 2.4.2+cuda10.0', 0)
    >>> strip_launcher("104.171.201.171: Bootstrap : Using eth0:10.0.0.1<0>")
    ('Bootstrap : Using eth0:10.0.0.1<0>', None)
    >>> strip_launcher("> RCCL version 2.20.5+hip6.2 HEAD:d380693+")
    ('RCCL version 2.20.5+hip6.2 HEAD:d380693+', None)
    """
    rank = None
    text = line.lstrip()
    for _ in range(4):
        if text.startswith(">"):  # a Markdown quote: logs pasted into an issue thread as "> line"
            text = text[1:].lstrip()
            continue
        if text.startswith("["):
            close = text.find("]", 1, 64)
            if close < 0:
                break
            found = _launcher_rank(text[:close + 1])
            rank = found if found is not None else rank
            text = text[close + 1:]
            for tag in ("<stdout>:", "<stderr>:"):
                if text.startswith(tag):
                    text = text[len(tag):]
            text = text.lstrip()
            continue
        if text.startswith("("):
            close = text.find(")", 1, 160)
            if close < 0:
                break
            text = text[close + 1:].lstrip()
            continue
        space = text.find(" ", 0, 100)
        if space > 1 and text[space - 1] == ":" and text[:space - 1].replace(".", "").replace("-", "").isalnum():
            word = text[:space - 1]
            # "Bootstrap :" and "NET/IB :" are messages, not prefixes: a prefix word is a host or an address
            if word[:1].isdigit() or ("-" in word or "." in word) or word.islower():
                text = text[space + 1:].lstrip()
                continue
        break
    return text, rank
