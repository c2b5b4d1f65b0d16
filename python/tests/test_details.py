"""The details a new user meets first in Python (issue 23, point 25): the digest in both forms,
`generate`'s reason as a Result's, the empty trace's explanation, indexing results, one style for
lists of accepted values, plurals, and plain words in generation errors."""

import re
import subprocess

import pytest

import multitrace
from multitrace import GenerateError

MQTT = "seed004-mqtt/model.hif"


@pytest.fixture(scope="module")
def mqtt(fixtures):
    return multitrace.compile(fixtures / MQTT)


def test_the_digest_is_an_int_and_the_hex_the_command_line_prints(mqtt, fixtures, cli):
    out = subprocess.run([str(cli), "inspect", str(fixtures / MQTT)], capture_output=True,
                         text=True, check=True).stdout
    (printed,) = re.findall(r"^digest: ([0-9a-f]{16})$", out, re.M)
    assert mqtt.digest_hex == printed
    assert int(mqtt.digest_hex, 16) == mqtt.digest
    assert f"digest=0x{printed}" in repr(mqtt)


def test_generate_gives_reason_none_where_a_result_does(mqtt):
    for kind in ("pass", "prefix", "local-error", "inter-error"):
        for item in mqtt.generate(kind, count=10, length=(4, 12), seed=3):
            got = mqtt.check(item, mode=item["mode"])
            assert got.verdict == item["verdict"], item
            if got.reason is None:
                assert item["reason"] is None, item
            else:
                # The `gen` label names the location of a LocalError: `LocalError(brok)`.
                assert item["reason"].startswith(got.reason), item
    assert "-" not in {i["reason"] for i in mqtt.generate("pass", count=5, length=(4, 8))}


def test_an_empty_trace_that_cannot_end_is_said_so(mqtt):
    r = mqtt.check({}, mode="complete")
    assert (r.verdict, r.reason) == ("Fail", "LocalError")
    assert r.local_error["found"] is None and r.local_error["position"] == 1
    loc = r.local_error["location"]
    assert "after action 0" not in r.explanation, r.explanation
    assert r.explanation.startswith(f"{loc}'s trace is empty and cannot end empty: {loc} must start"
                                    " with "), r.explanation
    # A trace that is not empty keeps its position.
    r = mqtt.check({"clt1": ["clt1!begin"]}, mode="complete")
    assert "after action 1" in r.explanation, r.explanation


def test_results_of_files_cannot_be_indexed_and_the_error_says_to_take_a_list(mqtt, fixtures):
    it = mqtt.check_files([fixtures / "seed004-mqtt" / "traces"])
    with pytest.raises(TypeError, match=r"cannot be indexed.*list\(model\.check_files"):
        it[0]
    results = list(it)
    assert results and results[0].verdict in ("Pass", "WeakPass", "Fail", "Inconclusive")


CHOICES = re.compile(r'expected "[^"]+"(, "[^"]+")* or "[^"]+"')


def test_every_list_of_accepted_values_is_written_one_way(mqtt, fixtures):
    wrong = [
        lambda: mqtt.check({}, mode="partial"),
        lambda: mqtt.check({}, procedure="fast"),
        lambda: mqtt.check_many([], errors="ignore"),
        lambda: mqtt.generate("nonsense"),
        lambda: multitrace.compile(fixtures / MQTT, policy="sometimes"),
    ]
    for call in wrong:
        with pytest.raises(ValueError) as e:
            call()
        assert CHOICES.search(str(e.value)), str(e.value)
    with pytest.raises(ValueError) as e:
        mqtt.generate("nonsense")
    assert all(f'"{k}"' in str(e.value) for k in multitrace.GENERATE_KINDS), str(e.value)
    # A list of names in a repr is Python's list.
    assert f"locations={mqtt.locations!r}" in repr(mqtt)


def test_counts_of_one_are_singular(fixtures):
    m = multitrace.compile(fixtures / MQTT, state_cap=1)
    assert m.kind == "term-only"
    assert any("the state cap of 1 state" in n for n in m.notices), m.notices
    assert not any(re.search(r"\b1 states\b", n) for n in m.notices), m.notices
    m = multitrace.compile(fixtures / MQTT, dfa_cap=1)
    assert any(re.search(r"exceeds the cap of 1 state\b", n) for n in m.notices), m.notices
    mqtt = multitrace.compile(fixtures / MQTT)
    with pytest.raises(GenerateError) as e:
        mqtt.generate("local-error", count=50, max_attempts=1)
    assert "after 1 candidate (" in str(e.value), str(e.value)


def test_generation_errors_use_plain_words(mqtt):
    with pytest.raises(GenerateError) as e:
        mqtt.generate("inter-error", count=500, length=(2, 6), max_attempts=2)
    assert "can still be interleaved into a run the model accepts" in str(e.value), str(e.value)
    raised = 0
    for kind in multitrace.GENERATE_KINDS:
        try:
            mqtt.generate(kind, count=500, length=(2, 6), max_attempts=2)
        except GenerateError as e:
            raised += 1
            assert "Inter(" not in str(e) and "μ" not in str(e), str(e)
    assert raised == len(multitrace.GENERATE_KINDS)
