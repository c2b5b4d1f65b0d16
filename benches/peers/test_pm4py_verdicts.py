"""pm4py's exact alignments and `multitrace check` give the same verdicts on the same runs.

20 generated runs per model (10 `pass`, 10 `local-error`, 20-60 actions, one location), written
as XES by `multitrace gen`, the model's NFA as PNML by `multitrace draw --pnml`: a run has an
alignment of cost 0 (apart from silent moves) exactly when `check --mode complete` says Pass.
This tests the PNML construction and the XES writer against an independent implementation of
the language (pm4py's), on Pass and on Fail. Run by tests/run-all.sh through
benches/peers/test.sh (which installs pm4py) and by benches/peers/run.sh; skipped when pm4py is
not installed; the NFA12 case is skipped when ../shared/data is absent.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pm4py_compare as cmp  # noqa: E402

pm4py = pytest.importorskip("pm4py")
from pm4py.algo.conformance.alignments.petri_net import algorithm as alignments  # noqa: E402


def binary():
    b = os.environ.get("MULTITRACE_BIN")
    if b:
        return Path(b)
    for kind in ("release", "debug"):
        p = cmp.ROOT / "target" / kind / "multitrace"
        if p.exists():
            return p
    pytest.skip("no multitrace binary: build it first (cargo build --release)")


def cases():
    data = Path(os.environ.get("MULTITRACE_DATA", cmp.ROOT.parent / "shared/data"))
    nfa12 = data / "automatark/NFA/Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_12.timbuk"
    letters = ",".join(f"a{i}" for i in range(19))
    return [
        pytest.param(cmp.ROOT / "fixtures/seed004-mqtt/model.hif", "clt1,brok,clt2", id="mqtt"),
        pytest.param(nfa12, letters, id="nfa12",
                     marks=pytest.mark.skipif(not nfa12.exists(),
                                              reason=f"{nfa12} is absent")),
    ]


@pytest.mark.parametrize("model,locations", cases())
def test_alignments_agree_with_check(tmp_path, model, locations):
    b = binary()
    locs = ["--locations", locations]
    files = []
    for kind in ("pass", "local-error"):
        subprocess.run([b, "gen", model, *locs, "--kind", kind, "--count", "10",
                        "--length", "20..60", "--seed", "3", "--format", "xes",
                        "-o", tmp_path / kind], check=True, capture_output=True)
        files.append(tmp_path / kind / f"{kind}.xes")
    mtm = tmp_path / "model.mtm"
    subprocess.run([b, "compile", model, *locs, "-o", mtm], check=True, capture_output=True)
    verdicts, _, _ = cmp.check(b, mtm, files, 1)
    subprocess.run([b, "draw", model, *locs, "--pnml", "-o", tmp_path / "net.pnml"],
                   check=True, capture_output=True)
    net, im, fm = pm4py.read_pnml(str(tmp_path / "net.pnml"))
    aligned = {}
    for f in files:
        log = pm4py.read_xes(str(f), return_legacy_log_object=True, show_progress_bar=False)
        # Dijkstra (less memory) is one of pm4py's exact variants, and fast on these nets.
        res = alignments.apply(log, net, im, fm, parameters=cmp.QUIET,
                               variant=alignments.Variants.VERSION_DIJKSTRA_LESS_MEMORY)
        for tr, a in zip(log, res):
            aligned[tr.attributes["concept:name"]] = cmp.alignment_fits(a)
    assert len(aligned) == 20 and set(aligned) == set(verdicts)
    # Both verdicts occur, so agreement is not vacuous.
    assert set(verdicts.values()) == {"Pass", "Fail"}
    assert {c: v == "Pass" for c, v in verdicts.items()} == aligned
