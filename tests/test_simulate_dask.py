"""`simulate --engine dask`: the same figures from a dask.distributed cluster as from the pool."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.conftest import TESTS
from tests.helpers import run

distributed = pytest.importorskip("distributed")

ITEMS_ONLY = TESTS / "data" / "items-only"
SWEEP = ("--games", "40", "--players", "2", "--seed", "11", "--json")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A LocalCluster of two worker processes on 127.0.0.1: its scheduler's address."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as local:
        yield local.scheduler_address


def test_a_cluster_gives_the_figures_the_pool_gives(cluster: str) -> None:
    code, pooled = run("simulate", str(ITEMS_ONLY), *SWEEP, "--workers", "2")
    assert code == 0, pooled
    code, clustered = run(
        "simulate", str(ITEMS_ONLY), *SWEEP, "--engine", "dask", "--scheduler", cluster
    )
    assert code == 0, clustered
    assert json.loads(clustered) == json.loads(pooled)
    assert json.loads(clustered)["games"] == 40


def test_a_scheduler_without_the_dask_engine_is_a_usage_error() -> None:
    code, output = run("simulate", str(ITEMS_ONLY), *SWEEP, "--scheduler", "tcp://127.0.0.1:1")
    assert code == 2 and "--scheduler names a dask cluster: add --engine dask" in output
