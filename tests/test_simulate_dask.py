"""`simulate --engine dask`: the same figures from a dask.distributed cluster as from the pool.

dask runs in a process of its own here: importing `distributed` changes how every exception
pickles (it installs tblib), which other tests of this worker process rely on.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, TESTS
from tests.helpers import run

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None, reason="needs pillbox[dask]"
)

ITEMS_ONLY = TESTS / "data" / "items-only"
SWEEP = ("--games", "40", "--players", "2", "--seed", "11", "--json")

ON_A_CLUSTER = """
import sys
from pathlib import Path
from distributed import LocalCluster
from compiler.cli import main
local = LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None)
with local as cluster:
    arguments = [*sys.argv[1:], "--scheduler", cluster.scheduler_address]
    sys.exit(main(arguments, standalone_mode=False))
"""
"""A LocalCluster of two worker processes on 127.0.0.1, and simulate sent to its scheduler."""


def _clustered(*arguments: str, command: str = "simulate", codes: tuple[int, ...] = (0,)) -> str:
    done = subprocess.run(
        [sys.executable, "-c", ON_A_CLUSTER, command, *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=240,
        check=False,
    )
    assert done.returncode in codes, done.stdout + done.stderr
    return done.stdout


BANDS = """balance:
  - band: "won 5..60%"
    games: 60
  - band: "phases.game.rounds.mean 2..30"
    games: 60
"""


def _small_bands(tmp_path: Path) -> Path:
    pack = Path(shutil.copytree(ROOT / "content" / "cool-name", tmp_path / "cool-name"))
    manifest = pack / "pack.yaml"
    text = manifest.read_text()
    manifest.write_text(text[: text.index("balance:")] + BANDS)
    return pack


def test_balance_bands_judged_on_a_cluster_give_the_pool_s_verdicts(tmp_path: Path) -> None:
    pack = _small_bands(tmp_path)
    code, pooled = run("test", "--balance", str(pack), "--format", "json", "--workers", "2")
    assert code == 0, pooled
    clustered = _clustered(
        str(pack), "--balance", "--format", "json", "--engine", "dask", command="test"
    )
    assert json.loads(clustered) == json.loads(pooled[pooled.index("{") :])


def test_tune_plays_its_candidates_on_a_cluster_with_the_pool_s_answer(tmp_path: Path) -> None:
    pack = _small_bands(tmp_path)
    asked = (
        str(pack), "--target", "won 30..45%", "--vary", "Bandit Lookout", "--policy", "random",
        "--games", "40", "--first-games", "20", "--max-edits", "1", "--json",
    )  # fmt: skip
    code, pooled = run("tune", *asked)
    assert code in (0, 1), pooled
    clustered = _clustered(*asked, "--engine", "dask", command="tune", codes=(code,))
    assert json.loads(clustered) == json.loads(pooled[pooled.index("{") :])


def test_a_cluster_gives_the_figures_the_pool_gives() -> None:
    code, pooled = run("simulate", str(ITEMS_ONLY), *SWEEP, "--workers", "2")
    assert code == 0, pooled
    clustered = _clustered(str(ITEMS_ONLY), *SWEEP, "--engine", "dask")
    assert json.loads(clustered) == json.loads(pooled)
    assert json.loads(clustered)["games"] == 40


def test_a_scheduler_without_the_dask_engine_is_a_usage_error() -> None:
    code, output = run("simulate", str(ITEMS_ONLY), *SWEEP, "--scheduler", "tcp://127.0.0.1:1")
    assert code == 2 and "--scheduler names a dask cluster: add --engine dask" in output


@pytest.mark.parametrize("address", ["tcp://[::1", "tcp://host:99999", "tcp://:8786"])
def test_a_malformed_scheduler_address_is_a_usage_error(address: str) -> None:
    # 'tcp://[::1' reached dask's client, whose ValueError ended pillbox with exit 3.
    code, output = run(
        "simulate", str(ITEMS_ONLY), *SWEEP, "--engine", "dask", "--scheduler", address
    )
    assert code == 2 and "is not an address" in output, output
