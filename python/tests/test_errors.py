"""Every class of bad input raises its typed exception, with the position when there is one,
and never crashes the interpreter."""

import pytest

import multitrace
from multitrace import (CheckError, CompileError, GenerateError, LoadError, MultitraceError,
                        ParseError, ReadError)


@pytest.fixture(scope="module")
def mqtt(fixtures):
    return multitrace.compile(fixtures / "seed004-mqtt" / "model.hif")


def test_hierarchy():
    for e in (ParseError, ReadError, LoadError, CompileError, CheckError, GenerateError):
        assert issubclass(e, MultitraceError)
    assert issubclass(MultitraceError, Exception)


@pytest.mark.parametrize("name, text, line, column, words", [
    ("unknown-lifeline.hif", "seq(a -- m -> b,\n  c -- m -> z)", 2, 13, "unknown lifeline"),
    ("unsupported.hif", "sync(a -- m -> b)", 1, 1, "unsupported"),
    ("truncated.hif", "seq(a -- m -> b,", 1, 17, ""),
    ("invalid-utf8.hif", b"seq(a -- m -> b)\n\xff", 2, 1, "UTF-8"),
    ("empty.hif", "", 1, 1, "empty file"),
    ("binary.hif", b"a\x00b", 1, 2, "NUL"),
])
def test_bad_models_raise_parse_errors_with_positions(tmp_path, name, text, line, column,
                                                       words):
    (tmp_path / "signature.hsf").write_text("@lifeline{a;b;c}@message{m}")
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ParseError) as e:
        multitrace.compile(path)
    assert e.value.file == str(path)
    assert (e.value.line, e.value.column) == (line, column), str(e.value)
    assert words in str(e.value)
    assert str(e.value).startswith(f"{path}:{line}:{column}: ")


def test_bad_signature(tmp_path):
    (tmp_path / "signature.hsf").write_text("@lifeline{a;a}")
    (tmp_path / "m.hif").write_text("a -- m -> b")
    with pytest.raises(ParseError) as e:
        multitrace.compile(tmp_path / "m.hif")
    assert e.value.file == str(tmp_path / "signature.hsf")
    assert (e.value.line, e.value.column) == (1, 13)


def test_missing_files_raise_read_errors(tmp_path, mqtt):
    with pytest.raises(ReadError) as e:
        multitrace.compile(tmp_path / "missing.hif")
    assert e.value.file == str(tmp_path / "missing.hif")
    with pytest.raises(ReadError):
        mqtt.read(tmp_path / "missing.htf")
    with pytest.raises(ReadError):
        list(mqtt.check_files([tmp_path / "missing-dir"]))


def test_unknown_model_kind(tmp_path):
    (tmp_path / "m.txt").write_text("x")
    with pytest.raises(LoadError, match="unknown model kind"):
        multitrace.compile(tmp_path / "m.txt")


def test_bad_compiled_models_raise_load_errors(tmp_path, mqtt):
    with pytest.raises(LoadError):
        multitrace.load(b"not a model")
    data = mqtt.to_bytes()
    with pytest.raises(LoadError):
        multitrace.load(data[: len(data) // 2])
    damaged = bytearray(data)
    damaged[len(damaged) // 2] ^= 0xFF
    with pytest.raises(LoadError):
        multitrace.load(bytes(damaged))
    path = tmp_path / "bad.mtm"
    path.write_bytes(b"garbage" * 10)
    with pytest.raises(LoadError) as e:
        multitrace.load(path)
    assert e.value.file == str(path)
    with pytest.raises(TypeError):
        multitrace.load(12)
    with pytest.raises(LoadError, match="multitrace.load"):
        multitrace.compile(path)


def test_stale_compiled_models_are_refused(tmp_path):
    (tmp_path / "signature.hsf").write_text("@lifeline{a;b}@message{m}")
    hif = tmp_path / "m.hif"
    hif.write_text("a -- m -> b")
    mtm = tmp_path / "m.mtm"
    multitrace.compile(hif).save(mtm)
    assert multitrace.load(mtm).kind == "automata"
    hif.write_text("b -- m -> a")
    with pytest.raises(LoadError, match="stale"):
        multitrace.load(mtm)
    assert multitrace.load(mtm, allow_stale=True).locations == ["a", "b"]


def test_bad_compile_options(fixtures):
    hif = fixtures / "seed004-mqtt" / "model.hif"
    with pytest.raises(CompileError):
        multitrace.compile(hif, locations="clt1;nobody")
    with pytest.raises(ValueError):
        multitrace.compile(hif, locations=";;")
    with pytest.raises(ValueError):
        multitrace.compile(hif, policy="sometimes")


@pytest.mark.parametrize("name, text, line, column", [
    ("bad.htf", "{ [clt1] clt1!begin;\n [brok] brok?nothing }", 2, 14),
    ("bad.mtf", "[clt1] clt1!begin\n[nowhere] x", 2, 2),
    ("bad.jsonl", '{"traces": {"clt1": []}}\n{"traces": {"zz": []}}', 2, 13),
    ("notjson.jsonl", '{"traces": ', 1, 10),
    ("utf8.jsonl", b'{"traces": {}}\n{"id": "\xff"}', 2, 9),
])
def test_bad_multitrace_files_raise_parse_errors(tmp_path, mqtt, name, text, line, column):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ParseError) as e:
        mqtt.read(path)
    assert e.value.file == str(path)
    assert e.value.line == line, str(e.value)
    assert e.value.column == column, str(e.value)
    # check_files gives an Error record in its place, or raises with errors="raise".
    records = list(mqtt.check_files([path]))
    assert records[-1].verdict == "Error"
    assert records[-1].error["line"] == line
    with pytest.raises(ParseError):
        list(mqtt.check_files([path], errors="raise"))


def test_bad_in_memory_multitraces(mqtt):
    with pytest.raises(CheckError, match="unknown action `clt1!nope` at position 2"):
        mqtt.check({"clt1": ["clt1!begin", "clt1!nope"]})
    with pytest.raises(CheckError, match="belongs to location brok"):
        mqtt.check({"clt1": ["brok?begin"]})
    with pytest.raises(CheckError, match="unknown location `nowhere`"):
        mqtt.check({"nowhere": []})
    with pytest.raises(TypeError, match="not a str"):
        mqtt.check({"clt1": "clt1!begin"})
    with pytest.raises(TypeError):
        mqtt.check({"clt1": [1, 2]})
    with pytest.raises(TypeError):
        mqtt.check(["clt1"])
    # In a stream: an Error record in its place, or an exception with errors="raise"; a
    # malformed item raises after the items before it.
    out = list(mqtt.check_many([{"clt1": []}, {"nowhere": []}, {"clt1": []}]))
    assert [r.verdict for r in out] == ["WeakPass", "Error", "WeakPass"]
    assert "unknown location" in out[1].error["message"]
    with pytest.raises(CheckError):
        list(mqtt.check_many([{"clt1": []}, {"nowhere": []}], errors="raise"))
    it = mqtt.check_many([{"clt1": []}, {"clt1": 5}, {"clt1": []}])
    assert next(it).verdict == "WeakPass"
    with pytest.raises(TypeError, match="item 2"):
        next(it)


def test_a_procedure_that_cannot_run_is_a_check_error(fixtures):
    term_only = multitrace.load(fixtures / "golden" / "loopP.v2.mtm")
    assert term_only.kind == "term-only"
    with pytest.raises(CheckError, match="term-only"):
        list(term_only.check_many([{}], procedure="as"))
    with pytest.raises(CheckError, match="term-only"):
        term_only.check({}, procedure="ac")


def test_generation_that_cannot_succeed(fixtures):
    term_only = multitrace.load(fixtures / "golden" / "loopP.v2.mtm")
    with pytest.raises(GenerateError):
        term_only.generate("pass", count=3)


def test_an_exception_in_the_iterable_is_raised_in_order(mqtt):
    def items():
        yield {"clt1": []}
        yield {"clt1": []}
        raise RuntimeError("source failed")

    it = mqtt.check_many(items())
    assert [next(it).verdict, next(it).verdict] == ["WeakPass", "WeakPass"]
    with pytest.raises(RuntimeError, match="source failed"):
        next(it)
