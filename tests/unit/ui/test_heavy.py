"""One heavy job at a time per server (interconnect.ui.heavy), and a pasted log parsed once per content."""

import threading
import time
from pathlib import Path

from interconnect.ui import heavy

LOGS = Path(__file__).resolve().parents[2] / "unit" / "data" / "nccl_logs"


def test_at_most_one_heavy_job_runs_and_the_others_wait():
    running, most, lock = [0], [0], threading.Lock()

    def job(seconds):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(seconds)
        with lock:
            running[0] -= 1
        return seconds

    threads = [threading.Thread(target=heavy.run_heavy, args=(job, 0.05)) for _ in range(4)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    time.sleep(0.01)
    assert heavy.heavy_busy()  # what the page's spinner asks
    for thread in threads:
        thread.join()
    assert most[0] == heavy.HEAVY_SLOTS == 1
    assert time.perf_counter() - start >= 0.2
    assert not heavy.heavy_busy()


def test_a_heavy_job_may_call_another_and_an_error_frees_the_slot():
    assert heavy.run_heavy(lambda: heavy.run_heavy(lambda: 7)) == 7

    def fails():
        raise ValueError("bad log")

    for _ in range(2):
        try:
            heavy.run_heavy(fails)
        except ValueError:
            pass
    assert heavy.run_heavy(lambda: 1) == 1 and not heavy.heavy_busy()


def test_a_paste_is_parsed_once_per_content_and_a_bad_one_too(monkeypatch):
    from interconnect.topics.allreduce import page
    from tests.app.conftest import run_page

    calls = []
    original = page.parse_nccl_runs

    def counted(data):
        calls.append(len(data))
        return original(data)

    monkeypatch.setattr(page, "parse_nccl_runs", counted)
    text = (LOGS / "h100-2node-unidentified.txt").read_text() + f"\n# test {time.time_ns()}\n"  # a paste of its own
    at = run_page("pages/2_All_reduce.py", {"gpu": "h100-sxm", "gpn": "8", "nodes": "2"})
    at.text_area(key="allreduce.paste").input(text).run()
    at.number_input(key="allreduce.nodes").set_value(3).run()
    at.number_input(key="allreduce.nodes").set_value(4).run()
    assert not at.exception and len(calls) == 1
    bad = f"not a log {time.time_ns()}"
    at.text_area(key="allreduce.paste").input(bad).run()
    at.number_input(key="allreduce.nodes").set_value(5).run()
    assert len(calls) == 2 and at.error[0].value.startswith("Could not read this as")
