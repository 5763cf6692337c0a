"""`simulate --engine dask`: the same figures from a dask.distributed cluster as from the pool.

dask runs in a process of its own here: importing `distributed` changes how every exception
pickles (it installs tblib), which other tests of this worker process rely on.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

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
from distributed import LocalCluster
from compiler.cli import main
local = LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None)
with local as cluster:
    arguments = [*sys.argv[1:], "--scheduler", cluster.scheduler_address]
    main(arguments, standalone_mode=False)
"""
"""A LocalCluster of two worker processes on 127.0.0.1, and simulate sent to its scheduler."""


def _clustered(*arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", ON_A_CLUSTER, "simulate", *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


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
