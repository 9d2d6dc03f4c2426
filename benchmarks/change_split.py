"""Where one control change's time goes: the browser before sending, the server's script run, the messages, and the
browser's drawing after the last message, for a page and a bare Streamlit page in the same run.

Each server is started with a small start-up hook (``sitecustomize`` in a temporary folder put first on its
``PYTHONPATH``) that times every script run of the server, wall clock and the run thread's CPU time, and writes
one line per run to a file. In headless Chromium, a wrapper around the page's ``WebSocket`` stamps every frame sent
and received (``performance.now()``, bytes); the frames received are also decoded (on the Python side, in the same
order) to find the run's ``script_finished``. Per change (``interaction.py``'s timing: the link holds the new
value, the script is idle, two frames later), it prints:

- *send*: from the change to the browser sending it (typing, Streamlit's widget handling);
- *server*: the server's script run (its own clock; CPU in brackets);
- *wire*: from the change sent to the run's last message received, less the run (the server's work outside the
  script, the websocket, and the browser's main thread handling messages as they come);
- *draw*: from the last message to the page seen done (React's rendering of what arrived, style, layout, paint);
- the run's messages and bytes received;
- the page's main-thread time during the change (Chrome DevTools Protocol performance metrics): all tasks,
  JavaScript, style recalculation and layout, which move with the load much less than the times above.

Pages and the bare page are changed in turns, each page's change right after one of the bare page.
Run from the repository root: ``.venv/bin/python benchmarks/change_split.py [changes] [page name ...]`` (names as in
``interaction.py``). ``--against DIR`` also splits the same pages served from another checkout, in the same rounds;
``--frozen-bare`` has the bare page freeze its heap after its first run, as the app's pages do.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_bench import ROOT, StreamlitServer, chromium, paired_arguments, server  # noqa: E402
from browser_helpers import open_and_watch, timed_change, url_shows, wait_for_first_chart  # noqa: E402
from interaction import PAGES, number_changer  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

CHANGES = 8

#: Times each script run of the server it is loaded into; a line per run, "wall_ms cpu_ms", to $SPLIT_RUN_LOG.
HOOK = '''
import os, time
_log = os.environ.get("SPLIT_RUN_LOG")
if _log:
    from streamlit.runtime.scriptrunner import script_runner as _sr
    _run = _sr.ScriptRunner._run_script
    _profile = None
    if os.environ.get("SPLIT_PROFILE"):
        import cProfile
        _profile = cProfile.Profile()
    def _timed(self, *args, **kwargs):
        wall, cpu = time.perf_counter(), time.thread_time()
        profiling = _profile is not None and os.path.exists(_log + ".on")
        if profiling:
            _profile.enable()
        try:
            return _run(self, *args, **kwargs)
        finally:
            if profiling:
                _profile.disable()
                _profile.dump_stats(_log + ".prof")
            with open(_log, "a") as out:
                out.write(f"{(time.perf_counter() - wall) * 1000:.2f} {(time.thread_time() - cpu) * 1000:.2f}\\n")
    _sr.ScriptRunner._run_script = _timed
'''

#: Stamps every websocket frame the page sends and receives: [time, "in"/"out", bytes].
SOCKET_JS = """
(() => {
  window.__frames = [];
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', e => window.__frames.push(
      [performance.now(), 'in', e.data.byteLength ?? e.data.size ?? e.data.length]));
    const send = ws.send.bind(ws);
    ws.send = data => { window.__frames.push([performance.now(), 'out', data.byteLength ?? data.length]); send(data); };
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})();
"""


class Split:
    """One open page with its websocket stamped and its server's runs logged."""

    def __init__(self, srv, log: Path, context, path: str, key: str, values: tuple, charts: int) -> None:
        self.log, self.key, self.values = log, key, values
        self.kinds: list[str] = []  # each frame received, decoded: its ForwardMsg type
        self.page = context.new_page()
        self.page.add_init_script(SOCKET_JS)
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        open_and_watch(self.page, srv, path, charts)
        wait_for_first_chart(self.page)
        self.cdp = self.page.context.new_cdp_session(self.page)
        self.cdp.send("Performance.enable")
        self.rows: list[dict[str, float]] = []

    def _busy(self) -> dict[str, float]:
        """The page's main-thread time so far (ms): all tasks, JavaScript, style recalculation, layout."""
        metrics = {m["name"]: m["value"] * 1000 for m in self.cdp.send("Performance.getMetrics")["metrics"]}
        return {k: metrics[k] for k in ("TaskDuration", "ScriptDuration", "RecalcStyleDuration", "LayoutDuration")}

    def _frame(self, payload) -> None:
        msg = ForwardMsg()
        try:
            msg.ParseFromString(payload if isinstance(payload, bytes) else payload.encode())
            self.kinds.append(msg.WhichOneof("type") or "?")
        except Exception:  # noqa: BLE001 - not a ForwardMsg
            self.kinds.append("?")

    def change(self, record: bool = True) -> None:
        self.page.bring_to_front()
        field = self.page.locator(".st-key-" + self.key.replace(".", "-") + " input").first
        value = self.values[1] if field.input_value().strip() == str(self.values[0]) else self.values[0]
        runs_before = len(self.log.read_text().splitlines()) if self.log.exists() else 0
        frames_before = self.page.evaluate("() => window.__frames.length")
        kinds_before = len(self.kinds)
        busy_before = self._busy()
        t0 = self.page.evaluate("() => performance.now()")
        try:
            total = timed_change(self.page, number_changer(self.page, self.key, value),
                                 shown=url_shows(self.key.split(".", 1)[1], value))
        except PlaywrightError:
            return
        busy = {k: v - busy_before[k] for k, v in self._busy().items()}
        self.page.wait_for_timeout(300)  # the last frames' Python-side events
        frames = self.page.evaluate("n => window.__frames.slice(n)", frames_before)
        kinds = self.kinds[kinds_before:]
        received = [f for f in frames if f[1] == "in"]
        sent = [f for f in frames if f[1] == "out"]
        runs = self.log.read_text().splitlines()[runs_before:]
        if not record or not sent or len(kinds) != len(received) or "script_finished" not in kinds:
            return
        last = max(i for i, k in enumerate(kinds) if k == "script_finished")
        finished = received[last][0]
        wall = sum(float(r.split()[0]) for r in runs)
        cpu = sum(float(r.split()[1]) for r in runs)
        self.rows.append({
            "total": total, "send": sent[0][0] - t0, "server": wall, "cpu": cpu,
            "wire": finished - sent[0][0] - wall, "draw": t0 + total - finished,
            "task": busy["TaskDuration"], "js": busy["ScriptDuration"],
            "style": busy["RecalcStyleDuration"], "layout": busy["LayoutDuration"], "messages": last + 1,
            "kb": sum(f[2] for f in received[:last + 1]) / 1024, "runs": len(runs),
        })


def summary(name: str, rows: list[dict[str, float]]) -> str:
    if not rows:
        return f"{name:<22} no change recorded"
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    return (f"{name:<22} {med['total']:>6.0f} {med['send']:>6.0f} {med['server']:>7.0f} ({med['cpu']:>3.0f}) "
            f"{med['wire']:>6.0f} {med['draw']:>6.0f} {med['messages']:>5.0f} {med['kb']:>7.1f} {med['runs']:>4.0f}"
            f" | {med['task']:>6.0f} {med['js']:>5.0f} {med['style']:>5.0f} {med['layout']:>6.0f}")


@contextlib.contextmanager
def hooked_server(log: Path, bare: bool = False, root: str | None = None, frozen: bool = False):
    """:func:`browser_bench.server` (the app, another checkout ``root``, or the bare page) with the run-timing hook."""
    hook_dir = Path(tempfile.mkdtemp())
    (hook_dir / "sitecustomize.py").write_text(HOOK)
    saved = {k: os.environ.get(k) for k in ("PYTHONPATH", "SPLIT_RUN_LOG")}
    code = Path(root).resolve() if root else ROOT
    os.environ["PYTHONPATH"] = f"{hook_dir}{os.pathsep}{code}"
    os.environ["SPLIT_RUN_LOG"] = str(log)
    try:
        if bare:
            cm = server(bare=True, charts=1, frozen=frozen)
            srv = cm.__enter__()
        else:
            cm = None
            srv = StreamlitServer(Path(tempfile.mkdtemp()) / "server.log", app_dir=code).start()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    try:
        yield srv
    finally:
        if cm is not None:
            cm.__exit__(None, None, None)
        else:
            srv.stop()


def main() -> None:
    changes, only, against, frozen = paired_arguments(sys.argv[1:], CHANGES)
    chosen = [p for p in PAGES if p[3] and p[5] == 1 and (not only or p[0] in only)]
    logs = Path(tempfile.mkdtemp())
    with chromium() as context, contextlib.ExitStack() as stack:
        bare_srv = stack.enter_context(hooked_server(logs / "bare.log", bare=True, frozen=frozen))
        app = stack.enter_context(hooked_server(logs / "app.log"))
        other = stack.enter_context(hooked_server(logs / "other.log", root=against)) if against else None
        bare = Split(bare_srv, logs / "bare.log", context, "/", "bare.n", (200, 100), 1)
        pages = []
        for name, path, key, values, plotly, _ in chosen:
            pages.append((name, Split(app, logs / "app.log", context, path, key, values, plotly)))
            if other is not None:
                pages.append((name + " (before)", Split(other, logs / "other.log", context, path, key, values,
                                                        plotly)))
        for _, split in pages:
            split.change(record=False)
        bare.change(record=False)
        for name in ("bare.log", "app.log", "other.log"):  # the profile (SPLIT_PROFILE=1) starts here
            (logs / (name + ".on")).touch()
        for _ in range(changes):
            for _, split in pages:
                bare.change()
                split.change()
    print(f"one control change, median of {changes} (ms; kB received): change sent, the server's script run (CPU), "
          "wire (to the last message, less the run), drawing after the last message; | the browser's main thread "
          "during the change: all tasks, JavaScript, style recalculation, layout")
    print(f"{'page':<22} {'total':>6} {'send':>6} {'server':>7} {'cpu':>5} {'wire':>6} {'draw':>6} {'msgs':>5} "
          f"{'kB':>7} {'runs':>4} | {'tasks':>6} {'js':>5} {'style':>5} {'layout':>6}")
    print(summary("bare page", bare.rows))
    if os.environ.get("SPLIT_PROFILE"):
        print(f"script runs' CPU profiles (pstats): {logs}/*.log.prof")
    for name, split in pages:
        print(summary(name, split.rows))


if __name__ == "__main__":
    main()
