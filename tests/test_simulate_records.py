"""`simulate --include-records DIR`: the games people played (their records) are replayed to
their end and counted beside the simulated games, named apart; a record of another version of
the pack, of other players or phase, or that no longer replays is refused, naming its file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import main
from compiler.play.game import GameRequest, play_whole, record_of, settle, whole_rules
from compiler.play.records import Record
from tests.test_table import COOL, pack_of

SIMULATE = [
    "simulate",
    str(COOL),
    "--games",
    "3",
    "--workers",
    "1",
    "--seed",
    "1",
    "--players",
    "2",
]


def recorded(seed: int, players: int = 2) -> tuple[Record, str | None]:
    """The record of a game of Cool Name by two random seats, and how it ended."""
    pack = pack_of(COOL)
    seats = ("random",) * players
    table = settle(whole_rules(pack), GameRequest(str(COOL), seed, seats=seats))
    played = play_whole(pack, table, seed)
    return record_of(pack, str(COOL), played, seed), table.whole.outcome(played.game).result


@pytest.fixture
def folder(tmp_path: Path) -> tuple[Path, list[str | None]]:
    results = []
    for seed in (3, 4, 5):
        record, result = recorded(seed)
        (tmp_path / f"game-{seed}.json").write_text(record.to_text(), encoding="utf-8")
        results.append(result)
    (tmp_path / "notes.txt").write_text("not a record", encoding="utf-8")
    return tmp_path, results


def test_played_records_are_counted_apart(folder: tuple[Path, list[str | None]]) -> None:
    where, results = folder
    result = CliRunner().invoke(main, [*SIMULATE, "--include-records", str(where), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    records = summary["played records"]
    assert summary["games"] == 3  # the simulated games, alone
    assert records["games"] == records["played"] == 3 and records["folder"] == str(where)
    assert records["policies"] == ["random", "random"]
    counted = {r: v["count"] for r, v in records["results"].items()}
    assert counted == {r: results.count(r) for r in set(results) if r is not None}
    text = CliRunner().invoke(main, [*SIMULATE, "--include-records", str(where)]).output
    assert f"played records in {where}: 3 games of 2 players" in text
    assert "replayed to their end, not simulated" in text


def test_a_record_of_another_pack_is_refused_naming_its_file(
    folder: tuple[Path, list[str | None]],
) -> None:
    where, _ = folder
    file = where / "game-4.json"
    data = file.read_text(encoding="utf-8")
    digest = json.loads(data)["pack_digest"]
    file.write_text(data.replace(digest, "0" * len(digest)), encoding="utf-8")
    result = CliRunner().invoke(main, [*SIMULATE, "--include-records", str(where)])
    assert result.exit_code == 1
    assert f"{file}:6:18: error[E0469]" in result.output  # at its pack_digest
    assert "another version of the pack" in result.output
    assert "played records" not in result.output and "Traceback" not in result.output


def test_records_that_do_not_fit_or_no_longer_replay_are_refused(tmp_path: Path) -> None:
    runner = CliRunner()
    record, _ = recorded(3, players=3)
    file = tmp_path / "three.json"
    file.write_text(record.to_text(), encoding="utf-8")
    result = runner.invoke(main, [*SIMULATE, "--include-records", str(tmp_path)])
    assert result.exit_code == 1 and "E0469" in result.output and str(file) in result.output
    assert "--players 3" in result.output
    two, _ = recorded(3)
    file.write_text(two.to_text().replace(two.final, "f" * len(two.final)), encoding="utf-8")
    result = runner.invoke(main, [*SIMULATE, "--include-records", str(tmp_path)])
    assert result.exit_code == 1 and "E0467" in result.output and str(file) in result.output
    file.write_text("{", encoding="utf-8")
    result = runner.invoke(main, [*SIMULATE, "--include-records", str(tmp_path)])
    assert result.exit_code == 1 and "E0466" in result.output and str(file) in result.output


def test_the_folder_is_checked_before_any_game(tmp_path: Path) -> None:
    runner = CliRunner()
    for where, said in ((tmp_path / "none", "not a folder"), (tmp_path, "no record")):
        result = runner.invoke(main, [*SIMULATE, "--include-records", str(where)])
        assert result.exit_code == 2 and said in result.output, result.output
    result = runner.invoke(main, [*SIMULATE, "--ladder", "--include-records", str(tmp_path)])
    assert result.exit_code == 2 and "not a --ladder" in result.output
