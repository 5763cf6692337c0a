"""Generate a large, valid Coma Ward pack for benchmarks: `generate_pack(folder, cards=...)`.

The pack mixes every card kind in roughly the proportions of a real game: hallucinations
(options, checks, rolls, `if`, `may`, `choose`, numbered variants), items (weapons, clothing,
food, medicine), rooms, quirks, and a small phenomenon chart with its clue cards. Some cards
carry `test` blocks whose expectations follow from a small simulation of the effects they
exercise. The same seed always gives the same files, byte for byte.

Run `python bench/generate.py FOLDER [--cards N] [--files N] [--seed N]` to write one.
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# ---------------------------------------------------------------- the vocabulary used


def _words(text: str) -> tuple[str, ...]:
    """A word list written one entry a line, or several to a line separated by `|`."""
    return tuple(w.strip() for line in text.splitlines() for w in line.split("|") if w.strip())


STATS = ("health", "terror")
STAT_MAX = 5
PLACES = ("hallway", "nurses-station", "stairs", "elevator", "roof")
CHECK_NAMES = ("attack", "dodge", "counter-attack", "focus", "strength", "dexterity")
CHECK_POOLS = {"focus": 5, "dexterity": 3, "strength": 3, "focus +1": 6, "dexterity +1": 4}
MODES = ("cooperative", "secret", "competitive")
CLUE_LETTERS = ("A", "B", "C")
MAX_PHENOMENA = 5

ADJECTIVES = _words(
    """
    Weeping | Silent | Hollow | Flickering | Drowned | Faceless | Crooked | Pale
    Humming | Broken | Rusted | Forgotten | Whispering | Sterile | Bleeding | Cold
    Grinning | Sleepless | Tangled | Shivering | Blind | Patient | Restless | Grey
    Burnt | Stitched | Empty | Crawling | Sunken | Trembling | Watching | Quiet
    Endless | Borrowed | Second | Last | Unlit | Frozen | Buried | Kind
"""
)
FIGURES = _words(
    """
    Nurse | Orderly | Surgeon | Child | Visitor | Janitor | Patient | Chaplain | Mother
    Stranger | Twin | Porter | Intern | Mourner | Doll | Reflection | Shadow | Matron
    Father | Priest | Clown | Dog | Crowd | Choir | Bride | Soldier | Sleeper
    Drowned Man | Old Woman | Night Guard | Anaesthetist | Radiologist | Music Box
    Telephone | Wheelchair | Gurney | Television | Heart Monitor | Lullaby | Portrait
"""
)
PREPOSITIONS = ("in the", "by the", "under the", "behind the", "beyond the", "at the")
LOCALES = _words(
    """
    Morgue | Chapel | Laundry | Nursery | Boiler Room | Stairwell | Elevator Shaft
    Roof Garden | Records Office | Waiting Room | Operating Theatre | Cafeteria
    Isolation Ward | Pharmacy | Linen Closet | Car Park | Dental Wing | X-Ray Suite
    Maternity Ward | Psychiatric Wing | Cold Store | Day Room | Night Desk | Loading Bay
    Old Wing
"""
)
OWNERS = _words(
    """
    Dr. Marsh's | Sister Agnes's | The Porter's | Nobody's | Room 13's | The Night
    Grandmother's | Surplus | Hospital | Stolen | Dr. Okafor's | The Chaplain's
    A Child's | Borrowed | Old Ward | Emergency | Mislabelled | Spare | Dr. Lind's
    Veteran's
"""
)
ITEM_NOUNS = {
    "weapon": _words(
        """
        Scalpel | Fire Axe | Bone Saw | IV Stand | Crowbar | Mop Handle | Letter Opener
        Defibrillator | Walking Cane | Oxygen Tank | Tyre Iron | Surgical Drill
        """
    ),
    "clothing": _words(
        """
        Running Shoes | Lab Coat | Hospital Gown | Rubber Boots | Wool Scarf | Gloves
        Overalls | Raincoat | Slippers | Night Vision Goggles | Hairnet | Knee Brace
        """
    ),
    "food": _words(
        """
        Granola Bar | Jelly Cup | Cold Coffee | Apple | Tin of Peaches | Biscuits
        Chocolate | Sandwich | Soup Flask | Orange Juice | Crackers | Toffee
        """
    ),
    "medicine": _words(
        """
        Unlabeled Vial | Painkillers | Sedative | Bandage Roll | Smelling Salts
        Adrenaline Shot | Antiseptic | Sleeping Pills | Cough Syrup | Morphine Ampoule
        Splint | Iodine
        """
    ),
}
ROOM_NOUNS = _words(
    """
    Pathology Lab | Chapel | Boiler Room | Morgue | Laundry | Nursery | Pharmacy
    Records Office | Cafeteria | Operating Theatre | Waiting Room | Linen Closet
    Isolation Cell | X-Ray Suite | Day Room | Cold Store | Kitchen | Generator Room
    Archive | Shower Block | Break Room | Lecture Hall | Sluice Room | Scrub Room
    Mortuary Chapel
"""
)
WINGS = _words(
    """
    East Wing | West Wing | North Wing | Basement | Sub-Basement | Third Floor
    Fourth Floor | Annexe | Old Block | Children's Wing | Closed Ward | Top Floor
"""
)
QUIRK_NOUNS = _words(
    """
    Hoarder | Insomniac | Sleepwalker | Hypochondriac | Optimist | Coward | Hero | Liar
    Collector | Gambler | Penitent | Runner | Mourner | Skeptic | Believer | Wanderer
    Martyr | Survivor | Joker | Loner | Caretaker | Climber | Counter | Whistler
    Watcher
"""
)
QUIRK_QUALIFIERS = _words(
    """
    of the Night Shift | Who Counts Doors | in Room 9 | With Cold Hands | of the Roof
    Who Never Sleeps | From the Old Wing | Who Hums | With a Secret | in Disguise
    Who Remembers | of the Stairs | Without a Name | Who Keeps Score | of Ward C
"""
)

SUBJECTS = _words(
    """
    A figure | A child | A nurse | Someone | Something small | A voice | A shadow
    An old woman | A man in a gown | A dog | A wheelchair | A television | A telephone
    A music box | Your own reflection | A crowd of patients | A surgeon | A lullaby
"""
)
HAPPENINGS = _words(
    """
    waits at the end of the corridor
    is standing too still to be alive
    calls your name from the dark
    hums a tune you almost remember
    rolls slowly toward you
    knocks three times on the glass
    is counting under its breath
    watches you from the ceiling
    begins to cry without a sound
    is already behind you
    turns its head toward the light
    spells your name in the dust
    rings and rings and does not stop
    smiles with too many teeth
"""
)
WHERES = _words(
    """
    in the flickering hallway
    behind the nursery door
    at the top of the stairs
    inside the stalled elevator
    on the wet roof
    under the nurses' station
    in the next bed
    beside the broken window
    in the dark of the laundry
    where the map says there is no room
    by the chapel candles
    in the lift mirror
"""
)
RESULTS = _words(
    """
    It turns toward your voice, then unravels into grey smoke.
    With every step it fades, until only a smudge of ash is left.
    It is suddenly beside you, and then it is gone.
    The lights come back one by one.
    You wake on the floor with no idea how long it has been.
    The silence afterwards is worse.
    It whispers something kind, and you hate it for that.
    Your hands will not stop shaking.
    You laugh, and something laughs with you.
    The door you came through is no longer there.
    For a moment you remember who you were.
    It leaves a small, cold gift in your pocket.
    The smell of antiseptic fills your mouth.
    A bell rings somewhere far below.
    You are alone again. You think.
    The floor tilts, and the hallway rights itself.
"""
)
OPTION_TITLES = _words(
    """
    Call out to it | Walk toward it | Back away | Hide | Run | Close your eyes | Answer
    Stay quiet | Open the door | Hum along | Follow it | Pray | Switch on the light
    Search the room | Scream | Reach out | Count to ten | Look in the mirror
    Pick up the phone | Hold your breath | Cover your ears | Lie down | Take its hand
    Break the glass
"""
)
CONDITIONS = _words(
    """
    You end your turn carrying as many items as you may carry.
    You end your turn alone in a room.
    You end your turn on the roof.
    You end your turn with terror 4 or more.
    You end your turn next to another character.
    You end your turn having drawn no card.
    You end your turn in the elevator.
    You end your turn with health 1.
"""
)
RULES = (
    "Every pair after the first counts toward your carry limit.",
    "Show this card to the other players when you draw it.",
    "This card cannot be traded.",
    "If the elevator is stalled, treat this as the stairs.",
    "Another character in the room may resolve this instead of you.",
    "Keep this card face up in front of you.",
)
INTRODUCTIONS = (
    "The lights die floor by floor. Something in the dark is counting you.",
    "One of you is not who they remember being.",
    "Only one bed in the quiet ward is still empty.",
    "The hospital has two floors where there should be one.",
    "Somebody has come to collect you.",
)
GOALS = (
    "Everyone wins if at least two characters reach the roof alive.",
    "The player who revealed the third clue secretly draws the Impostor card.",
    "The first character to rest in the quiet ward wins; everyone else loses.",
    "Everyone wins when all mirrors on the map have been broken.",
    "Everyone wins if nobody is carried out before dawn.",
)

# ---------------------------------------------------------------- effects as data


@dataclass(frozen=True)
class Verb:
    """A verb line; `op` says what it does to the simulated state, when it does anything."""

    text: str
    op: tuple[str, str, int] | tuple[str, str] | None = None
    simple: bool = True


@dataclass(frozen=True)
class Say:
    """A `say` line."""

    text: str


@dataclass(frozen=True)
class Rule:
    """A `rule` line: text for people, not code."""

    text: str


@dataclass(frozen=True)
class Outcomes:
    """A `check` or `roll`: labelled outcomes, each (low, high or None for open, effects)."""

    head: str
    outcomes: tuple[tuple[int, int | None, tuple[Effect, ...]], ...]
    dice: int = 0  # how many d6 a roll forces; 0 for a check


@dataclass(frozen=True)
class If:
    """`if stat >= n { } else { }`; `stat` None means a condition the simulation cannot read."""

    condition: str
    then: tuple[Effect, ...]
    otherwise: tuple[Effect, ...] | None
    stat: str | None = None
    op: str = ">="
    value: int = 0
    elif_condition: str | None = None
    elif_then: tuple[Effect, ...] = ()


@dataclass(frozen=True)
class May:
    """`may VERB` or `may { ... }`."""

    effects: tuple[Effect, ...]
    inline: bool


@dataclass(frozen=True)
class Choose:
    """`choose { option ... }`."""

    options: tuple[tuple[str, tuple[Effect, ...]], ...]


@dataclass(frozen=True)
class Repeat:
    """`repeat N { }`."""

    times: int
    effects: tuple[Effect, ...]


Effect = Verb | Say | Rule | Outcomes | If | May | Choose | Repeat

# ---------------------------------------------------------------- rendering

_INDENT = "    "


def _label(low: int, high: int | None) -> str:
    if high is None:
        return f"{low}+"
    return str(low) if low == high else f"{low}..{high}"


def render_effects(effects: Sequence[Effect], depth: int) -> list[str]:
    """The card-language lines of a list of effects, indented `depth` levels."""
    pad = _INDENT * depth
    lines: list[str] = []
    for effect in effects:
        if isinstance(effect, Verb):
            lines.append(pad + effect.text)
        elif isinstance(effect, Say):
            lines.append(f'{pad}say "{effect.text}"')
        elif isinstance(effect, Rule):
            lines.append(f'{pad}rule "{effect.text}"')
        elif isinstance(effect, Outcomes):
            lines.append(f"{pad}{effect.head} {{")
            for low, high, body in effect.outcomes:
                inner = render_effects(body, 0)
                label = _label(low, high)
                if len(inner) == 1 and len(inner[0]) < 50:
                    lines.append(f"{pad}{_INDENT}{label} {{ {inner[0]} }}")
                else:
                    lines.append(f"{pad}{_INDENT}{label} {{")
                    lines.extend(render_effects(body, depth + 2))
                    lines.append(f"{pad}{_INDENT}}}")
            lines.append(pad + "}")
        elif isinstance(effect, If):
            lines.append(f"{pad}if {effect.condition} {{")
            lines.extend(render_effects(effect.then, depth + 1))
            if effect.elif_condition is not None:
                lines.append(f"{pad}}} else if {effect.elif_condition} {{")
                lines.extend(render_effects(effect.elif_then, depth + 1))
            if effect.otherwise is not None:
                lines.append(pad + "} else {")
                lines.extend(render_effects(effect.otherwise, depth + 1))
            lines.append(pad + "}")
        elif isinstance(effect, May):
            if effect.inline:
                first = effect.effects[0]
                assert isinstance(first, Verb)
                lines.append(f"{pad}may {first.text}")
            else:
                lines.append(pad + "may {")
                lines.extend(render_effects(effect.effects, depth + 1))
                lines.append(pad + "}")
        elif isinstance(effect, Choose):
            lines.append(pad + "choose {")
            for title, body in effect.options:
                lines.append(f'{pad}{_INDENT}option "{title}" {{')
                lines.extend(render_effects(body, depth + 2))
                lines.append(f"{pad}{_INDENT}}}")
            lines.append(pad + "}")
        else:
            lines.append(f"{pad}repeat {effect.times} {{")
            lines.extend(render_effects(effect.effects, depth + 1))
            lines.append(pad + "}")
    return lines


# ---------------------------------------------------------------- simulation, for tests


class _Unsupported(Exception):
    """The effects do something the little simulation does not model (checks, choices)."""


class _Unsafe(Exception):
    """A stat would leave its bounds, where the game's special rules would apply."""


@dataclass
class _State:
    health: int
    terror: int
    location: str | None = None
    dice: list[int] = field(default_factory=list)


def _simulate(effects: Sequence[Effect], state: _State, rng: random.Random) -> None:
    for effect in effects:
        if isinstance(effect, Say | Rule):
            continue
        if isinstance(effect, Verb):
            if not effect.simple:
                raise _Unsupported
            if effect.op is None:
                continue
            if effect.op[0] == "move":
                state.location = effect.op[1]
                continue
            _, stat, amount = effect.op  # type: ignore[misc]
            value = getattr(state, stat) + (amount if effect.op[0] == "gain" else -amount)
            if not (1 if stat == "health" else 0) <= value <= STAT_MAX:
                raise _Unsafe
            setattr(state, stat, value)
        elif isinstance(effect, Outcomes):
            if effect.dice == 0:
                raise _Unsupported
            faces = [rng.randint(1, 6) for _ in range(effect.dice)]
            state.dice.extend(faces)
            total = sum(faces)
            for low, high, body in effect.outcomes:
                if low <= total and (high is None or total <= high):
                    _simulate(body, state, rng)
                    break
        elif isinstance(effect, If):
            if effect.stat is None or effect.elif_condition is not None:
                raise _Unsupported
            value = getattr(state, effect.stat)
            holds = value >= effect.value if effect.op == ">=" else value <= effect.value
            if holds:
                _simulate(effect.then, state, rng)
            elif effect.otherwise is not None:
                _simulate(effect.otherwise, state, rng)
        elif isinstance(effect, Repeat):
            for _ in range(effect.times):
                _simulate(effect.effects, state, rng)
        else:
            raise _Unsupported


def make_test(
    rng: random.Random, effects: Sequence[Effect], step: str, what: str, depth: int
) -> list[str] | None:
    """A `test` block for effects reached by `step` (a choose or use line), or None."""
    for _ in range(6):
        health, terror = rng.randint(2, 5), rng.randint(0, 3)
        state = _State(health, terror)
        try:
            _simulate(effects, state, rng)
        except _Unsafe:
            continue
        except _Unsupported:
            return None
        given = [f"health {health}", f"terror {terror}"]
        rng.shuffle(given)
        if rng.random() < 0.4:
            given = given[:1] if given[0].startswith("terror") else given
        steps = ["given " + ", ".join(given), step]
        if state.dice:
            steps.append("dice " + " ".join(map(str, state.dice)))
        checks = []
        if any(g.startswith("terror") for g in given):
            checks.append(f"terror == {state.terror}")
        if any(g.startswith("health") for g in given):
            checks.append(f"health == {state.health}")
        if state.location is not None:
            checks.append(f"location == {state.location}")
        if rng.random() < 0.3:
            steps.append("expect " + " and ".join(checks))
        else:
            steps.extend(f"expect {c}" for c in checks)
        name = f"{what} with terror {terror}" + (f" and dice {state.dice[0]}" if state.dice else "")
        pad = _INDENT * depth
        if rng.random() < 0.3 and len(steps) <= 4:
            return [f'{pad}test "{name}" {{ ' + "; ".join(steps) + " }"]
        return [f'{pad}test "{name}" {{', *(pad + _INDENT + s for s in steps), pad + "}"]
    return None


# ---------------------------------------------------------------- random effects


class _Effects:
    """Draws random, valid effects from the Coma Ward vocabulary."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def sentence(self) -> str:
        """A line for `say`."""
        return self.rng.choice(RESULTS)

    def verb(self) -> Verb:
        """One verb line."""
        r = self.rng
        roll = r.random()
        if roll < 0.45:
            stat = r.choice(STATS)
            amount = r.choice((1, 1, 1, 2))
            gain = r.random() < (0.65 if stat == "terror" else 0.35)
            word = "gain" if gain else "lose"
            return Verb(f"{word} {stat} {amount}", (word, stat, amount))
        if roll < 0.60:
            deck = r.choice(("item", "item", "hallucination", "room"))
            if r.random() < 0.2:
                return Verb(f"draw {deck} {r.randint(2, 3)}")
            return Verb(f"draw {deck}")
        if roll < 0.70:
            place = r.choice(PLACES)
            return Verb(f"move to {place}", ("move", place))
        if roll < 0.78:
            return Verb("end turn")
        if roll < 0.85:
            return Verb("rummage", simple=False)
        if roll < 0.90:
            check = r.choice(CHECK_NAMES)
            return Verb(f"bonus next {check} {r.choice(('+1', '+1', '+2', '-1'))}")
        if roll < 0.95:
            return Verb("discard this")
        return Verb(f"draw hallucination {self.rng.randint(1, 2)}")

    def simple(self, count: int) -> tuple[Effect, ...]:
        """A few verbs, perhaps after a `say` line; `end turn` only ever comes last."""
        effects: list[Effect] = []
        if self.rng.random() < 0.5:
            effects.append(Say(self.sentence()))
        verbs = [self.verb() for _ in range(count)]
        ends = [v for v in verbs if v.text == "end turn"]
        effects.extend(v for v in verbs if v.text != "end turn")
        if self.rng.random() < 0.05:
            effects.append(Rule(self.rng.choice(RULES)))
        if ends:
            effects.append(ends[0])
        return tuple(effects)

    def partition(self, low: int, high: int, open_end: bool) -> list[tuple[int, int | None]]:
        """Cut low..high into 2-3 labelled ranges that cover it exactly once."""
        r = self.rng
        cuts = sorted(r.sample(range(low + 1, high + 1), k=min(r.choice((1, 2, 2)), high - low)))
        bounds = [low, *cuts, high + 1]
        parts: list[tuple[int, int | None]] = [
            (bounds[i], bounds[i + 1] - 1) for i in range(len(bounds) - 1)
        ]
        if open_end:
            parts[-1] = (parts[-1][0], None)
        return parts

    def check(self, depth: int) -> Outcomes:
        """`check STAT { 0..k {...} k+ {...} }`, covering every count of successes."""
        name = self.rng.choice(("focus", "focus", "focus", "dexterity", "strength", "focus +1"))
        if name == "focus" and self.rng.random() < 0.5:
            parts: list[tuple[int, int | None]] = [(0, 2), (3, None)]
        else:
            parts = self.partition(0, CHECK_POOLS[name], open_end=True)
        outcomes = tuple((low, high, self.body(depth + 1)) for low, high in parts)
        return Outcomes(f"check {name}", outcomes)

    def roll(self, depth: int) -> Outcomes:
        """`roll d6 { ... }` (sometimes 2d6), covering every face."""
        if self.rng.random() < 0.12:
            parts = self.partition(2, 12, open_end=self.rng.random() < 0.5)
            outcomes = tuple((low, high, self.body(depth + 1)) for low, high in parts)
            return Outcomes("roll 2d6", outcomes, dice=2)
        parts = self.partition(1, 6, open_end=self.rng.random() < 0.3)
        outcomes = tuple((low, high, self.body(depth + 1)) for low, high in parts)
        return Outcomes("roll d6", outcomes, dice=1)

    def if_stmt(self, depth: int) -> If:
        """`if terror >= 4 { } else { }` and the like."""
        r = self.rng
        otherwise = self.body(depth + 1) if r.random() < 0.7 else None
        pick = r.random()
        if pick < 0.6:
            stat = r.choice(STATS)
            op, value = (">=", r.randint(3, 4)) if stat == "terror" else ("<=", r.randint(1, 2))
            return If(f"{stat} {op} {value}", self.body(depth + 1), otherwise, stat, op, value)
        if pick < 0.75:
            return If(
                "phenomenon revealed",
                self.body(depth + 1),
                otherwise,
                elif_condition=f"clues found == {r.randint(1, 3)}",
                elif_then=(Verb("reveal phenomenon"),),
            )
        condition = r.choice(
            (
                f"location == {r.choice(PLACES)}",
                "not phenomenon revealed",
                "items carried >= carry limit",
                f"terror >= {r.randint(2, 4)} and health <= {r.randint(1, 3)}",
                f"clues found == 0 or terror == {STAT_MAX}",
            )
        )
        return If(condition, self.body(depth + 1), otherwise)

    def body(self, depth: int) -> tuple[Effect, ...]:
        """The effects of one option or block: mostly verbs, some control forms."""
        r = self.rng
        if depth >= 3 or r.random() < 0.55:
            return self.simple(r.choice((1, 1, 2, 2, 3)))
        effects: list[Effect] = []
        if r.random() < 0.6:
            effects.append(Say(self.sentence()))
        pick = r.random()
        if pick < 0.30:
            effects.append(self.check(depth))
        elif pick < 0.55:
            effects.append(self.roll(depth))
        elif pick < 0.75:
            effects.append(self.if_stmt(depth))
        elif pick < 0.85:
            effects.extend(self.simple(1))
            effects.append(May((Verb("rummage", simple=False),), inline=True))
        elif pick < 0.90:
            effects.append(May(self.simple(2), inline=False))
        elif pick < 0.96:
            titles = r.sample(OPTION_TITLES, k=2)
            effects.append(Choose(tuple((t, self.simple(r.randint(1, 2))) for t in titles)))
        else:
            effects.append(Repeat(2, (Verb("gain terror 1", ("gain", "terror", 1)),)))
        return tuple(effects)


# ---------------------------------------------------------------- cards


class _Titles:
    """Unique card titles, drawn from per-kind word lists."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def unique(self, make: Callable[[], str]) -> str:
        """A title `make` draws that no card has yet; numbered if the lists run dry."""
        for _ in range(40):
            title = make()
            if title not in self.seen:
                self.seen.add(title)
                return title
        base = make()
        for number in itertools.count(2):
            title = f"{base} No. {number}"
            if title not in self.seen:
                self.seen.add(title)
                return title
        raise AssertionError("unreachable")


def _card(kind: str, title: str, body: list[str], variant: int | None = None) -> str:
    header = f'{kind} "{title}"' + (f" variant {variant}" if variant is not None else "")
    return "\n".join([header + " {", *body, "}"]) + "\n"


class _Cards:
    """Writes the text of each kind of card."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.effects = _Effects(rng)
        self.titles = _Titles()

    def situation(self) -> str:
        """A narrator's situation line."""
        r = self.rng
        return f"{r.choice(SUBJECTS)} {r.choice(HAPPENINGS)} {r.choice(WHERES)}."

    def hallucinations(self, variants: int) -> list[str]:
        """One hallucination, or a group of numbered variants that look alike."""
        r = self.rng
        title = self.titles.unique(
            lambda: (
                f"The {r.choice(ADJECTIVES)} {r.choice(FIGURES)} "
                f"{r.choice(PREPOSITIONS)} {r.choice(LOCALES)}"
            )
        )
        situation = self.situation()
        option_titles = r.sample(OPTION_TITLES, k=r.choice((2, 2, 3, 3, 3, 4)))
        copies = r.randint(2, 3) if r.random() < 0.15 else None
        cards = []
        for number in range(1, variants + 1):
            body = [f'{_INDENT}situation "{situation}"']
            if copies is not None:
                body.append(f"{_INDENT}copies {copies}")
            options = [(t, self.effects.body(1)) for t in option_titles]
            for option_title, effects in options:
                body.append("")
                body.append(f'{_INDENT}option "{option_title}" {{')
                body.extend(render_effects(effects, 2))
                body.append(_INDENT + "}")
            if r.random() < 0.25:
                option_title, effects = r.choice(options)
                test = make_test(r, effects, f'choose "{option_title}"', option_title.lower(), 1)
                if test is not None:
                    body.append("")
                    body.extend(test)
            cards.append(_card("hallucination", title, body, number if variants > 1 else None))
        return cards

    def item(self) -> str:
        """One item: a weapon, clothing, food or medicine, with its properties and blocks."""
        r = self.rng
        item_type = r.choice(("weapon", "weapon", "clothing", "food", "medicine"))
        title = self.titles.unique(
            lambda: f"{r.choice(OWNERS)} {r.choice(ADJECTIVES)} {r.choice(ITEM_NOUNS[item_type])}"
        )
        body = [f"{_INDENT}type {item_type}"]
        if r.random() < 0.25:
            body.append(f"{_INDENT}copies {r.randint(2, 4)}")
        use: tuple[Effect, ...] | None = None
        if item_type == "weapon":
            hands = r.choice((1, 1, 2))
            body.append(f"{_INDENT}hands {hands}")
            body.append(f"{_INDENT}attacks with {r.choice(('strength', 'dexterity'))}")
            body.append(f"{_INDENT}attack +{r.randint(hands, hands + 2)}")
            body.append(f"{_INDENT}damage {r.randint(1, hands + 1)}")
        elif item_type == "clothing":
            body.append(_INDENT + "while carried {")
            bonus = r.choice(("dexterity +1", "strength +1", "focus +1", "dexterity +2"))
            body.append(_INDENT * 2 + bonus)
            if r.random() < 0.3:
                body.append(f'{_INDENT * 2}rule "{r.choice(RULES)}"')
            body.append(_INDENT + "}")
        elif item_type == "food":
            amount = r.choice((1, 1, 2))
            use = (Verb("discard this"), Verb(f"gain health {amount}", ("gain", "health", amount)))
            if r.random() < 0.5:
                use += (Verb("lose terror 1", ("lose", "terror", 1)),)
        else:
            body.append(f"{_INDENT}charges {r.randint(1, 3)}")
            use = (Verb("discard this"), self.effects.roll(2))
        if use is not None:
            body.append(_INDENT + "use {")
            body.extend(render_effects(use, 2))
            body.append(_INDENT + "}")
        if r.random() < 0.1:
            body.append(_INDENT + "when drawn {")
            body.extend(render_effects(self.effects.simple(1), 2))
            body.append(_INDENT + "}")
        if r.random() < 0.1:
            body.append(f'{_INDENT}rule "{r.choice(RULES)}"')
        if use is not None and r.random() < 0.3:
            test = make_test(r, use, f'use "{title}"', f"using the {item_type}", 1)
            if test is not None:
                body.append("")
                body.extend(test)
        return _card("item", title, body)

    def room(self) -> str:
        """One room: its tile number and a trigger block or two."""
        r = self.rng
        title = self.titles.unique(
            lambda: f"{r.choice(ADJECTIVES)} {r.choice(ROOM_NOUNS)}, {r.choice(WINGS)}"
        )
        body = [f"{_INDENT}number {r.randint(1, 99)}"]
        headers = (
            "when revealed",
            "first time you end your move here",
            "when you end your move here",
        )
        for header in r.sample(headers, k=r.choice((1, 1, 2))):
            body.append(f"{_INDENT}{header} {{")
            body.extend(render_effects(self.effects.body(2), 2))
            body.append(_INDENT + "}")
        return _card("room", title, body)

    def quirk(self) -> str:
        """One quirk: its secret condition and the pills it earns."""
        r = self.rng
        title = self.titles.unique(
            lambda: (
                f"The {r.choice(ADJECTIVES)} {r.choice(QUIRK_NOUNS)} {r.choice(QUIRK_QUALIFIERS)}"
            )
        )
        check = r.choice(
            (
                "items carried >= carry limit",
                f"terror >= {r.randint(3, 5)}",
                f"location == {r.choice(PLACES)}",
                f"health <= {r.randint(1, 2)}",
            )
        )
        body = [
            f'{_INDENT}condition "{r.choice(CONDITIONS)}"',
            _INDENT + "when your turn ends {",
            f"{_INDENT * 2}if {check} {{",
            f"{_INDENT * 3}place pill on this",
            _INDENT * 2 + "}",
            _INDENT + "}",
        ]
        if r.random() < 0.7:
            body += [
                _INDENT + "when phenomenon revealed {",
                f"{_INDENT * 2}if pills on this >= {r.randint(1, 3)} {{",
                *render_effects(self.effects.simple(1), 3),
                _INDENT * 2 + "}",
                _INDENT + "}",
            ]
        return _card("quirk", title, body)

    def clue(self, letter: str) -> str:
        """The clue card of one letter of the phenomenon chart."""
        bonus = self.effects.simple(1)
        body = [
            f"{_INDENT}letter {letter}",
            _INDENT + "when drawn {",
            *render_effects(
                (
                    If(
                        "phenomenon revealed",
                        (Verb("discard this"), Verb("draw item")),
                        bonus,
                        elif_condition=f"clues found == {len(CLUE_LETTERS)}",
                        elif_then=(Verb("reveal phenomenon"),),
                    ),
                ),
                2,
            ),
            _INDENT + "}",
        ]
        return _card("clue", f"Clue {letter}", body)

    def phenomenon(self, number: int, order: Sequence[str]) -> str:
        """One entry of the phenomenon chart, with its own clue order."""
        r = self.rng
        title = self.titles.unique(lambda: f"The {r.choice(ADJECTIVES)} {r.choice(LOCALES)}")
        body = [
            f"{_INDENT}number {number}",
            f"{_INDENT}clue order {' '.join(order)}",
            f"{_INDENT}mode {MODES[number % len(MODES)]}",
            f'{_INDENT}introduction "{INTRODUCTIONS[number % len(INTRODUCTIONS)]}"',
            f'{_INDENT}goal "{GOALS[number % len(GOALS)]}"',
            f'{_INDENT}rule "{r.choice(RULES)}"',
        ]
        return _card("phenomenon", title, body)


# ---------------------------------------------------------------- the pack

SHARES = (("hallucination", 0.5), ("item", 0.25), ("room", 0.15), ("quirk", 0.10))
"""How the cards outside the chart split between kinds."""


def _split(total: int, shares: Sequence[float], minimum: int = 0) -> list[int]:
    """Split `total` by `shares`, largest remainders first, each part at least `minimum`."""
    weight = sum(shares)
    exact = [total * s / weight for s in shares]
    parts = [max(minimum, int(x)) for x in exact]
    order = sorted(range(len(shares)), key=lambda i: exact[i] - int(exact[i]), reverse=True)
    i = 0
    while sum(parts) < total:
        parts[order[i % len(order)]] += 1
        i += 1
    while sum(parts) > total:
        biggest = max(range(len(parts)), key=lambda j: parts[j])
        parts[biggest] -= 1
    return parts


def pack_cards(cards: int, seed: int) -> dict[str, list[str]]:
    """The text of every card of a pack of `cards` cards, by kind, in file order."""
    rng = random.Random(seed)
    make = _Cards(rng)
    by_kind: dict[str, list[str]] = {kind: [] for kind, _ in SHARES}
    chart: list[str] = []
    if cards >= 40:
        chart = [make.clue(letter) for letter in CLUE_LETTERS]
        orders = list(itertools.permutations(CLUE_LETTERS))
        rng.shuffle(orders)
        chart += [make.phenomenon(i + 1, o) for i, o in enumerate(orders[:MAX_PHENOMENA])]
    counts = _split(cards - len(chart), [share for _, share in SHARES])
    for (kind, _), count in zip(SHARES, counts, strict=True):
        out = by_kind[kind]
        while len(out) < count:
            if kind == "hallucination":
                room = count - len(out)
                variants = rng.choice((2, 2, 2, 3)) if rng.random() < 0.1 else 1
                out.extend(make.hallucinations(min(variants, room)))
            elif kind == "item":
                out.append(make.item())
            elif kind == "room":
                out.append(make.room())
            else:
                out.append(make.quirk())
    by_kind["item"] = chart + by_kind["item"]
    return by_kind


def _chunks(items: list[str], parts: int) -> list[list[str]]:
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(items[start:end])
        start = end
    return out


_LATER_VARIANT = re.compile(r'^\w+ "[^"\n]*" variant (?!1 )\d+ \{')


def _keep_variants_together(chunks: list[list[str]]) -> list[list[str]]:
    """Move a variant card whose group began in the previous file into that file."""
    for i in range(1, len(chunks)):
        while len(chunks[i]) > 1 and _LATER_VARIANT.match(chunks[i][0]):
            chunks[i - 1].append(chunks[i].pop(0))
    return chunks


def generate_pack(folder: Path, cards: int = 10_000, files: int = 50, seed: int = 0) -> Path:
    """Write a valid coma-ward pack of `cards` cards in `files` .card files into a new folder."""
    if cards < 1 or files < 1:
        raise ValueError("a pack needs at least one card and one file")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pack.yaml").write_text(
        "# A generated benchmark pack; see bench/generate.py.\n"
        "pack: bench-pack\n"
        f"title: Generated benchmark pack ({cards} cards, seed {seed})\n"
        "version: 0.1.0\n"
        "ruleset: coma-ward\n",
        encoding="utf-8",
    )
    by_kind = {kind: texts for kind, texts in pack_cards(cards, seed).items() if texts}
    named: list[tuple[str, list[str]]] = []
    if files >= len(by_kind):
        kinds = list(by_kind)
        per_kind = _split(files, [len(by_kind[k]) for k in kinds], minimum=1)
        for kind, count in zip(kinds, per_kind, strict=True):
            chunks = _keep_variants_together(_chunks(by_kind[kind], min(count, len(by_kind[kind]))))
            named += [(f"{kind}s-{i + 1:02d}.card", c) for i, c in enumerate(chunks)]
    else:
        everything = [text for texts in by_kind.values() for text in texts]
        chunks = _keep_variants_together(_chunks(everything, files))
        named = [(f"cards-{i + 1:02d}.card", c) for i, c in enumerate(chunks)]
    for name, texts in named:
        header = f"# {name}: {len(texts)} generated cards (seed {seed}).\n\n"
        (folder / name).write_text(header + "\n".join(texts), encoding="utf-8")
    return folder


def main() -> None:
    """Command line: write a generated pack into a folder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    generate_pack(args.folder, args.cards, args.files, args.seed)
    print(f"wrote {args.cards} cards to {args.folder}")


if __name__ == "__main__":
    main()
