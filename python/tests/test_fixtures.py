"""Every fixture's verdicts through Python equal the command line's (and expected.txt), in
both modes, whether the multitraces are given as files or read into dicts first; and the same
on the external data sets when present."""

import os
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

import multitrace
from conftest import ROOT, cli_records, strip_time


def fixture_dirs() -> List[Path]:
    return sorted(p.parent for p in (ROOT / "fixtures").glob("*/expected.txt"))


def model_of(d: Path) -> Path:
    for name in ("model.hif", "model.timbuk"):
        if (d / name).exists():
            return d / name
    raise AssertionError(f"no model in {d}")


def expected(d: Path) -> Dict[str, Tuple[str, str]]:
    rows = {}
    for line in (d / "expected.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, complete, prefix = line.split()
            rows[name] = (complete, prefix)
    return rows


@pytest.mark.parametrize("d", fixture_dirs(), ids=lambda d: d.name)
@pytest.mark.parametrize("mode", ["complete", "prefix"])
def test_fixture_verdicts_equal_the_cli(d, mode, cli):
    model = multitrace.compile(model_of(d))
    traces = d / "traces"
    want = cli_records(cli, model_of(d), [traces], "--mode", mode)
    files = [r.to_dict() for r in model.check_files([traces], mode=mode)]
    assert [strip_time(r) for r in files] == [strip_time(r) for r in want]
    # Read into dicts, then checked one by one and in parallel.
    items = [item for f in sorted((traces).iterdir()) for item in model.read(f)]
    by_name = {i["trace"]: i for i in items}
    one = [model.check(by_name[r["trace"]], mode=mode).to_dict() for r in want]
    assert [strip_time(r) for r in one] == [strip_time(r) for r in want]
    many = [r.to_dict() for r in model.check_many(
        (by_name[r["trace"]] for r in want), mode=mode, jobs=2)]
    assert [strip_time(r) for r in many] == [strip_time(r) for r in want]
    rows = expected(d)
    column = 0 if mode == "complete" else 1
    for r in files:
        name = Path(r["trace"]).name
        if name in rows:
            assert r["verdict"] == rows[name][column], (name, r)


def test_every_fixture_has_expected_rows():
    assert len(fixture_dirs()) >= 9
    for d in fixture_dirs():
        assert expected(d), d


def external_sets(data: Path) -> List[Tuple[Path, List[Path]]]:
    """Models of the HIBOU sample with a few multitraces of each category."""
    gen = data / "hibou-lfrem-sample" / "gen_ints"
    if not gen.is_dir():
        pytest.skip(f"{gen} not found")
    count = int(os.environ.get("MULTITRACE_DATA_SAMPLE", "25"))
    sets = []
    for hif in sorted(gen.glob("i*.hif"))[:4]:
        files: List[Path] = []
        for sub in sorted(gen.glob(hif.stem + "_*")):
            files += sorted(sub.glob("*.htf"))[:count]
        sets.append((hif, files))
    return sets


@pytest.mark.parametrize("mode", ["prefix", "complete"])
def test_external_verdicts_equal_the_cli(data, cli, mode):
    for hif, files in external_sets(data):
        want = cli_records(cli, hif, files, "--mode", mode, "--max-vertices", "200000")
        model = multitrace.compile(hif)
        got = [r.to_dict() for r in model.check_files(files, mode=mode, max_vertices=200000)]
        key = lambda r: (r["trace"], r["verdict"], r["reason"], r["procedure"])
        assert [key(r) for r in got] == [key(r) for r in want], hif
        items = [i for f in files for i in model.read(f)]
        many = [r.to_dict() for r in model.check_many(items, mode=mode, max_vertices=200000)]
        assert [key(r) for r in many] == [key(r) for r in want], hif
