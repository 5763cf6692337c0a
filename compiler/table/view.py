"""What the page of `pillbox table` shows of a game at one moment, as plain data: the seats
with their stats, cards and tokens, the other actors, the board with the pieces on it, the
game's tracks, the question asked, and the log in the game's words.

What a seat must not see stays hidden until the game ends or shows it: the cards of the kinds
the ruleset deals face down (`hidden: true`) that another seat holds are shown face down, and the
log and the question asked name them so too, until the condition of their kind's `shown_when:`
holds of them. At one screen the seat that sees is the human seat asked
now, else the last one asked; at a shared table (`--share`) each seat is sent a view of its
own, in which it alone sees. A card is named by its title, never by the variant drawn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from compiler.build import CompiledPack
from compiler.play.game import HUMAN, Table, outcome_text
from compiler.play.records import Move
from compiler.table.board import layout
from runtime.cards import CardInstance
from runtime.game import Game
from runtime.policies.view import face_down
from runtime.state import Actor
from runtime.whole import Outcome

LOG_LINES = 400
"""The log's last lines sent with each view; the earlier ones are counted."""

FACE_DOWN = "(face down)"

_VARIANT = re.compile(r'(")\s+variant\s+\d+')


@dataclass(frozen=True)
class TableFacts:
    """What does not change during a game: its name, seats, board and colours."""

    title: str
    pack: str
    seed: int
    seats: tuple[str, ...]
    until: str
    board: dict[str, Any] | None
    colours: Mapping[str, str]

    @classmethod
    def of(cls, compiled: CompiledPack, table: Table, pack: str, seed: int) -> TableFacts:
        """The facts of a game of this pack at this table."""
        ruleset = compiled.checked.ruleset
        drawn = layout(compiled.rules.world.board)
        return cls(
            title=str(ruleset.title or ruleset.name),
            pack=pack,
            seed=seed,
            seats=table.seats,
            until=table.until,
            board=drawn.to_json() if drawn is not None else None,
            colours=_colours(ruleset.data),
        )

    def to_json(self) -> dict[str, Any]:
        """The facts as plain data."""
        return {
            "title": self.title,
            "pack": self.pack,
            "seed": self.seed,
            "seats": list(self.seats),
            "until": self.until,
            "board": self.board,
            "colours": dict(self.colours),
        }


def _colours(data: Any) -> dict[str, str]:
    """Each stat's colour, where the ruleset gives one (`colour: "#b3261e"`)."""
    stats = data.get("stats") if isinstance(data, dict) else None
    found: dict[str, str] = {}
    for name, rule in (stats or {}).items():
        colour = rule.get("colour") if isinstance(rule, dict) else None
        if isinstance(colour, str) and re.fullmatch(r"#[0-9a-fA-F]{3,8}", colour):
            found[str(name)] = colour
    return found


def viewer(
    facts: TableFacts, question: Mapping[str, Any] | None, moves: Sequence[Move]
) -> int | None:
    """The seat whose hidden cards are shown: the human seat asked now, else the last asked."""
    if question is not None and question["human"]:
        return int(question["seat"])
    for move in reversed(moves):
        if facts.seats[move.seat - 1] == HUMAN:
            return move.seat - 1
    humans = [index for index, name in enumerate(facts.seats) if name == HUMAN]
    return humans[0] if humans else None


def game_view(
    facts: TableFacts,
    game: Game,
    question: dict[str, Any] | None,
    moves: Sequence[Move],
    notes: Sequence[tuple[int, str]],
    finished: bool,
    problem: str | None,
    outcome: dict[str, Any] | None,
    seat: int | None = None,
    reveal: bool = False,
) -> dict[str, Any]:
    """The page's view of the game now (`outcome`: how it ended, as plain data): the view of
    one `seat` at a shared table, else the one screen's; every card face up with `reveal`
    (a record stepped through, the game over)."""
    state = game.state
    if finished or reveal:
        seeing = None
    elif seat is not None:
        seeing = seat
    else:
        seeing = viewer(facts, question, moves)
    secret = set()
    if not finished and not reveal:
        for actor in state.players:
            if actor.seat != seeing:
                secret |= {c.definition.title for c in _cards(actor) if face_down(game, c)}
    seats = [
        _seat(facts, game, actor, index, finished or reveal or index == seeing)
        for index, actor in enumerate(state.players)
    ]
    others = [_actor(game, actor) for actor in state.others]
    return {
        "facts": facts.to_json(),
        "status": "over" if finished else "playing",
        "round": state.round,
        "phase": state.phase,
        "turn": state.current,
        "seeing": seeing,
        "seats": seats,
        "others": others,
        "tracks": dict(sorted(state.tracks.items())),
        "in_play": {place: _face(card, secret) for place, card in sorted(state.in_play.items())},
        "floor": {
            place: [_face(card, secret) for card in cards]
            for place, cards in sorted(state.floor.items())
            if cards
        },
        "question": asked_on_the_page(question, secret),
        "moves": len(moves),
        "undoable": _undoable(facts, moves, seat),
        "log": log_on_the_page(game, notes, secret),
        "outcome": outcome,
        "problem": problem,
    }


def asked_on_the_page(question: dict[str, Any] | None, secret: set[str]) -> dict[str, Any] | None:
    """The question with no hidden title another seat holds (a bot's, or another person's)."""
    if question is None or not secret:
        return question
    card = question.get("card")
    return {
        **question,
        "prompt": said_on_the_page(str(question["prompt"]), secret),
        "choices": [said_on_the_page(str(choice), secret) for choice in question["choices"]],
        "card": FACE_DOWN if isinstance(card, str) and card in secret else card,
    }


def _undoable(facts: TableFacts, moves: Sequence[Move], seat: int | None) -> bool:
    """Whether there is a human answer to take back: at a shared table, the seat's own last."""
    humans = [m for m in moves if facts.seats[m.seat - 1] == HUMAN]
    if seat is None:
        return bool(humans)
    return bool(humans) and humans[-1].seat - 1 == seat


def _cards(actor: Actor) -> list[CardInstance]:
    return [*actor.items, *actor.owned]


def _face(card: CardInstance, secret: set[str]) -> dict[str, Any]:
    title = card.definition.title
    if title in secret and card.definition.kind:
        return {"kind": card.definition.kind, "title": None}
    return {"kind": card.definition.kind, "title": title, "tokens": dict(card.tokens)}


def _seat(facts: TableFacts, game: Game, actor: Actor, index: int, sees: bool) -> dict[str, Any]:
    cards = []
    for card in _cards(actor):
        hidden = face_down(game, card)
        down = hidden and not sees
        cards.append(
            {
                "kind": card.definition.kind,
                "title": None if down else card.definition.title,
                "hidden": hidden,
                "carried": card in actor.items,
                "tokens": {} if down else dict(sorted(card.tokens.items())),
            }
        )
    return {
        **_actor(game, actor),
        "seat": index,
        "who": facts.seats[index],
        "cards": cards,
        "turn_over": actor.turn_over,
    }


def _actor(game: Game, actor: Actor) -> dict[str, Any]:
    return {
        "name": actor.name,
        "kind": actor.kind,
        "stats": {name: game.stat(name, actor) for name in actor.stats.names()},
        "dead": actor.dead,
        "location": actor.location,
        "keywords": sorted(actor.keywords),
    }


def log_on_the_page(
    game: Game, notes: Sequence[tuple[int, str]], secret: set[str]
) -> dict[str, Any]:
    """The log's last lines, the table's own notes among them, hidden titles face down."""
    events = game.log.events
    lines: list[dict[str, Any]] = []
    said = sorted(notes)
    at = 0
    for index, event in enumerate(events):
        while at < len(said) and said[at][0] <= index:
            # a note quotes a question and its answer: a hidden title in it stays face down
            lines.append(
                {"text": said_on_the_page(said[at][1], secret), "depth": 0, "kind": "table"}
            )
            at += 1
        lines.append(
            {"text": said_on_the_page(event.text, secret), "depth": event.depth, "kind": event.kind}
        )
    lines += [
        {"text": said_on_the_page(text, secret), "depth": 0, "kind": "table"}
        for _, text in said[at:]
    ]
    return {"earlier": max(len(lines) - LOG_LINES, 0), "lines": lines[-LOG_LINES:]}


def said_on_the_page(text: str, secret: set[str]) -> str:
    """A log line with no variant named and no hidden title another seat holds."""
    text = _VARIANT.sub(r"\1", text)
    for title in secret:
        text = text.replace(f'"{title}"', FACE_DOWN).replace(title, FACE_DOWN)
    return text


def outcome_view(outcome: Outcome, until: str) -> dict[str, Any]:
    """How a game ended, as the page shows it."""
    return {
        "text": outcome_text(outcome, until),
        "result": outcome.result,
        "winners": list(outcome.winners),
        "labels": dict(outcome.labels),
        "stopped": outcome.stopped,
    }
