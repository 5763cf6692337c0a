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
from dataclasses import dataclass
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
import contextlib, io, json, sys
from distributed import LocalCluster
from compiler.cli import main
answers = []
local = LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None)
with local as cluster:
    for arguments in json.loads(sys.argv[1]):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            try:
                code = main([*arguments, "--scheduler", cluster.scheduler_address],
                            standalone_mode=False)
            except SystemExit as exit:
                code = exit.code
        answers.append([code or 0, printed.getvalue()])
print(json.dumps(answers))
"""
"""A LocalCluster of two worker processes on 127.0.0.1, and each command sent to its scheduler
in turn: what each printed, and its exit code."""


BANDS = """balance:
  - band: "won 5..60%"
    games: 60
  - band: "phases.game.rounds.mean 2..30"
    games: 60
"""


def _small_bands(folder: Path, used_by: str) -> Path:
    pack = Path(shutil.copytree(ROOT / "content" / "cool-name", folder / "cool-name"))
    manifest = pack / "pack.yaml"
    text = manifest.read_text()
    # A worker keeps each pack it compiled, by its files: the note keeps the test of balance
    # from handing tune a base pack its workers compiled already.
    manifest.write_text(f"{text[: text.index('balance:')]}# {used_by}\n{BANDS}")
    return pack


TUNED = (
    "--target", "won 30..45%", "--vary", "Bandit Lookout", "--policy", "random",
    "--games", "40", "--first-games", "20", "--max-edits", "1", "--json",
)  # fmt: skip


@dataclass(frozen=True)
class Clustered:
    """The packs played, and what each command said when sent to one cluster."""

    judged: Path
    tuned: Path
    answers: dict[str, tuple[int, str]]


@pytest.fixture(scope="module")
def clustered(tmp_path_factory: pytest.TempPathFactory) -> Clustered:
    """simulate, test --balance and tune played on one cluster: starting one (a process, two
    workers, each importing dask and pillbox) costs more than the sweeps the tests compare."""
    judged = _small_bands(tmp_path_factory.mktemp("judged"), "judged")
    tuned = _small_bands(tmp_path_factory.mktemp("tuned"), "tuned")
    commands = {
        "simulate": ["simulate", str(ITEMS_ONLY), *SWEEP, "--engine", "dask"],
        "balance": ["test", str(judged), "--balance", "--format", "json", "--engine", "dask"],
        "tune": ["tune", str(tuned), *TUNED, "--engine", "dask"],
    }
    done = subprocess.run(
        [sys.executable, "-c", ON_A_CLUSTER, json.dumps(list(commands.values()))],
        capture_output=True,
        text=True,
        cwd=ROOT,
        # Set up before any test's private cache: the cluster is given one of its own.
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "PILLBOX_CACHE_DIR": str(tmp_path_factory.mktemp("cache")),
        },
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    answers = json.loads(done.stdout.splitlines()[-1])
    return Clustered(
        judged, tuned, {name: tuple(answer) for name, answer in zip(commands, answers, strict=True)}
    )


def test_balance_bands_judged_on_a_cluster_give_the_pool_s_verdicts(clustered: Clustered) -> None:
    code, pooled = run(
        "test", "--balance", str(clustered.judged), "--format", "json", "--workers", "2"
    )
    assert code == 0, pooled
    assert clustered.answers["balance"][0] == 0, clustered.answers["balance"]
    assert json.loads(clustered.answers["balance"][1]) == json.loads(pooled[pooled.index("{") :])


def test_tune_plays_its_candidates_on_a_cluster_with_the_pool_s_answer(
    clustered: Clustered,
) -> None:
    code, pooled = run("tune", str(clustered.tuned), *TUNED)
    assert code in (0, 1), pooled
    assert clustered.answers["tune"][0] == code, clustered.answers["tune"]
    assert json.loads(clustered.answers["tune"][1]) == json.loads(pooled[pooled.index("{") :])


def test_a_cluster_gives_the_figures_the_pool_gives(clustered: Clustered) -> None:
    code, pooled = run("simulate", str(ITEMS_ONLY), *SWEEP, "--workers", "2")
    assert code == 0, pooled
    code, output = clustered.answers["simulate"]
    assert code == 0, output
    assert json.loads(output) == json.loads(pooled)
    assert json.loads(output)["games"] == 40


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
