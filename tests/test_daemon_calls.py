"""`fastsnake.signals.DaemonCall`: calls run on daemon threads that are kept for the next call (a thread
start costs as much as 2-3 % of a short search), never on one whose call is still running."""

from __future__ import annotations

import os
import threading

import pytest

from fastsnake import signals


def _names(name: str) -> list:
    return [t for t in threading.enumerate() if t.name == name]


def test_a_finished_calls_thread_runs_the_next_call():
    seen = []  # the thread objects themselves (kept alive: an ended thread's ident may come again)
    for k in range(50):
        call = signals.DaemonCall(lambda k=k: (threading.current_thread(), k * k), "fastsnake-test-reuse")
        assert call.finished.wait(10)
        thread, value = call.result()
        assert value == k * k
        if not any(thread is t for t in seen):
            seen.append(thread)
    # One thread did (nearly) all: a new one only when the next call came before the last went idle.
    assert len(seen) <= signals.IDLE_DAEMONS
    assert len(_names("fastsnake-test-reuse")) <= signals.IDLE_DAEMONS


def test_errors_reach_the_waiting_thread_and_the_thread_serves_again():
    def fails():
        raise KeyError("lost")

    call = signals.DaemonCall(fails, "fastsnake-test-error")
    assert call.finished.wait(10)
    with pytest.raises(KeyError, match="lost"):
        call.result()
    again = signals.DaemonCall(lambda: 7, "fastsnake-test-error")
    assert again.finished.wait(10) and again.result() == 7


def test_a_call_still_running_never_gets_another():
    release = threading.Event()
    stuck = signals.DaemonCall(lambda: (release.wait(30), threading.get_ident())[1], "fastsnake-test-stuck")
    try:
        others = [signals.DaemonCall(threading.get_ident, "fastsnake-test-stuck") for _ in range(5)]
        for call in others:
            assert call.finished.wait(10)  # not queued behind the stuck call
        assert not stuck.finished.is_set()
    finally:
        release.set()
    assert stuck.finished.wait(10)
    assert stuck.result() not in {call.result() for call in others}


def test_at_most_the_idle_limit_is_kept():
    release = threading.Event()
    calls = [signals.DaemonCall(lambda: release.wait(30), "fastsnake-test-many")
             for _ in range(signals.IDLE_DAEMONS + 3)]
    assert len(_names("fastsnake-test-many")) == signals.IDLE_DAEMONS + 3
    release.set()
    for call in calls:
        assert call.finished.wait(10)
    for t in _names("fastsnake-test-many"):
        t.join(0.01)
    deadline = threading.Event()
    for _ in range(100):  # the extra threads end once they see the idle list full
        if len(_names("fastsnake-test-many")) <= signals.IDLE_DAEMONS:
            break
        deadline.wait(0.05)
    assert len(_names("fastsnake-test-many")) <= signals.IDLE_DAEMONS


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_forked_child_starts_its_own_threads():
    call = signals.DaemonCall(lambda: 1, "fastsnake-test-fork")
    assert call.finished.wait(10)
    pid = os.fork()
    if pid == 0:  # the child: the parent's idle thread does not exist here; a call must still run
        code = 1
        try:
            child = signals.DaemonCall(lambda: 5, "fastsnake-test-fork")
            code = 0 if child.finished.wait(10) and child.result() == 5 else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
