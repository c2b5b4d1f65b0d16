"""Shared fixtures of the Python package's tests.

- ``root``: the repository root; ``fixtures``: its ``fixtures/`` directory.
- ``cli``: the release binary of the command line (``MULTITRACE_BIN``, else
  ``target/release/multitrace``, built with cargo when absent), to compare records with.
- ``data``: the external data sets (``MULTITRACE_DATA``, default ``../shared/data`` from the
  repository root); tests that need them are skipped (and reported so) when absent.
"""

import json
import os
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return ROOT / "fixtures"


@pytest.fixture(scope="session")
def cli() -> Path:
    given = os.environ.get("MULTITRACE_BIN")
    path = Path(given) if given else ROOT / "target" / "release" / "multitrace"
    if not path.exists():
        subprocess.run(
            ["cargo", "build", "--release", "--locked", "--bin", "multitrace"],
            cwd=ROOT,
            check=True,
        )
    return path


@pytest.fixture(scope="session")
def data() -> Path:
    d = Path(os.environ.get("MULTITRACE_DATA", str(ROOT / ".." / "shared" / "data")))
    if not d.is_dir():
        pytest.skip(f"external data sets not found at {d} (set MULTITRACE_DATA)")
    return d


def cli_records(cli: Path, model: Path, inputs: List[Path], *args: str) -> List[Dict]:
    """The records of ``multitrace check --format jsonl``."""
    cmd = [str(cli), "check", str(model), *map(str, inputs), "--format", "jsonl",
           "--no-progress", "--color", "never", *args]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode in (0, 1, 2, 3), run.stderr
    return [json.loads(line) for line in run.stdout.splitlines() if line.strip()]


def strip_time(record: Dict) -> Dict:
    return {k: v for k, v in record.items() if k != "time_us"}
