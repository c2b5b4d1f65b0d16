"""The options of the checking entry points: read in one place (``python/src/options.rs``),
bound as Python binds a signature (positions, then names), with the signatures and defaults the
type stub declares."""

import ast
import inspect

import pytest

import multitrace
from conftest import strip_time

BAD = {"clt1": ["clt1!begin"], "brok": ["brok?pub"]}


@pytest.fixture(scope="module")
def mqtt(fixtures):
    return multitrace.compile(fixtures / "seed004-mqtt" / "model.hif")


def stub_signatures(root):
    """``{method: [(name, default or inspect._empty)]}`` of the stub's ``class Model``."""
    tree = ast.parse((root / "python" / "multitrace" / "_native.pyi").read_text())
    model = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model")
    out = {}
    for f in model.body:
        if isinstance(f, ast.FunctionDef) and not f.decorator_list:
            args = f.args.args[1:]  # self
            defaults = [inspect.Parameter.empty] * (len(args) - len(f.args.defaults)) + [
                eval(ast.unparse(d)) for d in f.args.defaults
            ]
            out[f.name] = [(a.arg, d) for a, d in zip(args, defaults)]
    return out


@pytest.mark.parametrize("method", ["check", "check_many", "check_files", "read", "generate", "monitor"])
def test_the_signatures_python_shows_are_the_stubs(root, method):
    want = stub_signatures(root)[method]
    params = list(inspect.signature(getattr(multitrace.Model, method)).parameters.values())[1:]
    assert [p.name for p in params] == [n for n, _ in want]
    for p, (name, default) in zip(params, want):
        assert p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD, name
        assert p.default == default, name


def test_options_by_position_are_the_options_by_name(mqtt):
    by_name = mqtt.check(BAD, mode="complete", procedure="ac", witness=True)
    by_position = mqtt.check(BAD, "complete", "ac", True)
    assert strip_time(by_position.to_dict()) == strip_time(by_name.to_dict())
    assert by_name.procedure == "ac"
    many = [strip_time(r.to_dict()) for r in mqtt.check_many([BAD], 1, "complete", "ac")]
    assert many == [dict(strip_time(by_name.to_dict()), trace="<python>:1", witness=None)]


def test_the_defaults_are_those_the_signature_shows(mqtt):
    """Every option given as its shown default changes nothing (the Rust table of defaults
    and the shown signature agree)."""
    sig = inspect.signature(multitrace.Model.check)
    given = {p.name: p.default for p in list(sig.parameters.values())[2:]
             if p.name not in ("trace", "id")}
    assert given["timeout_ms"] == 10_000 and given["max_diagnosis_vertices"] == 1_000_000
    assert strip_time(mqtt.check(BAD, **given).to_dict()) == strip_time(mqtt.check(BAD).to_dict())
    # A budget given is used: one vertex is not enough to decide.
    assert mqtt.check(BAD, procedure="term", max_vertices=1).verdict == "Inconclusive"


def test_a_wrong_call_is_refused_as_python_refuses_it(mqtt):
    with pytest.raises(TypeError, match="unexpected keyword argument 'moed'"):
        mqtt.check(BAD, moed="complete")
    with pytest.raises(TypeError, match="multiple values for argument 'mode'"):
        mqtt.check(BAD, "complete", mode="prefix")
    with pytest.raises(TypeError, match=r"takes at most 13 positional arguments \(15 given\)"):
        mqtt.check(BAD, *range(14))
    with pytest.raises(TypeError, match="argument 'timeout_ms'"):
        mqtt.check(BAD, timeout_ms="10")
    with pytest.raises(TypeError, match="argument 'witness'"):
        list(mqtt.check_many([BAD], witness="yes"))
    with pytest.raises(OverflowError):
        mqtt.check(BAD, max_vertices=-1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_line_bytes'"):
        mqtt.check_many([BAD], max_line_bytes=10)
    with pytest.raises(TypeError, match="unexpected keyword argument 'errors'"):
        mqtt.check(BAD, errors="raise")


def test_check_files_takes_max_line_bytes(mqtt, tmp_path):
    p = tmp_path / "long.jsonl"
    p.write_text('{"traces": {"clt1": ["clt1!begin"]}, "id": "' + "x" * 200 + '"}\n')
    (r,) = list(mqtt.check_files([p], max_line_bytes=64))
    assert r.verdict == "Error" and "64" in r.explanation
    (r,) = list(mqtt.check_files([p], None, "prefix"))
    assert r.verdict == "WeakPass"
