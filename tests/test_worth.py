"""A game states its own progress in data (`game: worth:`), and the seats that search add it to
the engine's generic worth of a state; a term that can never earn anything is refused at its line.

Lamp Watch (tests/test_whole_from_data.py) races two tracks, which the generic worth (standing,
stats, foes, cards found) never reads: only its own terms tell a search that light is progress.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from runtime.datagame import whole_game_of
from runtime.decisions import Decision
from runtime.game import Game
from runtime.policies.base import Seat
from runtime.policies.evaluation import scale, value
from runtime.policies.search import MARGIN, pick_best
from tests.conftest import ROOT
from tests.helpers import compiled, run
from tests.test_whole_from_data import RULES, lamp_pack

WORTH = """\
  worth:
    light: {value: light, to: 6, weight: 1}
    oil kept: {when: "light >= 3", value: oil, from: 1, to: 5, weight: 0.5}
    half lit: {when: "light >= 3", weight: 2}
"""


def _game(folder: Path, rules: str) -> Game:
    pack = compiled(lamp_pack(folder, rules))
    whole = whole_game_of(pack.rules, pack.whole)
    return whole.new_game(pack.rules, pack.cards, 2, 3)


@pytest.fixture(scope="module")
def lamp(tmp_path_factory: pytest.TempPathFactory) -> Game:
    rules = RULES.replace("  count:\n", WORTH + "  count:\n")
    return _game(tmp_path_factory.mktemp("worth") / "lamp-watch", rules)


def test_each_term_is_read_between_its_ends_while_its_condition_holds(lamp: Game) -> None:
    progress = lamp.module.progress
    assert progress is not None
    state = lamp.state
    state.tracks["light"] = 0
    state.players[1].stats.set("oil", 5)
    assert progress(lamp, 0) == (0.0, 3.5)  # nothing lit: the conditions hold for none
    state.tracks["light"] = 3
    state.players[0].stats.set("oil", 3)
    # light 3 of 6, the seat's own oil (its "you") halfway from 1 to 5, and the whole 2
    assert progress(lamp, 0) == (0.5 + 0.25 + 2, 3.5)
    assert progress(lamp, 1) == (0.5 + 0.5 + 2, 3.5)  # the other seat's oil: all of it
    state.tracks["light"] = 6
    state.players[0].stats.set("oil", 0)  # below `from:`: nothing, never less
    assert progress(lamp, 0) == (1 + 0 + 2, 3.5)
    assert state.current == 0  # read as each seat, the turn given back


def test_the_search_values_what_the_game_calls_progress(lamp: Game, tmp_path: Path) -> None:
    lamp.state.tracks["light"] = 0
    dark = value(lamp, 0)
    lamp.state.tracks["light"] = 6
    assert value(lamp, 0) > dark
    plain = _game(tmp_path / "lamp-watch", RULES)
    assert plain.module.progress is None
    plain.state.tracks["light"] = 0
    before = value(plain, 0)
    plain.state.tracks["light"] = 6
    assert value(plain, 0) == before  # the generic terms do not read a game's tracks


def test_the_rules_answer_margin_is_in_the_generic_terms_units(lamp: Game) -> None:
    """The worth terms share a state's worth with the generic ones (3.5 against 1 here), so a
    difference the generic terms make is 4.5 times smaller: the margin too."""
    assert scale(lamp, 0) == 1 / 4.5
    decision = Decision("option", "which", ("rules' answer", "other"), default=0)
    seat = Seat(0, lamp.state.players[0], random.Random(1))
    nearly = [0.5, 0.5 + MARGIN / 2]  # within the absolute margin, above the scaled one
    assert pick_best(seat, nearly, decision, MARGIN) == 0
    assert pick_best(seat, nearly, decision, MARGIN * scale(lamp, 0)) == 1


@pytest.mark.parametrize(
    ("term", "column", "message"),
    [
        ("    light: {value: light, from: 2, to: 2, weight: 1}\n", 40, "from 2 to 2"),
        ("    light: {weight: 1}\n", 5, "reads nothing"),
    ],
)
def test_a_term_that_can_never_earn_anything_is_refused_at_its_line(
    tmp_path: Path, term: str, column: int, message: str
) -> None:
    rules = RULES.replace("  count:\n", "  worth:\n" + term + "  count:\n")
    code, output = run("check", str(lamp_pack(tmp_path / "bad", rules)))
    line = rules.splitlines().index(term.rstrip("\n")) + 1
    assert code == 1 and "Traceback" not in output, output
    assert f"ruleset.yaml:{line}:{column}: error[E0489]" in output and message in output


def test_a_misspelt_value_in_a_term_is_told_at_its_line(tmp_path: Path) -> None:
    term = "    light: {value: lihgt, to: 6, weight: 1}\n"
    rules = RULES.replace("  count:\n", "  worth:\n" + term + "  count:\n")
    code, output = run("check", str(lamp_pack(tmp_path / "bad", rules)))
    line = rules.splitlines().index(term.rstrip("\n")) + 1
    assert code == 1 and "Traceback" not in output, output
    assert f"ruleset.yaml:{line}:" in output and "lihgt" in output


def test_coma_ward_counts_its_clues_then_its_phenomenons_goal() -> None:
    pack = compiled(ROOT / "content" / "coma-ward")
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, 4, 1)
    progress = game.module.progress
    assert progress is not None
    _, weights = progress(game, 0)
    clues = [c for c in game.cards if c.kind == "clue"][:3]
    game.state.found = [game.new_instance(c) for c in clues]
    assert progress(game, 0) == (1.0, weights)  # every clue found: the prologue's term
    rounds = next(c for c in game.cards if c.title == "Doing the Rounds")
    game.state.in_play["phenomenon"] = game.new_instance(rounds)
    assert progress(game, 0) == (1.0, weights)  # not yet its act
    game.state.flags.add("phenomenon_act")
    for room in ("f1-room-1", "f1-room-2", "f2-room-1"):
        game.state.in_play[room] = game.new_instance(
            next(c for c in game.cards if c.kind == "room")
        )
        game.add_tokens(game.state.in_play[room], "pill", 1)
    assert progress(game, 0) == (1.5, weights)  # three rooms with pills of the six
