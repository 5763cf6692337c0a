"""Records of whole games: every move written down as it is made, saved as JSON, read back and
played again move by move (`pillbox play --game --record FILE`, `pillbox replay FILE`).

A record names the pack and the digest of its text, the seed, the seats and the phase played
to; then every decision in order, with the seat that answered it, the question, its answers,
the one picked and a digest of what the log said since the move before; then the digest of
the final state. A replay answers from the record, not from the policies, and stops at the
first move where the game no longer asks what the record answered.
"""

from __future__ import annotations

import hashlib
import json
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compiler.build import CompiledPack
from compiler.playing import in_pack
from compiler.yamlio import MAX_YAML_BYTES, YamlError, load_yaml
from dsl.spans import Diagnostic, Span
from runtime.decisions import Decision, DecisionMaker
from runtime.game import Game
from runtime.policies import asked_seat

FORMAT = "pillbox-record"
VERSION = 1

MAX_RECORD_BYTES = 16_000_000
"""Larger files are refused unread: a whole game's record is well under a megabyte."""

MAX_TEXT = 10_000
"""No prompt, answer, path or name in a record is longer."""

MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class Move:
    """One decision as it was made: who answered (a 1-based seat), what was asked and the
    1-based number of the answer; `log` is the digest of the events since the move before."""

    seat: int
    kind: str
    prompt: str
    choices: tuple[str, ...]
    number: int
    log: str

    @property
    def answer(self) -> str:
        """The answer picked, in words."""
        return self.choices[self.number - 1]

    def question(self) -> str:
        """The question as a person reads it: its seat, prompt and answers."""
        return f"seat {self.seat}: {self.prompt} ({' / '.join(self.choices)})"

    def to_json(self) -> dict[str, Any]:
        """The move as plain data, in the record's words."""
        return {
            "seat": self.seat,
            "kind": self.kind,
            "prompt": self.prompt,
            "choices": list(self.choices),
            "answer": self.answer,
            "number": self.number,
            "log": self.log,
        }


@dataclass(frozen=True)
class Record:
    """One whole game written down: where it was played from, its seats and its moves."""

    game: str
    pack: str  # the pack folder as it was named on the command line
    pack_digest: str
    seed: int
    players: int
    seats: tuple[str, ...]  # the policy (or "human") of each seat
    until: str
    moves: tuple[Move, ...]
    final: str  # the digest of the final state

    def to_text(self) -> str:
        """The record as JSON, one move a line, so that a line number names a move."""
        head = {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "pack": self.pack,
            "pack_digest": self.pack_digest,
            "seed": self.seed,
            "players": self.players,
            "seats": list(self.seats),
            "until": self.until,
            "final": self.final,
        }
        lines = [
            f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()
        ]
        moves = [json.dumps(m.to_json(), ensure_ascii=False) for m in self.moves]
        body = ",\n".join(f"    {move}" for move in moves)
        return "{\n" + "\n".join(lines) + '\n  "moves": [\n' + body + "\n  ]\n}\n"


def pack_digest(compiled: CompiledPack) -> str:
    """A digest of what a pack plays with: its ruleset and the text of every card file, by
    its path inside the pack (so it does not depend on where the pack lies)."""
    checked = compiled.checked
    digest = hashlib.sha256(checked.ruleset.digest.encode())
    for file in checked.files:
        for part in (in_pack(checked.root, file.file), file.text):
            digest.update(b"\0" + part.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


def state_digest(game: Game) -> str:
    """A digest of the game's state as plain data: two games that end alike give the same."""
    state = json.dumps(game.snapshot(), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(state.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class _Moves:
    """What a recorder and a replay share: the moves so far and the log between them."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.moves: list[Move] = []
        self._logged = 0

    def _log_since(self) -> str:
        """The digest of the events logged since the last move."""
        events = self.game.log.events
        texts = "\n".join(event.text for event in events[self._logged :])
        self._logged = len(events)
        return hashlib.blake2b(texts.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()

    def _move(self, decision: Decision, number: int, log: str) -> Move:
        seat = asked_seat(self.game, decision) + 1
        return Move(seat, decision.kind, decision.prompt, decision.choices, number, log)


class Recorder(_Moves):
    """The game's decision maker while a game is recorded: asks `then`, writes the move down."""

    def __init__(self, game: Game, then: DecisionMaker) -> None:
        super().__init__(game)
        self._then = then

    def decide(self, decision: Decision) -> int:
        """The answer of the maker recorded, with the question and the log since the last."""
        log = self._log_since()
        index = self._then.decide(decision)
        self.moves.append(self._move(decision, index + 1, log))
        return index


class Diverged(Exception):
    """The game no longer plays as its record says: at which move, and how."""

    def __init__(self, move: int, message: str) -> None:
        super().__init__(move, message)
        self.move = move  # 1-based; one past the last when the game asked for more
        self.message = message

    def __str__(self) -> str:
        return self.message


class Replay(_Moves):
    """The game's decision maker in a replay: the record's answers, each checked against what
    the game asks now."""

    def __init__(self, game: Game, recorded: Sequence[Move]) -> None:
        super().__init__(game)
        self._recorded = recorded

    def decide(self, decision: Decision) -> int:
        """The recorded answer of this move; Diverged if the game went another way."""
        number = len(self.moves) + 1
        log = self._log_since()
        now = self._move(decision, 1, log)
        if number > len(self._recorded):
            raise Diverged(
                number,
                f"move {number}: the game asks {now.question()}, "
                f"but the record ends after {len(self._recorded)} moves",
            )
        was = self._recorded[number - 1]
        if log != was.log:
            raise Diverged(
                number,
                f"move {number}: the game went another way before it; the log since the move "
                "before differs from the record's (the replayed log above ends where they part)",
            )
        if (now.seat, now.prompt, now.choices) != (was.seat, was.prompt, was.choices):
            raise Diverged(
                number,
                f"move {number}: the record answered {was.question()}, "
                f"but the game now asks {now.question()}",
            )
        self.moves.append(was)
        return was.number - 1

    def finish(self, final: str) -> None:
        """After the game: every recorded move used, and the same final state reached."""
        if len(self.moves) < len(self._recorded):
            number = len(self.moves) + 1
            raise Diverged(
                number,
                f"move {number}: the game ended after {len(self.moves)} moves, "
                f"but the record has {len(self._recorded)}",
            )
        if state_digest(self.game) != final:
            raise Diverged(
                len(self.moves) + 1,
                "every move replayed, but the game ends in a different state than the record's",
            )


# -- reading a record ------------------------------------------------------------------------

READ = "E0466"


class RecordError(Exception):
    """A record file that cannot be replayed: the diagnostic that says why and where."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def read_record(path: Path, shown: str) -> tuple[Record, str]:
    """Read and check a record file; its record and its text. RecordError, with the line and
    column of the problem, for anything that is not a record this version wrote."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise _refused(shown, "a record is a file; this is a device, a pipe or a folder")
        with path.open("rb") as stream:
            raw = stream.read(MAX_RECORD_BYTES + 1)  # never more, whatever the file claims
    except OSError as error:
        raise _refused(shown, f"cannot read the record: {error.strerror or error}") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise _refused(
            shown, f"this file is too large for a record (over {MAX_RECORD_BYTES:,} bytes)"
        )
    return parse_record(raw, shown)


def parse_record(raw: bytes, shown: str) -> tuple[Record, str]:
    """A record from the bytes of its file, checked as `read_record` checks it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise _refused(
            shown, "the record is not UTF-8 text", Span(shown, line, column, line, column + 1)
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        at = Span(shown, error.lineno, error.colno, error.lineno, error.colno + 1)
        raise _refused(shown, f"the record is not JSON: {error.msg}", at) from None
    except (RecursionError, ValueError) as error:
        raise _refused(shown, f"the record is not JSON a record can hold: {error}") from None
    try:
        return _record(data), text
    except _Shape as problem:
        raise _refused(
            shown,
            f"{_where(problem.path)}{problem.message}",
            record_span(shown, text, problem.path),
        ) from None


def _refused(shown: str, message: str, span: Span | None = None) -> RecordError:
    return RecordError(
        Diagnostic(
            READ,
            "error",
            message,
            span or Span.whole_file(shown),
            "a record is written by pillbox play --game --record FILE",
        )
    )


class _Shape(Exception):
    """A record's data that is not what a record holds, at a path into it."""

    def __init__(self, path: tuple[str | int, ...], message: str) -> None:
        super().__init__(path, message)
        self.path = path
        self.message = message


def _where(path: tuple[str | int, ...]) -> str:
    if not path:
        return ""
    if path[0] == "moves" and len(path) > 1 and isinstance(path[1], int):
        rest = " › ".join(str(part) for part in path[2:])
        return f"move {path[1] + 1}" + (f" › {rest}" if rest else "") + ": "
    return " › ".join(str(part) for part in path) + ": "


def record_span(shown: str, text: str, path: tuple[str | int, ...]) -> Span:
    """Where the value at `path` is written; the whole file when the file is too large to
    read with positions (the message names the move)."""
    if len(text) > MAX_YAML_BYTES:
        return Span.whole_file(shown)
    try:
        return load_yaml(text, shown).span(path)
    except YamlError:
        return Span.whole_file(shown)


def _field(data: dict[str, Any], key: str, kind: type, path: tuple[str | int, ...] = ()) -> Any:
    """data[key], which must be of that kind (a bool is no int); _Shape otherwise."""
    if key not in data:
        raise _Shape(path, f"'{key}' is missing")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _Shape((*path, key), f"must be {_KINDS[kind]}, not {json.dumps(value)[:40]}")
    if isinstance(value, str) and len(value) > MAX_TEXT:
        raise _Shape((*path, key), f"is longer than {MAX_TEXT:,} characters")
    return value


_KINDS = {int: "a whole number", str: "a text", list: "a list", dict: "an object"}


def _number(
    data: dict[str, Any], key: str, low: int, high: int, path: tuple[str | int, ...] = ()
) -> int:
    value: int = _field(data, key, int, path)
    if not low <= value <= high:
        raise _Shape((*path, key), f"must be from {low} to {high}, not {value}")
    return value


def _texts(data: dict[str, Any], key: str, path: tuple[str | int, ...] = ()) -> tuple[str, ...]:
    values = _field(data, key, list, path)
    for index, value in enumerate(values):
        if not isinstance(value, str) or len(value) > MAX_TEXT:
            raise _Shape((*path, key, index), "must be a text (of at most 10,000 characters)")
    return tuple(values)


def _record(data: Any) -> Record:
    """The record in `data`, every field checked; _Shape at the first that does not fit."""
    if not isinstance(data, dict):
        raise _Shape((), "a record is a JSON object")
    if data.get("format") != FORMAT:
        raise _Shape(("format",) if "format" in data else (), f"this is no {FORMAT} file")
    _number(data, "version", VERSION, VERSION)
    players = _number(data, "players", 1, 1_000)
    seats = _texts(data, "seats")
    if len(seats) != players:
        raise _Shape(("seats",), f"names {len(seats)} seats for {players} players")
    moves = tuple(
        _move(entry, index, players) for index, entry in enumerate(_field(data, "moves", list))
    )
    return Record(
        game=_field(data, "game", str),
        pack=_field(data, "pack", str),
        pack_digest=_field(data, "pack_digest", str),
        seed=_number(data, "seed", 0, MAX_SEED),
        players=players,
        seats=seats,
        until=_field(data, "until", str),
        moves=moves,
        final=_field(data, "final", str),
    )


def _move(entry: Any, index: int, players: int) -> Move:
    path: tuple[str | int, ...] = ("moves", index)
    if not isinstance(entry, dict):
        raise _Shape(path, "a move is a JSON object")
    choices = _texts(entry, "choices", path)
    if not choices:
        raise _Shape((*path, "choices"), "a move has at least one answer to pick from")
    number = _number(entry, "number", 1, len(choices), path)
    answer = _field(entry, "answer", str, path)
    if answer != choices[number - 1]:
        raise _Shape((*path, "answer"), f"is not answer {number} of the choices")
    return Move(
        _number(entry, "seat", 1, players, path),
        _field(entry, "kind", str, path),
        _field(entry, "prompt", str, path),
        choices,
        number,
        _field(entry, "log", str, path),
    )
