"""Whole games at the command line: decisions asked of the seat that answers them, `play
--game`, records and `replay`, the many-game test and hot-seat play."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.build import CompiledPack
from compiler.cli import main
from compiler.errors import UsageError
from compiler.play.game import GameRequest, play_whole, record_of, settle, whole_rules
from compiler.play.records import RecordError, parse_record, read_record
from compiler.playing import Emit, load_compiled
from compiler.render import Style
from runtime.decisions import Decision
from runtime.decisions import answer_index as picked_answer
from runtime.game import Game
from runtime.games.coma_ward_combat import attack
from runtime.games.coma_ward_game import trade
from runtime.policies import Seat, policy_named, seat_policies
from runtime.whole import game_seed
from tests.conftest import ROOT
from tests.helpers import coma_ward_whole, compiled, make_pack, run
from tests.test_items import ITEMS
from tests.test_worked_examples import _compile, give, new_game

PACK = ROOT / "content" / "coma-ward"


@pytest.fixture
def items(tmp_path: Path) -> CompiledPack:
    return _compile(make_pack(tmp_path / "items", cards=ITEMS))


class Scripted:
    """A seat's answers in order, by title; every question asked is written down with the
    seat that was asked it."""

    def __init__(self, asked: list[tuple[int, str]], *answers: str) -> None:
        self.asked = asked
        self.answers = list(answers)

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """The next answer of this seat."""
        self.asked.append((seat.index, decision.kind))
        return decision.choices.index(self.answers.pop(0))


def test_a_defender_answers_its_own_questions_on_the_attackers_turn(
    items: CompiledPack,
) -> None:
    """The dodge or counter-attack, the defender's weapons and the clothing of whoever is hurt
    are each answered by that character's seat, not by the seat whose turn it is."""
    winning, losing = [5, 6, 5, 1, 2, 3, 3], [1, 2, 3, 5, 2]  # 3 successes of 7; 1 of 5
    game, _, _ = new_game(items, [*winning, *losing, 1, 2, 3, *winning])
    bruce, jane = game.state.players
    give(game, bruce, "Broom", "Scarf")
    give(game, jane, "Broom", "Padded Coat")
    asked: list[tuple[int, str]] = []
    seat_policies(
        game,
        [
            Scripted(asked, "Broom", "unarmed", "yes"),
            Scripted(asked, "dodge", "yes", "counter-attack", "Broom"),
        ],
    )
    first = attack(game, bruce, jane)  # Bruce's broom beats Jane's dodge; her coat saves 2
    second = attack(game, bruce, jane)  # unarmed, Bruce loses to her broom; his scarf saves 1
    assert (first.winner, first.damaged, first.damage) == ("attacker", "Jane", 1)
    assert (second.winner, second.damaged, second.damage) == ("defender", "Bruce", 2)
    assert asked == [
        (0, "weapons"),
        (1, "defence"),
        (1, "yes-no"),
        (0, "weapons"),
        (1, "defence"),
        (1, "weapons"),
        (0, "yes-no"),
    ]


def test_the_partner_of_a_trade_says_whether_they_will(items: CompiledPack) -> None:
    game, _, _ = new_game(items, [])
    bruce, jane = game.state.players
    give(game, bruce, "Scarf")
    asked: list[tuple[int, str]] = []
    seat_policies(game, [Scripted(asked, "Jane", "Scarf", "done"), Scripted(asked, "no")])
    assert trade(game, bruce) == set()
    assert [item.title for item in bruce.items] == ["Scarf"] and not jane.items
    assert asked == [(0, "trade"), (0, "item"), (0, "item"), (1, "yes-no")]


# -- play --game --------------------------------------------------------------------------

_COMPILED: dict[Path, CompiledPack] = {}


def _load_once(
    path: Path, ruleset: str | None, emit: Emit, style: Style, as_json: bool = False
) -> CompiledPack | None:
    """`load_compiled`, compiling each pack once for the whole module: a compile costs a
    second, and these tests play the same pack many times."""
    key = path.resolve()
    if key not in _COMPILED:
        found = load_compiled(path, ruleset, emit, style, as_json)
        if found is None:
            return None
        _COMPILED[key] = found
    return _COMPILED[key]


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("compiler.play.game.load_compiled", _load_once)


def _ward() -> CompiledPack:
    """The Coma Ward pack, compiled once for the module."""
    if PACK.resolve() not in _COMPILED:
        _COMPILED[PACK.resolve()] = compiled(PACK)
    return _COMPILED[PACK.resolve()]


@pytest.fixture
def ward() -> CompiledPack:
    return _ward()


def test_play_game_prints_the_log_move_by_move_then_the_outcome(quick: None) -> None:
    code, output = run("play", str(PACK), "--game", "--players", "2", "--seed", "5")
    assert code == 0, output
    lines = output.splitlines()
    assert lines[0].startswith("player 1 takes neurosis")
    assert "round 1 begins" in lines and "player 2's turn begins" in lines
    assert any(line.endswith(" narrates") for line in lines)  # the narrator's reading
    assert any(line.startswith("a free action, or on: ") for line in lines)  # each move
    assert lines[-2].startswith("outcome after the end: ")
    assert lines[-1] == (
        f"(seed 5: pillbox play {PACK} --game --players 2 --seed 5 --policy random "
        "--until end plays it again)"
    )


def test_the_seed_of_a_sweeps_game_plays_that_game_again(quick: None, ward: CompiledPack) -> None:
    """`simulate` seeds game i with game_seed(S, i) and policies by name: `play --game --seed`
    with that seed gives the same game, move by move."""
    seed = game_seed(11, 3)
    game = coma_ward_whole().new_game(ward.rules, ward.cards, 2, seed)
    seat_policies(game, [policy_named("bold")] * 2)
    coma_ward_whole().play(game, "end")
    code, output = run(
        "play",
        str(PACK),
        "--game",
        "--players",
        "2",
        "--seed",
        str(seed),
        "--policy",
        "bold",
        "--json",
    )
    assert code == 0, output
    played = json.loads(output)
    assert played["log"] == game.log.to_json()
    assert played["outcome"]["labels"] == dict(coma_ward_whole().outcome(game).labels)
    assert played["seats"] == ["bold"] * 2 and played["until"] == "end"
    assert played["error"] is None and played["moves"] > 0


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (GameRequest("p", 0, players=7), "--players 7: this game is played by 2 to 6"),
        (GameRequest("p", 0, players=3, seats=["bold"] * 2), "names 2 seats for 3 players"),
        (GameRequest("p", 0, seats=["bold", "sly"]), "unknown seat 'sly': a seat is one of"),
        (GameRequest("p", 0, until="epilogue"), "--until epilogue: this game's phases are"),
        (GameRequest("p", 0, policy="bold", seats=["bold"]), "give one policy for all, or"),
        (GameRequest("p", 0, seats=["human"] * 2, as_json=True), "--json plays no human"),
    ],
)
def test_seats_and_phases_that_do_not_fit_are_usage_errors(
    request_: GameRequest, message: str
) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        settle(coma_ward_whole(), request_)


def test_the_seats_default_to_the_fewest_random_or_human_at_a_terminal() -> None:
    table = settle(coma_ward_whole(), GameRequest("p", 0))
    assert (table.players, table.seats, table.until) == (2, ("random", "random"), "end")
    assert settle(coma_ward_whole(), GameRequest("p", 0, interactive=True)).seats == (
        "human",
        "human",
    )
    assert (
        settle(coma_ward_whole(), GameRequest("p", 0, seats=["bold", "odds", "human"])).players == 3
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "The Coat"], "--game plays a whole game; it takes no card ('The Coat')"),
        (["--players", "3"], "name the card to play, or give --game"),
        (["The Coat", "--seats", "bold"], "--seats is for a whole game: add --game"),
        (["--game", "--choose", "yes"], "--choose is for playing a card; --game plays a whole"),
    ],
)
def test_play_takes_a_card_or_a_whole_game(args: list[str], message: str) -> None:
    code, output = run("play", str(PACK), *args)
    assert code == 2 and message in output


def test_a_game_that_cannot_be_played_whole_is_a_usage_error(ward: CompiledPack) -> None:
    cards_only = replace(ward, whole=None, rules=replace(ward.rules, game="base"))
    with pytest.raises(UsageError) as raised:
        whole_rules(cards_only)
    assert str(raised.value) == (
        "--game: the game 'base' can play single cards only, not whole games"
    )


# -- --record and replay --------------------------------------------------------------------


def test_a_recorded_game_replays_to_the_same_state(quick: None, tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    args = ["--game", "--players", "2", "--seed", "8", "--seats", "bold,random"]
    code, played = run("play", str(PACK), *args, "--record", str(record))
    assert code == 0, played
    moves = json.loads(record.read_text())["moves"]
    assert played.splitlines()[-1] == f"recorded {len(moves)} moves in {record}"
    assert {move["seat"] for move in moves} == {1, 2}
    code, replayed = run("replay", str(record))
    assert code == 0, replayed
    assert replayed.splitlines()[-1] == (
        f"replayed {len(moves)} moves of {record}: the same final state"
    )
    # The same log as the game played, up to its outcome line.
    assert replayed.splitlines()[:-1] == played.splitlines()[:-2]
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically: nothing left beside it


def test_a_pack_that_changed_fails_the_replay_at_the_first_move_that_differs(
    quick: None, tmp_path: Path
) -> None:
    record = tmp_path / "game.json"
    args = ["--game", "--players", "2", "--seed", "2", "--policy", "random"]
    assert run("play", str(PACK), *args, "--record", str(record))[0] == 0
    changed = tmp_path / "changed"
    shutil.copytree(PACK, changed)
    rooms = changed / "cards" / "rooms.card"
    rooms.write_text(rooms.read_text().replace("check strength", "check focus"))
    code, output = run("replay", str(record), "--pack", str(changed))
    assert code == 1, output
    assert f"{changed} changed since the record was made" in output
    found = re.search(
        r"game\.json:(\d+):5: error\[E0467\]: the record no longer replays: "
        r"move (\d+): the game went another way before it",
        output,
    )
    assert found is not None, output
    line, move = map(int, found.groups())
    assert line == move + 12  # the record's moves are written one a line, after its header
    assert "outcome after" not in output


RECORD_HEAD = (
    '{"format": "pillbox-record", "version": 1, "game": "coma-ward", "pack": "p", '
    '"pack_digest": "d", "seed": 1, "players": 2, "seats": ["bold", "bold"], '
    '"until": "prologue", "final": "f", "moves": [\n'
)


def _move(**changes: object) -> str:
    move: dict[str, object] = {
        "seat": 1,
        "kind": "free",
        "prompt": "p",
        "choices": ["a", "b"],
        "answer": "b",
        "number": 2,
        "log": "0",
    }
    return json.dumps({**move, **changes})


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (b'{"format": \n', "2:1", "the record is not JSON: Expecting value"),
        (b"[1, 2]", "1:1", "a record is a JSON object"),
        (b'{"format": "pdf"}', "1:12", "format: this is no pillbox-record file"),
        (
            b'{"format": "pillbox-record", "version": 1, "players": 2, "seats": ["bold", 5]}',
            "1:76",
            "seats › 1: must be a text",
        ),
        (
            (RECORD_HEAD + _move() + ",\n" + _move(number=3) + "]}").encode(),
            "3:92",
            "move 2 › number: must be from 1 to 2, not 3",
        ),
        (
            (RECORD_HEAD + _move(answer="a") + "]}").encode(),
            "2:77",
            "move 1 › answer: is not answer 2 of the choices",
        ),
        (
            (RECORD_HEAD + _move(seat=True) + "]}").encode(),
            "2:10",
            "move 1 › seat: must be a whole number, not true",
        ),
        (
            b'{"format": "pillbox-record", "version": 1, "seed": 1' + b"0" * 5000 + b"}",
            "1:1",
            "the record is not JSON a record can hold",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "1:1", "the record is not JSON a record can hold"),
        (b'{"format": "pillbox-record\xff"}', "1:27", "the record is not UTF-8 text"),
    ],
)
def test_a_broken_or_hostile_record_is_a_diagnostic(
    tmp_path: Path, text: bytes, where: str, message: str
) -> None:
    file = tmp_path / "game.json"
    file.write_bytes(text)
    code, output = run("replay", str(file))
    assert code == 1, output
    assert f"game.json:{where}: error[E0466]: {message}" in output
    assert "Traceback" not in output


def test_a_record_too_large_or_not_a_file_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("compiler.play.records.MAX_RECORD_BYTES", 100)
    file = tmp_path / "game.json"
    file.write_text(" " * 101)
    with pytest.raises(RecordError, match="too large for a record"):
        read_record(file, "game.json")
    with pytest.raises(RecordError, match="a record is a file"):
        read_record(Path("/dev/zero"), "/dev/zero")


def test_a_record_whose_pack_is_gone_says_so(tmp_path: Path) -> None:
    file = tmp_path / "game.json"
    file.write_text(RECORD_HEAD.replace('"p"', f'"{tmp_path / "gone"}"') + "]}")
    code, output = run("replay", str(file))
    assert code == 1
    assert f"game.json:1:78: error[E0468]: the record's pack '{tmp_path / 'gone'}' is not there"
    assert "error[E0468]" in output and "--pack PATH" in output


def test_a_record_that_cannot_be_written_stops_the_game_before_it_starts(
    tmp_path: Path,
) -> None:
    code, output = run("play", str(PACK), "--game", "--record", str(tmp_path / "no" / "g.json"))
    assert code == 2 and "the folder" in output and "does not exist" in output


# -- the many-game test -----------------------------------------------------------------------

GAMES = int(os.environ.get("PILLBOX_WHOLE_GAMES", "8"))
"""How many seeded 4-player games `test_many_games...` plays and replays. The issue asks for
1,000 (PILLBOX_WHOLE_GAMES=1000, on two processes); the suite plays a few, as each whole game
played and replayed costs about 0.1 s of CPU. Game 296 of the thousand once stopped with E0465
(Short Fuse's `bonus next attack +1` piling up past 60 dice); a card's waiting bonus is now
given anew on a later turn, not twice."""


def _play_and_replay(indices: range) -> list[str]:
    """Play games of a sweep seeded 15 to the end, each recorded, its record read back and
    replayed; what went wrong with any."""
    pack = _ward()
    table = settle(coma_ward_whole(), GameRequest(str(PACK), 0, 4, policy="random"))
    assert table.until == coma_ward_whole().phases[-1]
    problems = []
    for index in indices:
        seed = game_seed(15, index)
        played = play_whole(pack, table, seed)
        if played.problem is not None:
            problems.append(f"game {index} (seed {seed}): {played.problem.message}")
            continue
        record, _ = parse_record(record_of(pack, "p", played, seed).to_text().encode(), "r")
        again = play_whole(pack, table, seed, replay=record)
        if again.problem is not None or again.diverged is not None:
            problems.append(f"game {index} (seed {seed}) replays wrong: {again.diverged}")
    return problems


def test_many_games_play_to_the_end_and_replay_to_the_same_state() -> None:
    if GAMES <= 100:
        assert _play_and_replay(range(GAMES)) == []
        return
    halves = [range(0, GAMES, 2), range(1, GAMES, 2)]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert [p for found in pool.map(_play_and_replay, halves) for p in found] == []


# -- hot-seat -------------------------------------------------------------------------------


def run_with_input(answers: str, *args: str) -> tuple[int, str]:
    """Run the CLI in-process with these lines piped to it; its exit code and output."""
    result = CliRunner().invoke(main, list(args), input=answers)
    return result.exit_code, result.output


def test_hot_seat_asks_each_human_seat_its_own_questions(quick: None, tmp_path: Path) -> None:
    """Piped answers play seat 1 (a number, a bad number asked again, the start of an answer);
    seat 2 is bold. The end of the input stops the game quietly: exit 130, nothing recorded."""
    record = tmp_path / "game.json"
    code, output = run_with_input(
        "1\n9\nsteal\n1\n",
        "play", str(PACK), "--game", "--seed", "3", "--seats", "human,bold",
        "--record", str(record),
    )  # fmt: skip
    assert code == 130, output
    assert not record.exists() and "Traceback" not in output
    lines = output.splitlines()
    asked = [n for n, line in enumerate(lines) if line == "-- player 1 (seat 1) decides --"]
    assert len(asked) >= 3 and "-- player 2 (seat 2) decides --" not in lines
    assert lines[asked[0] + 2 : asked[0] + 5] == ["  1. main action", "  2. move", "  3. trade"]
    assert "player 1's turn begins" in lines[: asked[0]]  # the log read out before the question
    assert "  answer with a number from 1 to 2, or the words of an answer" in lines
    assert "main action? steal" in lines and "main action: steal from player 2" in lines
    assert "player 2 defends against player 1: counter-attack" in lines  # bold's answer


def test_an_answer_is_its_number_its_words_or_the_unique_start_of_them() -> None:
    choices = ("main action", "move", "trade")
    assert picked_answer(choices, "3") == 2
    assert picked_answer(choices, "MOVE") == 1
    assert picked_answer(choices, "tr") == 2
    assert picked_answer(choices, "m") == "'m' could be any of 2 answers: type more, or a number"
    assert (
        picked_answer(choices, "4") == "answer with a number from 1 to 3, or the words of an answer"
    )
    assert picked_answer(("Scarf", "Scarf"), "sc") == 0  # two copies: one answer


GAME_WORDS = re.compile(
    r"terror|clue|focus|phenomen|prologue|hallucinat|quirk|neuros|coma|rummage|ward\b", re.I
)
"""Words of the Coma Ward game that generic code never says."""


def test_the_whole_game_commands_name_no_games_words() -> None:
    for module in ("game.py", "records.py"):
        text = (ROOT / "compiler" / "play" / module).read_text()
        assert GAME_WORDS.findall(text) == [], module


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (
            ('"players": 2, "seats": ["bold", "bold"]', '"players": 1, "seats": ["bold"]'),
            '1, "seats"',
            "E0466]: the record does not fit the game: players 1: this game is played by 2 to 6",
        ),
        (('"bold", "bold"', '"bold", "sly"'), '["bold", "sly"]', "E0466]: the record does not"),
        (('"prologue"', '"dawn"'), '"dawn"', "E0466]: the record does not fit the game: until"),
        (('"coma-ward"', '"chess"'), '"chess"', "E0468]: the record is a game of chess; "),
    ],
)
def test_a_record_that_does_not_fit_the_packs_game_is_a_diagnostic(
    quick: None, tmp_path: Path, change: tuple[str, str], field: str, message: str
) -> None:
    """Each is placed at the record's field that does not fit."""
    file = tmp_path / "game.json"
    head = RECORD_HEAD.replace('"pack": "p"', f'"pack": "{PACK}"').replace(*change)
    file.write_text(head + "]}")
    code, output = run("replay", str(file))
    assert code == 1, output
    found = re.search(r"game\.json:1:(\d+): error\[(.*)", output)
    assert found is not None and found.group(2).startswith(message), output
    assert head[int(found.group(1)) - 1 :].startswith(field)


def test_a_game_that_fails_at_no_card_line_is_told_at_pack_yaml_s_ruleset_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # E0465 pointed at the pack's folder, a place no editor opens.
    pack = Path(shutil.copytree(ROOT / "content" / "cool-name", tmp_path / "cool-name"))

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("a part of the engine gave up")

    monkeypatch.setattr("runtime.datagame.play", broken)
    code, output = run("play", str(pack), "--game", "--seed", "1")
    line = next(
        n
        for n, text in enumerate((pack / "pack.yaml").read_text().splitlines(), 1)
        if text.startswith("ruleset:")
    )
    assert code == 1 and f"pack.yaml:{line}:10: error[E0465]" in output, output
