# SPDX-License-Identifier: Apache-2.0
"""Runs release the GIL: Python threads run one Model concurrently; close() waits for them."""
import threading

import numpy as np
import pytest

import ember


def run_intervals(events):
    """{run number: (first node's start, last node's end)} from a session's profile."""
    spans = {}
    for e in events:
        lo, hi = spans.get(e.run, (e.start_ns, e.start_ns + e.dur_ns))
        spans[e.run] = (min(lo, e.start_ns), max(hi, e.start_ns + e.dur_ns))
    return spans


def test_runs_of_two_threads_overlap():
    """If a run held the GIL, runs of one session would follow one another: no two of their
    [start, end] spans (ember's own clock, inside the C call) could overlap. With the GIL
    released, two threads calling run() in a loop overlap as soon as the OS interleaves them,
    even on one core. The property holds however loaded the machine is; no timing threshold."""
    x = np.random.default_rng(0).random((512, 1, 28, 28), dtype=np.float32)
    with ember.Model.builtin(threads=1, profiling=True) as m:
        want = m.run([x])["probs"]
        m.profile(clear=True)
        barrier = threading.Barrier(2)
        results, errors = [], []

        def work():
            try:
                barrier.wait()
                for _ in range(6):
                    results.append(m.run([x])["probs"])
            except BaseException as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert len(results) == 12
        for r in results:
            np.testing.assert_array_equal(r, want)
        spans = sorted(run_intervals(m.profile()).values())
        assert len(spans) == 12
        overlaps = sum(1 for a, b in zip(spans, spans[1:]) if b[0] < a[1])
        assert overlaps > 0, "no two runs overlapped: was the GIL held during runs?"


def test_many_threads_agree():
    rng = np.random.default_rng(1)
    xs = [rng.random((n, 1, 28, 28), dtype=np.float32) for n in (1, 3, 8, 5)]
    with ember.Model.builtin(threads=1) as m:
        want = [m.run([x])["probs"] for x in xs]
        got = [None] * 16
        errors = []

        def work(k):
            try:
                for _ in range(5):
                    got[k] = m.run([xs[k % 4]])["probs"]
            except BaseException as e:
                errors.append(e)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors
    for k in range(16):
        np.testing.assert_array_equal(got[k], want[k % 4])


def test_close_waits_for_runs_in_flight():
    x = np.random.default_rng(2).random((256, 1, 28, 28), dtype=np.float32)
    m = ember.Model.builtin(threads=1)
    want = m.run([x])["probs"]
    started = threading.Event()
    outcomes = []

    def work():
        started.set()
        while True:
            try:
                y = m.run([x])["probs"]
            except ember.StateError:
                outcomes.append("closed")
                return
            outcomes.append(bool(np.array_equal(y, want)))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    started.wait()
    m.close()  # returns once no run is in flight; the loops then see StateError
    for t in threads:
        t.join()
    assert outcomes.count("closed") == 3
    assert all(o is True for o in outcomes if o != "closed")
    with pytest.raises(ember.StateError):
        m.run([x])
