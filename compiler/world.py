"""A ruleset's world: its kinds of actor, its board, its tracks and the shape of its rounds.

Read from the `actors:`, `places:` and `paths:`, `tracks:` and `turns:` sections of the merged
ruleset data (the schema has checked their shapes); every cross-reference that does not hold
is reported through `error` at the YAML entry it is about, and the rest is built anyway, so one
pass finds every problem.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from runtime.stats import DerivedRule, StatRule
from runtime.world import (
    SEATED,
    ActorKind,
    Board,
    Lift,
    Phase,
    TrackRule,
    Turns,
    World,
    subject_phrases,
)

Report = Callable[[str, tuple[str | int, ...]], None]
"""Records an error about the ruleset entry at a path of its YAML."""


def stat_rules(section: Mapping[str, Any]) -> tuple[StatRule, ...]:
    """The stats of a `stats:` mapping as the runtime takes them."""
    return tuple(
        StatRule(
            name,
            s["min"],
            s["max"],
            s["start"],
            s.get("at_min", "nothing"),
            s.get("above_max"),
            s.get("past_max", "nothing"),
            s.get("better"),
        )
        for name, s in section.items()
        if s is not None
    )


def build_world(
    data: Mapping[str, Any],
    seated_stats: tuple[StatRule, ...],
    derived: tuple[DerivedRule, ...],
    card_kinds: Collection[str],
    error: Report,
) -> World:
    """The world the ruleset data describes, its broken references reported."""
    actors = _actors(
        data.get("actors") or {}, data.get("stats") or {}, seated_stats, derived, card_kinds, error
    )
    board = _board(data.get("places") or {}, data.get("paths") or [], error)
    board = _map(board, data.get("places") or {}, data.get("lifts") or {}, data, error)
    tracks = _tracks(data.get("tracks") or {}, error)
    turns = _turns(data.get("turns"), actors, error)
    return World(actors, board, tracks, turns)


def world_vocabularies(world: World) -> dict[str, frozenset[str]]:
    """The words the world adds to the ruleset's vocabularies, for slots to take."""
    return {
        "actor_kinds": frozenset(world.actors),
        "actor_stats": frozenset(
            stat.name for kind in world.actors.values() for stat in kind.stats
        ),
        "keywords": frozenset(word for kind in world.actors.values() for word in kind.keywords),
        "tracks": frozenset(name for name, t in world.tracks.items() if t.on == "game"),
        "tokens": frozenset(name for name, t in world.tracks.items() if t.on == "card"),
        "subjects": frozenset(subject_phrases(world.actors)),
    }


def world_triggers(world: World) -> set[str]:
    """The triggers the engine fires because the world names them (a round's start...)."""
    named = {world.turns.round_trigger, *(phase.trigger for phase in world.turns.phases)}
    for track in world.tracks.values():
        named |= {track.at_max, track.at_min, track.past_max}
    return {name for name in named if name is not None}


def _actors(
    section: Mapping[str, Any],
    seated_section: Mapping[str, Any],
    seated_stats: tuple[StatRule, ...],
    derived: tuple[DerivedRule, ...],
    card_kinds: Collection[str],
    error: Report,
) -> dict[str, ActorKind]:
    kinds: dict[str, ActorKind] = {}
    entries = {name: entry or {} for name, entry in section.items() if entry is not None}
    seated = [name for name, entry in entries.items() if entry.get("seated")]
    for name in seated[1:]:
        error(
            f"actor kind {name!r} is seated too; only one kind takes the seats",
            ("actors", name, "seated"),
        )
    if not seated:
        kinds[SEATED] = ActorKind(SEATED, seated_stats, derived, seated=True)
    for name, entry in entries.items():
        own = stat_rules(entry.get("stats") or {})
        path: tuple[str | int, ...] = ("actors", name)
        for stat in own:
            if not stat.low <= stat.start <= stat.high:
                error(
                    f"actor {name!r}: stat {stat.name!r} must have min <= start <= max",
                    (*path, "stats", stat.name),
                )
        sheet = entry.get("sheet")
        if sheet is not None and sheet not in card_kinds:
            error(
                f"actor kind {name!r} has unknown card kind {sheet!r} as its sheet",
                (*path, "sheet"),
            )
        is_seated = name in seated[:1]
        # The seated kind's stats are the ruleset's `stats:`: its sheet (a character card) may
        # give their starts and maxima as well as the kind's own.
        read = {**(seated_section if is_seated else {}), **(entry.get("stats") or {})}
        starts = _sheet_properties(read, "property")
        maxima = _sheet_properties(read, "max_property")
        # `capped: true`: the property that gives its start gives its most too (a monster's
        # printed health, which no healing passes).
        maxima |= {
            stat: starts[stat]
            for stat, s in read.items()
            if s and s.get("capped") and stat in starts
        }
        if (starts or maxima) and sheet is None:
            error(
                f"actor kind {name!r} reads stats from card properties but has no sheet",
                (*path, "stats"),
            )
        kinds[name] = ActorKind(
            name,
            (*seated_stats, *own) if is_seated else own,
            derived if is_seated else (),
            seated=is_seated,
            sheet=sheet,
            starts=starts,
            maxima=maxima,
            keywords=frozenset(entry.get("keywords") or ()),
        )
    return kinds


def _sheet_properties(stats: Mapping[str, Any], key: str) -> dict[str, str]:
    """Stat -> the sheet's property that `key` (`property`, `max_property`) names for it."""
    return {stat: s[key] for stat, s in stats.items() if isinstance(s, dict) and key in s}


def _board(places: Mapping[str, Any], paths: list[list[str]], error: Report) -> Board:
    adjacent: dict[str, set[str]] = {place: set() for place in places}

    def join(one: str, other: str, path: tuple[str | int, ...]) -> None:
        for place in (one, other):
            if place not in adjacent:
                error(f"{place!r} is not a place of the ruleset's `places:`", path)
                return
        if one == other:
            error(f"place {one!r} is said to be next to itself", path)
            return
        adjacent[one].add(other)
        adjacent[other].add(one)

    for place, entry in places.items():
        for index, near in enumerate((entry or {}).get("adjacent") or ()):
            join(place, near, ("places", place, "adjacent", index))
    for row, chain in enumerate(paths):
        for index in range(len(chain) - 1):
            join(chain[index], chain[index + 1], ("paths", row, index + 1))
    return Board(tuple(places), {p: frozenset(near) for p, near in adjacent.items() if near})


def _map(
    board: Board,
    places: Mapping[str, Any],
    lifts: Mapping[str, Any],
    data: Mapping[str, Any],
    error: Report,
) -> Board:
    """The board with its levels, slots and lifts; a slot must be reached from a place that is
    not one (a room is entered from the hallway), and a lift must stop at known places."""
    decks = data.get("decks") or {}
    levels: dict[str, str] = {}
    areas: dict[str, str] = {}
    slots: dict[str, str] = {}
    for place, entry in places.items():
        entry = entry or {}
        if "level" in entry:
            levels[place] = entry["level"]
        area = entry.get("area")
        if area is not None:
            if area not in places or area == place or (places[area] or {}).get("area"):
                error(
                    f"place {place!r} is a space of {area!r}, which is not another place "
                    "that is no space itself",
                    ("places", place, "area"),
                )
            else:
                areas[place] = area
        deck = entry.get("slot")
        if deck is None:
            continue
        if deck not in decks:
            error(
                f"slot {place!r} is laid from {deck!r}, which is not a deck",
                ("places", place, "slot"),
            )
        slots[place] = deck
    for place in slots:
        if board.neighbours(place) & slots.keys():
            # A room is left through the hallway: one slot is never a move from another.
            error(
                f"slot {place!r} is next to another slot; slots join only open places",
                ("places", place),
            )
        elif not board.neighbours(place):
            error(
                f"slot {place!r} is next to no place, so it can never be entered", ("places", place)
            )
    built: list[Lift] = []
    for name, entry in lifts.items():
        stops = tuple(entry["places"])
        for index, place in enumerate(stops):
            if place not in places:
                error(
                    f"lift {name!r} stops at {place!r}, which is not a place",
                    ("lifts", name, "places", index),
                )
            elif place in slots:
                error(
                    f"lift {name!r} stops at slot {place!r}; a lift stops at open places",
                    ("lifts", name, "places", index),
                )
        sides = int(entry.get("sides", 6))
        fails = frozenset(entry.get("fails") or ())
        if any(face > sides for face in fails):
            error(
                f"lift {name!r} fails on a face its d{sides} does not have",
                ("lifts", name, "fails"),
            )
        elif len(fails) >= sides:
            error(f"lift {name!r} fails on every face, so it never moves", ("lifts", name, "fails"))
        built.append(Lift(name, stops, sides, fails))
    return Board(board.places, board.adjacent, levels, areas, slots, tuple(built))


def _tracks(section: Mapping[str, Any], error: Report) -> dict[str, TrackRule]:
    tracks: dict[str, TrackRule] = {}
    for name, t in section.items():
        if t is None:
            continue
        if not t["min"] <= t["start"] <= t["max"]:
            error(f"track {name!r} must have min <= start <= max", ("tracks", name))
        on = t.get("on", "game")
        if on != "card" and (t.get("each_turn") or t.get("blocks_use")):
            error(
                f"track {name!r}: each_turn and blocks_use are for tokens on cards (on: card)",
                ("tracks", name),
            )
        tracks[name] = TrackRule(
            name,
            t["min"],
            t["max"],
            t["start"],
            on,
            t.get("at_max"),
            t.get("at_min"),
            t.get("past_max"),
            int(t.get("each_turn", 0)),
            bool(t.get("blocks_use", False)),
        )
    return tracks


def _turns(
    section: Mapping[str, Any] | None, actors: Mapping[str, ActorKind], error: Report
) -> Turns:
    seated = next(name for name, kind in actors.items() if kind.seated)
    if section is None:
        return Turns((Phase("players", actors=seated),))
    declared = section.get("phases") or {}
    phases = []
    for index, name in enumerate(section["round"]):
        entry = declared.get(name)
        if entry is None:
            error(
                f"the round names phase {name!r}, which `phases:` does not declare",
                ("turns", "round", index),
            )
            continue
        path: tuple[str | int, ...] = ("turns", "phases", name)
        each = entry.get("each")
        if each is not None and each not in actors:
            error(f"phase {name!r}: {each!r} is not an actor kind", (*path, "each"))
            each = None
        actions = entry.get("actions")
        if actions is not None:
            stats = {s.name for s in actors[each].stats} if each else set()
            if actions not in stats:
                error(
                    f"phase {name!r}: {actions!r} is not a stat of the actors taking turns",
                    (*path, "actions"),
                )
        phases.append(
            Phase(
                name,
                each,
                tuple(entry.get("steps") or ()),
                entry.get("starts"),
                actions,
                bool(entry.get("rotates")),
            )
        )
    for name in declared:
        if name not in section["round"]:
            error(
                f"phase {name!r} is declared but the round never reaches it",
                ("turns", "phases", name),
            )
    return Turns(tuple(phases), section.get("starts"), section.get("last_round"))
