"""Model.monitor: the live monitor from Python. Its records are the batch verdicts of the same
runs (Model.check_many on the grouped events) and the lines of ``multitrace monitor``; a Fail is
returned at the first event whose prefix the batch check fails; a monitor pickled mid-stream
and resumed gives the records of an uninterrupted one."""

import json
import pickle
import random
import subprocess
from datetime import timedelta

import pytest

import multitrace

KINDS = ["pass", "local-error", "inter-error", "central-error-mixed", "prefix", "noise",
         "swap-actions", "swap-components"]
FIELDS = ("id", "verdict", "procedure", "reason", "explanation", "local_error", "diagnosis",
          "budget", "error")


@pytest.fixture(scope="module")
def mqtt(fixtures):
    return multitrace.compile(str(fixtures / "seed004-mqtt" / "model.hif"))


def runs_of(model, count, seed, prefix="r"):
    out = []
    for k in KINDS:
        for it in model.generate(k, count=count, length=(1, 14), seed=seed):
            if any(it["traces"].values()):
                out.append((f"{prefix}{len(out)}", it["traces"]))
    return out


def interleave(runs, rng):
    """Events as they would arrive: runs interleaved at random, each location's events in
    order (order key: the position in its location)."""
    queues = []
    for rid, traces in runs:
        for acts in traces.values():
            if acts:
                queues.append([(rid, a, i) for i, a in enumerate(acts)])
    events = []
    while queues:
        q = rng.choice(queues)
        events.append(q.pop(0))
        if not q:
            queues.remove(q)
    return events


def batch(model, runs, mode="prefix"):
    """The batch verdicts: Model.check_many of the runs' multitraces."""
    items = [{"id": rid, "traces": t} for rid, t in runs]
    return {r.id: r for r in model.check_many(items, mode=mode)}


def fields(r):
    d = r.to_dict()
    return {k: d[k] for k in FIELDS}


def prefix_of(model, events, rid, n):
    """Run ``rid``'s multitrace of the first ``n`` events."""
    loc = {a: k for k, acts in model.letters.items() for a in acts}
    traces = {}
    for r, a, _ in events[:n]:
        if r == rid:
            traces.setdefault(loc[a], []).append(a)
    return traces


@pytest.mark.parametrize("mode", ["prefix", "complete"])
def test_records_equal_the_batch_verdicts(mqtt, mode):
    runs = runs_of(mqtt, 40, 3)
    events = interleave(runs, random.Random(1))
    mon = mqtt.monitor(mode=mode)
    got = mon.push_many([e[0] for e in events], [e[1] for e in events], [e[2] for e in events])
    got += mon.close_all()
    assert mon.live_runs == 0
    assert len(got) == len(runs) == len({r.id for r in got})  # one record per run
    want = batch(mqtt, runs, mode)
    # Every run's verdict is the batch verdict of the whole run.
    assert {r.id: r.verdict for r in got} == {k: r.verdict for k, r in want.items()}
    decided = 0
    for r in got:
        m = r.monitor
        assert json.loads(r.to_json())["monitor"] == m
        if m["closed"] == "decided":
            # Decided at an event: the batch record (reason, explanation, diagnosis) of the
            # run's prefix there, in prefix mode.
            decided += 1
            assert r.verdict in ("Fail", "Inconclusive")
            n = int(m["at"].split(":")[1])
            prefix = mqtt.check(prefix_of(mqtt, events, r.id, n), id=r.id)
            assert fields(r) == fields(prefix)
            assert m["events"] == sum(map(len, prefix_of(mqtt, events, r.id, n).values()))
        else:
            assert m["closed"] == "end-of-input"
            # The whole batch record, a WeakPass's "looks cut short" explanation included.
            assert fields(r) == fields(want[r.id])
        if mode == "prefix" and r.verdict == "Fail":
            assert m["closed"] == "decided"  # a prefix Fail is certain at an event
    assert decided and {"Fail", "Pass"} <= {r.verdict for r in got}


def test_a_fail_is_returned_at_the_first_failing_event(mqtt):
    runs = runs_of(mqtt, 15, 7)
    events = interleave(runs, random.Random(2))
    mon = mqtt.monitor()
    seen = {rid: {} for rid, _ in runs}
    decided_at = {}
    for i, (rid, action, order) in enumerate(events):
        loc = next(k for k, v in mqtt.letters.items() if action in v)
        seen[rid].setdefault(loc, []).append(action)
        prefix_fails = mqtt.check(seen[rid]).verdict == "Fail"
        recs = mon.push(rid, action, order)
        assert [r.id for r in recs] == ([rid] if prefix_fails and rid not in decided_at else [])
        for r in recs:
            assert r.verdict == "Fail" and r.monitor["closed"] == "decided"
            assert r.monitor["at"] == f"<python>:{i + 1}"
            decided_at[rid] = i
    assert decided_at, "some run fails"
    rest = mon.close_all()
    assert {r.id for r in rest} == {rid for rid, _ in runs} - set(decided_at)


def test_an_event_named_by_the_caller_is_named_so_in_its_record(mqtt):
    # The same events through push_many with every other event named: a Fail decided by a
    # named event says its name, by an unnamed one its position; nothing else changes.
    runs = runs_of(mqtt, 15, 7)
    events = interleave(runs, random.Random(2))
    cols = [list(c) for c in zip(*events)]
    plain = mqtt.monitor().push_many(*cols)
    names = [f"spans.json:{i}:span-{i}" if i % 2 else None for i in range(len(events))]
    named = mqtt.monitor().push_many(*cols, ats=names)
    assert [r.id for r in named] == [r.id for r in plain] and plain
    pos = {r.id: int(r.monitor["at"].split(":")[1]) - 1 for r in plain}
    for r in named:
        i = pos[r.id]
        assert r.monitor["at"] == (names[i] or f"<python>:{i + 1}")
    assert any(names[pos[r.id]] for r in named) and any(not names[pos[r.id]] for r in named)
    one = mqtt.monitor()
    got = [r for i, e in enumerate(events) for r in one.push(*e, at=f"e{i}")]
    assert [r.monitor["at"] for r in got] == [f"e{pos[r.id]}" for r in got]
    with pytest.raises(ValueError, match="2 places"):
        mqtt.monitor().push_many(*cols, ats=["a", "b"])


def same(records):
    """Records as data, every field (`state_bytes` counts a state's content, the same after a
    restore)."""
    return [json.loads(r.to_json()) for r in records]


def test_pickled_mid_stream_resumes_with_the_same_records(mqtt):
    runs = runs_of(mqtt, 20, 5)
    events = interleave(runs, random.Random(3))
    cols = lambda evs: ([e[0] for e in evs], [e[1] for e in evs], [e[2] for e in evs])  # noqa: E731
    whole = mqtt.monitor(reorder_window=2)
    want = whole.push_many(*cols(events)) + whole.close_all()
    for cut in (1, len(events) // 3, len(events) // 2, len(events) - 1):
        first = mqtt.monitor(reorder_window=2)
        got = first.push_many(*cols(events[:cut]))
        blob = pickle.dumps(first)
        first.push_many(*cols(events[cut:]))  # the original goes on; the copy is independent
        resumed = pickle.loads(blob)
        assert resumed.live_runs <= len(runs) and resumed.events == cut
        got += resumed.push_many(*cols(events[cut:])) + resumed.close_all()
        assert same(got) == same(want)
    # The state alone, given to a monitor with the same options.
    part = mqtt.monitor(reorder_window=2)
    got = part.push_many(*cols(events[:50]))
    again = mqtt.monitor(reorder_window=2, state=part.state())
    got += again.push_many(*cols(events[50:])) + again.close_all()
    assert same(got) == same(want)
    # __getstate__ / __setstate__ on a monitor of the same model.
    other = mqtt.monitor(reorder_window=2)
    other.__setstate__(part.__getstate__())
    assert other.events == 50 and other.live_runs == part.live_runs


def test_a_state_of_another_model_is_refused(mqtt, fixtures):
    other = multitrace.compile(str(fixtures / "seed004-fig3" / "model.timbuk"))
    state = other.monitor().state()
    with pytest.raises(multitrace.LoadError, match="digest"):
        mqtt.monitor(state=state)
    with pytest.raises(multitrace.LoadError, match="not a multitrace monitor state"):
        mqtt.monitor(state=b"garbage")


def test_the_records_are_the_lines_of_multitrace_monitor(mqtt, fixtures, cli, tmp_path):
    runs = runs_of(mqtt, 10, 9)
    events = interleave(runs, random.Random(4))
    path = tmp_path / "events.jsonl"
    with path.open("w") as f:
        for r, a, o in events:
            f.write(json.dumps({"run": r, "action": a, "order": o}) + "\n")
    out = subprocess.run([str(cli), "monitor", str(fixtures / "seed004-mqtt" / "model.hif"),
                          str(path), "--no-follow", "--format", "jsonl"],
                         capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    mon = mqtt.monitor(source=str(path))
    got = mon.push_many(*zip(*events)) + mon.close_all()
    # The same records in the same order (the `monitor` object's keys are in insertion order
    # here, serde_json's preserve_order of the Python build, and sorted by the command).
    assert [json.loads(r.to_json()) for r in got] == [json.loads(x) for x in out.stdout.splitlines()]


def test_bad_events_give_error_records_and_nothing_is_dropped(mqtt):
    mon = mqtt.monitor(arrival="in-order")
    assert mon.push("a", "clt1!begin", 1) == []
    (bad,) = mon.push("b", "nope!x", 1)
    assert bad.verdict == "Error" and bad.id == "b"
    assert 'unknown action "nope!x"' in bad.error["message"] and "<python>:2" in bad.error["message"]
    (norun,) = mon.push(None, "clt1!begin", 1)
    assert norun.verdict == "Error" and norun.id is None and "no run" in norun.error["message"]
    # A later event than the reorder window allows (0: in order) is an Error of its run.
    assert mon.push("c", "clt1!begin", 5) == []
    (late,) = mon.push("c", "clt1!begin", 2)
    assert late.verdict == "Error" and "reorder window" in late.error["message"]
    assert mon.push("b", "clt1!begin", 2) == []  # counted with the run already decided
    rest = mon.close_all()
    assert sorted(r.id for r in rest) == ["a"]  # b and c had their record
    with pytest.raises(ValueError, match="different lengths"):
        mon.push_many(["a"], ["clt1!begin", "clt1!begin"], [1])


def test_ends_idle_timeout_and_max_live_runs(mqtt):
    mon = mqtt.monitor(end_action="clt1!end", idle_timeout=timedelta(seconds=10), first_position=1)
    assert mon.push("a", "clt1!begin", 1) == []
    (r,) = mon.push("a", "clt1!end", 2)
    assert r.id == "a" and r.monitor["closed"] == "end-event" and r.monitor["events"] == 2
    # Timestamps: idle by event time (the largest timestamp seen).
    assert mon.push("t1", "clt1!begin", "2024-01-01T00:00:00Z") == []
    assert mon.push("t2", "clt1!begin", "2024-01-01T00:00:05Z") == []
    assert mon.close_idle() == []
    # t3 moves the clock past t1's last timestamp by more than the timeout: t1 closes before
    # t3's event, whatever the pacing of the calls (the records depend on the events alone).
    (idle,) = mon.push("t3", "clt1!begin", "2024-01-01T00:00:12Z")
    assert idle.id == "t1" and idle.monitor["closed"] == "idle"
    assert mon.close_idle() == []
    # Numbers: idle by the caller's clock.
    num = mqtt.monitor(idle_timeout=1.5, first_position=1)
    assert num.push("n", "clt1!begin", 1) == []
    import time

    assert num.close_idle(time.time()) == []
    (r,) = num.close_idle(time.time() + 5)
    assert r.id == "n"
    capped = mqtt.monitor(max_live_runs=2, first_position=1)
    assert capped.push("x", "clt1!begin", 1) == []
    assert capped.push("y", "clt1!begin", 1) == []
    (ev,) = capped.push("z", "clt1!begin", 1)
    assert ev.id == "x" and ev.monitor["closed"] == "evicted"
    assert [r.id for r in capped.close("y")] == ["y"] and capped.close("y") == []


def test_arrow_and_pandas_columns(mqtt):
    pa = pytest.importorskip("pyarrow")
    runs = runs_of(mqtt, 5, 1)
    events = interleave(runs, random.Random(6))
    runs_c, acts, orders = zip(*events)
    a = mqtt.monitor()
    want = a.push_many(list(runs_c), list(acts), list(orders)) + a.close_all()
    b = mqtt.monitor()
    got = b.push_many(pa.array(runs_c), pa.chunked_array([pa.array(acts)]), pa.array(orders, pa.int64()))
    got += b.close_all()
    assert [r.to_json() for r in got] == [r.to_json() for r in want]


def test_options_go_through_the_one_option_path(mqtt):
    with pytest.raises(TypeError, match="unexpected keyword argument 'idle'"):
        mqtt.monitor(idle=3)
    with pytest.raises(ValueError, match="mode="):
        mqtt.monitor(mode="whole")
    with pytest.raises(ValueError, match="end_action"):
        mqtt.monitor(end_action="nope")
    with pytest.raises(ValueError, match="idle_timeout"):
        mqtt.monitor(idle_timeout=-1)
    # A budget given is used: one vertex cannot decide the run.
    m = mqtt.monitor(procedure="term", max_vertices=1, arrival="in-order")
    (r,) = m.push("a", "clt1!begin", 1) + m.close_all()
    assert r.verdict == "Inconclusive" and r.procedure == "term"


def test_positions_on_any_arrival_order_give_the_records_of_events_in_order(mqtt):
    """The default arrival model: an int order key is the event's position in its local trace,
    and an event is held until the positions before it came, so any arrival order (not only
    interleavings that keep each location's order) gives the verdicts of the events in order;
    a position that never comes is an Error naming it; first_position says where they start."""
    runs = runs_of(mqtt, 40, 3)
    events = interleave(runs, random.Random(8))
    in_order = mqtt.monitor(arrival="in-order")
    want = {r.id: r.verdict for r in in_order.push_many(*zip(*events)) + in_order.close_all()}
    shuffled = list(events)
    random.Random(9).shuffle(shuffled)
    mon = mqtt.monitor()
    got = mon.push_many(*zip(*shuffled)) + mon.close_all()
    assert len(got) == len(want) and {r.id: r.verdict for r in got} == want
    naive = mqtt.monitor(arrival="in-order")
    wrong = naive.push_many(*zip(*shuffled)) + naive.close_all()
    assert {r.id: r.verdict for r in wrong} != want
    gap = mqtt.monitor()
    assert gap.push("g", "clt1!begin", 1) == []
    (r,) = gap.close_all()
    assert r.verdict == "Error" and "position 0 of location clt1 never came" in r.error["message"]
    one = mqtt.monitor(first_position=1)
    assert one.push("g", "clt1!begin", 1) == []
    (r,) = one.close_all()
    assert r.verdict != "Error"
    with pytest.raises(ValueError, match="arrival='window' needs reorder_window"):
        mqtt.monitor(arrival="window")
    with pytest.raises(ValueError, match="arrival"):
        mqtt.monitor(arrival="sorted")
