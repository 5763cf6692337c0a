"""Lobotomy's monsters in full: their turn (moving, spawning, attacking), attack tables, their
keywords, the special monsters and mini-bosses of the movement cards' stars, and the Nemesis.

What a monster card says as data is read here: its numbers (the actor kind's `property:`
stats), its keywords (`is runner memorable`), the keywords that take a number or a symbol or
more than one word (`smash 2`, `immune to fire`, `double attack`, `leech soul`, `armed to the
teeth`, `eternal grudge`), its star (`blue star`, `red star`) and its attack table: a `when it
attacks` block whose `roll d6` picks the row, each row a `strike` (the attack test of the
monster on the character it attacks: `strike 4 fire`, or `check strike 4 { ... }` for what a
hit brings). A monster with no table strikes with the dice of its stat line. What data cannot
say runs here; the readings where the rulebook is silent are in docs/lobotomy.md. The line
numbers are the rulebook's text's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from runtime.cards import CardDef, CardInstance, Effect
from runtime.checks import Branch, CheckCall, CheckProcedure, Result, Rolled, named_arm
from runtime.dice import DiceError
from runtime.game import Game, RunawayError, RunEnded
from runtime.games.lobotomy_abilities import defend
from runtime.games.lobotomy_attack import (
    ATTACK,
    THAWED,
    WORN,
    PreparedAttack,
    attack_bounds,
    attack_told,
    damage_after,
    freeze,
    prepare_attack,
    recovering,
    target_of,
    thaws,
    wear_out,
)
from runtime.games.lobotomy_convert import converted
from runtime.games.lobotomy_dice import (
    Attack,
    Target,
    attack_distribution,
    attack_wear_distribution,
    roll_attack,
    roll_attack_on_each,
)
from runtime.games.lobotomy_inventory import wound
from runtime.games.lobotomy_ranged import bonded, in_range, keeps_range, reach
from runtime.games.lobotomy_tokens import monster_step
from runtime.rules import GameRules, ProcedureRule
from runtime.state import Actor
from runtime.world import Phase

MONSTER = "monster"
HEALTH = "health"
HP = "hp"
WEAPON = "weapon"
SKILL = "skill"
WEAPON_DECK = "weapons"
MEMORY_DECK = "memory"
"""The deck a memorable monster's killers draw from (1119); without one, the log says so."""

ATTACK_PROCEDURE = "lobotomy-attack"
STRIKE_PROCEDURE = "lobotomy-strike"
IMAGINATION = "imagination"
"""The ruleset's check an unholy monster's attacker must pass (1125)."""

ATTACKS = "monster_attacks"
"""The trigger of a monster card's attack table: the monster attacks."""

DEFENSE_DIE = "defense die"
"""The name under which a waiting Defense Die is kept among an actor's bonuses."""

TANTRUM = "tantrum"
"""The flag of a character drawing this monsters' turn's attacks on their space."""

WOKE = "woke in confinement"
"""The flag of a character who died in this monsters' attack step: waking in a cell of
solitary confinement, they are not attacked again in it (a reading: the board's central
piece is one space, where the rulebook's cells are each a space of their own)."""

OVERWHELM = "overwhelm"
"""The name under which a monster's Overwhelm dice are kept among its bonuses while it attacks."""

STUNNED = "stunned"
FROST = "frost"
"""The flag `stunned:<name>` of a character or monster knocked down until it gets up."""

HAUNTS = "haunts"
"""The flag `haunts:<Nemesis>:<character>`: whom a Nemesis moves towards and attacks."""

PRIORITY = ("boss", "elite", "basic")
"""Which monster on a space attacks first (rulebook, Monsters - Priority)."""

SYMBOLS = ("fire", "holy", "ghostly", "precision", "critical")
"""The attack symbols an Attack knows, by their field names: what an immunity can take away."""

KEYWORD_SYMBOLS = {"fiery": "fire", "holy": "holy", "ghostly": "ghostly"}
"""The keywords that give a monster's stat-line attack its symbol."""

BOSS, ELITE, RUNNER, UNHOLY, MEMORABLE, NEMESIS = (
    "boss",
    "elite",
    "runner",
    "unholy",
    "memorable",
    "nemesis",
)
IMMUNE, SMASH, DOUBLE, LEECH, ARMED, GRUDGE, STAR = (
    "immune",
    "smash",
    "double",
    "leech",
    "armed",
    "grudge",
    "star",
)
"""The monster card's properties (the ruleset's `properties:` names) this module reads."""

MINI_BOSS = "red"
"""The star of a mini-boss: one on the board at a time (1039); any other star is a special
monster's, of which there may be any number."""

NEMESIS_DICE = 3
"""The dice a Nemesis adds to the weapon of its target's it attacks with (1055)."""

FISTS_DICE = 3
"""Every character can attack bare-handed with three dice (rulebook, Attack Action); so does a
Nemesis whose target has no weapon, with its three more."""

TIE_ROLLS = 5
"""How many times characters tied for the lowest die roll again for a Nemesis (then the first
seat among them is its target)."""

THIRD_SPAWN_PLAYERS = 5
"""A movement card's third monster comes only with this many characters or more (411)."""

PROBE_STEPS = 500
"""The steps a card's `use` may take while its attack's numbers are read off it."""


# ---------------------------------------------------------------- a monster's card


def prop(actor: Actor | None, name: str) -> Any:
    """A property of the card an actor is, if it has that card and that property."""
    if actor is None or actor.sheet is None:
        return None
    return actor.sheet.definition.properties.get(name)


def words(value: Any) -> list[str]:
    """A property's words: one word or a list of them."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [str(word) for word in value]
    return []


def procedure_rule(game: Game, procedure: str) -> ProcedureRule | None:
    """The ruleset's check that a procedure of this module runs."""
    return next((r for r in game.rules.procedures.values() if r.procedure == procedure), None)


def _priority(monster: Actor) -> int:
    return next((i for i, word in enumerate(PRIORITY) if word in monster.keywords), len(PRIORITY))


def _wound(actor: Actor) -> str:
    """The stat a monster's attack takes off: a character's health, a converted monster's HP."""
    return HP if actor.kind == MONSTER else HEALTH


def _hurt(game: Game, victim: Actor, damage: int) -> None:
    """A monster's attack's damage: a character's armor takes it first, a converted monster's
    HP takes it all."""
    if victim.kind == MONSTER:
        game.change(HP, -damage, victim)
    else:
        wound(game, victim, damage)


def _friends(game: Game, place: str) -> list[Actor]:
    """The characters on a space and the monsters they control there (1135)."""
    mine = [m for m in game.actors_of(MONSTER, place) if converted(game, m)]
    return [*_characters(game, place), *mine]


def _characters(game: Game, place: str | None = None) -> list[Actor]:
    return [c for c in game.actors_of(game.seated_kind, place) if c.location is not None]


def _flag(game: Game, *parts: object) -> str:
    return ":".join(str(part) for part in parts)


# ---------------------------------------------------------------- the Nemesis


def haunted_by(game: Game, monster: Actor) -> Actor | None:
    """The character a Nemesis haunts, if it is one and has picked its target."""
    prefix = _flag(game, HAUNTS, monster.name) + ":"
    names = {flag[len(prefix) :] for flag in game.state.flags if flag.startswith(prefix)}
    return next((c for c in game.state.players if c.name in names), None)


def untouchable(game: Game, actor: Actor, monster: Actor) -> bool:
    """Whether a character can neither target nor affect this monster: a Nemesis haunting
    someone else (1051)."""
    haunted = haunted_by(game, monster)
    return haunted is not None and haunted is not actor


def _haunt(game: Game, nemesis: Actor) -> None:
    """Every character rolls a die; the lowest is haunted (ties roll again); the Nemesis takes
    its target's numbers improved by one, and 1 AP (1047-1051)."""
    chosen = _characters(game) or list(game.state.players)
    for _ in range(TIE_ROLLS):
        if len(chosen) < 2:
            break
        rolls = {c.name: game.roll_dice(1, 6).total for c in chosen}
        game.event("roll", "for the Nemesis: " + ", ".join(f"{n} {r}" for n, r in rolls.items()))
        low = min(rolls.values())
        chosen = [c for c in chosen if rolls[c.name] == low]
    victim = min(chosen, key=lambda c: c.seat or 0)
    game.state.flags.add(_flag(game, HAUNTS, nemesis.name, victim.name))
    health = victim.stats.rules.get(HEALTH)
    numbers = {
        HP: (health.start if health else 1) + 1,
        "ap": 1,
        "ar": victim.stats.get("ar") - 1,
        "defense": victim.stats.get("defense") + 1,
    }
    for stat, value in numbers.items():
        if stat in nemesis.stats.rules:
            nemesis.stats.set(stat, value)
    rule = nemesis.stats.rules.get(HP)
    if rule is not None:
        nemesis.stats.rules[HP] = replace(rule, high=nemesis.stats.get(HP))
    game.event("haunt", f"{nemesis.name} haunts {victim.name}", actor=nemesis.name)


# ---------------------------------------------------------------- coming into play, dying


def monster_spawned(game: Game, monster: Actor) -> None:
    """A monster comes into play: armed to the teeth, it takes the top weapon (1141); a
    Nemesis picks whom it haunts."""
    if monster.kind != MONSTER:
        return
    if prop(monster, ARMED):
        pile = game.state.decks.get(WEAPON_DECK) or []
        if pile:
            weapon = game.from_deck(pile.pop())
            monster.items.append(weapon)
            game.event("arm", f"{monster.name} takes {weapon.definition.label}", uid=weapon.uid)
        else:
            game.event("arm", f"{monster.name} finds no weapon to take")
    if NEMESIS in monster.keywords:
        _haunt(game, monster)


def monster_dies(game: Game, monster: Actor) -> None:
    """A monster's final blow: with an eternal grudge it rises again; else its killers may draw
    memories (memorable), its weapon goes to a killer on its space, a star monster is out of
    the game, and it leaves the board."""
    if prop(monster, GRUDGE) and _flag(game, GRUDGE, monster.name) not in game.state.flags:
        _rise_again(game, monster)
        return
    killer = game.actor if game.actor.kind == game.seated_kind else None
    if MEMORABLE in monster.keywords:
        here = _characters(game, monster.location) if monster.location else []
        rewarded = [*here, *([killer] if killer is not None and killer not in here else [])]
        for character in rewarded:
            _draw_for(game, character, MEMORY_DECK)
    for weapon in [c for c in monster.items if c.kind == WEAPON]:
        monster.items.remove(weapon)
        if killer is not None and killer.location == monster.location:
            killer.items.append(weapon)
            game.event("take", f"{killer.name} takes {weapon.definition.label}", uid=weapon.uid)
        else:
            game.discard(weapon)
    if isinstance(prop(monster, STAR), str):
        game.state.flags.add(_flag(game, "defeated", monster.sheet.title if monster.sheet else ""))
    monster.location = None
    if monster.sheet is not None:
        game.discard(monster.sheet)
    if game.state.target is monster:
        game.state.target = None


def _rise_again(game: Game, monster: Actor) -> None:
    """Eternal grudge (1123): the monster is whole again at a random space, no final blow."""
    kind = game.rules.world.actors[MONSTER]
    monster.stats.dead = False
    for stat, name in kind.starts.items():
        value = prop(monster, name)
        if isinstance(value, int):
            monster.stats.set(stat, value)
    monster.location = random_place(game)
    game.event("rise", f"{monster.name} rises again at {monster.location}", actor=monster.name)


def _draw_for(game: Game, character: Actor, deck: str) -> None:
    """A character other than the current player draws (the draw goes to whose turn it is)."""
    seat = game.state.current
    if character.seat is not None:
        game.state.current = character.seat
    try:
        game.draw(deck)
    finally:
        game.state.current = seat


def lift_grudge(game: Game, card: CardInstance) -> None:
    """`lift the target's grudge`: the next final blow on it is final (1123)."""
    target = game.state.target
    if target is not None and prop(target, GRUDGE):
        game.state.flags.add(_flag(game, GRUDGE, target.name))
        game.event("grudge", f"{target.name}'s grudge is lifted")


def stun(game: Game, card: CardInstance) -> None:
    """`stun the target`: knocked down, it has 0 Defense until it gets up, paying 1 AP; a boss
    cannot be stunned (1115, 715)."""
    target = game.state.target
    if target is None or target.dead:
        return
    if BOSS in target.keywords:
        game.event("stun", f"{target.name} is a boss: it cannot be stunned")
        return
    game.state.flags.add(_flag(game, STUNNED, target.name))
    game.event("stun", f"{target.name} is stunned", actor=target.name)


def _gets_up(game: Game, monster: Actor) -> bool:
    """A stunned monster gets up, which costs it 1 AP."""
    flag = _flag(game, STUNNED, monster.name)
    if flag not in game.state.flags:
        return False
    game.state.flags.discard(flag)
    game.event("stun", f"{monster.name} gets up", actor=monster.name)
    return True


# ---------------------------------------------------------------- spawning (step 6)


def random_place(game: Game) -> str:
    """A space of the board picked with the dice (the rulebook's randomisation)."""
    places = [p for p in game.rules.world.board.places if p != game.rules.start_place]
    if not places:
        return game.rules.start_place or "nowhere"
    return places[game.roll_dice(1, len(places)).total - 1]


def _starred(card: CardDef | CardInstance) -> bool:
    definition = card.definition if isinstance(card, CardInstance) else card
    return isinstance(definition.properties.get(STAR), str)


def _aside(game: Game, card: CardInstance) -> None:
    game.event("aside", f"{card.definition.label} waits beside the board for its star")


def spawn_monster(game: Game, card: CardInstance, *, place: str | None = None) -> None:
    """`spawn monster [at A3]`: the top monster card comes onto the board (a star monster's
    card waits beside the board for a star instead, 1035)."""
    spawn_top_monster(game, place)


def spawn_top_monster(game: Game, place: str | None = None) -> None:
    """The top monster card of the deck onto the board, at that space or one at random."""
    game.step()
    pile = game.state.decks.get(MONSTER) or []
    while pile and _starred(pile[-1]):
        _aside(game, pile.pop())
    if not pile:
        game.event("spawn", "the monster deck is empty")
        return
    game.spawn(MONSTER, place or random_place(game), game.from_deck(pile.pop()))


def monster_drawn(game: Game, card: CardInstance) -> bool:
    """A monster card drawn comes onto the board at a random space (a star monster's waits)."""
    if _starred(card):
        _aside(game, card)
        return True
    game.spawn(MONSTER, random_place(game), card)
    return True


def spawn_star(game: Game, star: str) -> bool:
    """A movement card's star (1037-1039): a monster of that star, the highest of a d6 each
    (ties: the first in the pack); False when the card's own monsters come instead: a second
    mini-boss, or none of that star left."""
    alive = [m for m in game.actors_of(MONSTER) if m.location is not None]
    if star == MINI_BOSS and any(prop(m, STAR) == MINI_BOSS for m in alive):
        game.event("spawn", "a mini-boss is on the board already: the card's monsters come")
        return False
    standing = {m.sheet.title for m in alive if m.sheet is not None}
    waiting = [
        c
        for c in game.cards
        if c.kind == MONSTER
        and c.properties.get(STAR) == star
        and c.title not in standing
        and _flag(game, "defeated", c.title) not in game.state.flags
    ]
    if not waiting:
        game.event("spawn", f"no {star}-star monster is left: the card's monsters come")
        return False
    chosen = waiting[0]
    if len(waiting) > 1:
        rolls = [game.roll_dice(1, 6).total for _ in waiting]
        chosen = waiting[rolls.index(max(rolls))]
    game.event("spawn", f"a {star} star: {chosen.label}")
    game.spawn(MONSTER, random_place(game), chosen)
    return True


def spawn_monsters(game: Game, phase: Phase) -> None:
    """Step 6: the monsters the movement card names appear at random spaces, or its star's."""
    card = game.state.in_play.get("movement")
    if card is None:
        return
    star = card.definition.properties.get(STAR)
    if isinstance(star, str) and spawn_star(game, star):
        return
    count = card.definition.properties.get("spawns")
    count = count if isinstance(count, int) else 0
    if count > 2 and len(game.state.players) < THIRD_SPAWN_PLAYERS:
        game.event("spawn", f"fewer than {THIRD_SPAWN_PLAYERS} characters: no third monster")
        count = 2
    for _ in range(count):
        spawn_monster(game, card)


# ---------------------------------------------------------------- moving (step 5)


def _quarry(game: Game, monster: Actor) -> list[Actor]:
    """The characters a monster goes after, and the monsters they control: all of them, a
    Nemesis its own."""
    haunted = haunted_by(game, monster)
    if haunted is not None:
        return [haunted] if haunted.location is not None and not haunted.dead else []
    mine = [m for m in game.actors_of(MONSTER) if m.location is not None and converted(game, m)]
    return [*_characters(game), *mine]


def _quarter(place: str) -> str:
    """The quarter of a space: its name without the number (`A12` is in `A`)."""
    return place.rstrip("0123456789")


def _run(game: Game, monster: Actor, quarry: list[Actor]) -> bool:
    """Runner (1121): a character in sight, it is on their space at once. Line of sight is not
    modelled: a runner sees the characters of its own quarter."""
    here = monster.location or ""
    seen = [c for c in quarry if c.location and _quarter(c.location) == _quarter(here)]
    if not seen or any(c.location == here for c in quarry):
        return False
    board = game.rules.world.board
    nearest = min(seen, key=lambda c: (board.distance(here, c.location or "") or 0, c.seat or 0))
    game.step()
    monster.location = nearest.location
    game.event("move", f"{monster.name} runs: {here} → {monster.location}", actor=monster.name)
    return True


def move_monsters(game: Game, phase: Phase) -> None:
    """Step 5: each monster spends its AP moving towards the nearest character (a Nemesis
    towards its own); a runner is at once on the space of one it sees; a stunned one spends
    1 AP getting up; one with Smash on a character's space smashes before it moves."""
    for monster in game.actors_of(MONSTER):
        if monster.location is None or converted(game, monster):  # a character's (1135)
            continue
        smash(game, monster)
        moves = max(monster.stats.get("ap"), 0) - (1 if _gets_up(game, monster) else 0)
        moves -= 1 if thaws(game, monster) else 0
        if RUNNER in monster.keywords and _run(game, monster, _quarry(game, monster)):
            continue
        for _ in range(moves):
            characters = _quarry(game, monster)
            here = monster.location
            if reach(monster) and characters:  # ranged (819-821): to its range, not nearer
                near = in_range(game, monster, characters)
                step = keeps_range(game, monster, near) if near else None
                if near and step is None:
                    break
            elif not characters or any(c.location == here for c in characters):
                break
            else:
                step = None
            step = step or monster_step(game, monster, characters)  # round the shut doors
            if step is None:
                break
            game.step()
            monster.location = step
            game.event("move", f"{monster.name}: {here} → {step}", actor=monster.name, to=step)


# ---------------------------------------------------------------- attacking (step 7)


def smash(game: Game, monster: Actor) -> None:
    """Smash (x) (1139): once a monsters' turn, before it moves or attacks, x dice at every
    character on its space, rolled once, each taking off their own Defense."""
    dice = monster.stats.get(SMASH) if SMASH in monster.stats.rules else 0
    flag = _flag(game, SMASH, game.state.round, monster.name)
    victims = _victims(game, monster, monster.location)
    if dice <= 0 or flag in game.state.flags or not victims:
        return
    game.step()
    game.state.flags.add(flag)
    attack = Attack(dice, monster.stats.get("ar"))
    rolled = roll_attack_on_each(attack, [target_of(game, v, {}) for v in victims], game.dice)
    game.event("attack", f"{monster.name} smashes: {rolled.text}", attacker=monster.name)
    for victim, damage in zip(victims, rolled.outcome, strict=True):
        if damage:
            _hurt(game, victim, damage)


def _victims(game: Game, monster: Actor, place: str | None) -> list[Actor]:
    """The characters a monster may attack on a space, and the monsters they control there: a
    Nemesis only its own (1053)."""
    if place is None:
        return []
    here = [c for c in _friends(game, place) if f"{WOKE}:{c.name}" not in game.state.flags]
    haunted = haunted_by(game, monster)
    return [haunted] if haunted in here else [] if haunted is not None else here


def _victim(game: Game, victims: list[Actor]) -> Actor:
    """Whom a monster attacks: one who threw a tantrum, else the lowest Defense, then the
    least health, then the first seat (where the players would choose)."""
    raging = [c for c in victims if f"{TANTRUM}:{c.name}" in game.state.flags]
    return min(
        raging or victims,
        key=lambda c: (game.stat("defense", c), game.stat(_wound(c), c), c.seat or 0),
    )


def monsters_attack(game: Game, phase: Phase) -> None:
    """Step 7: on each space with characters, its monsters attack, boss first, each with one
    more die for every monster that attacked there before (Overwhelm); a double attack is two
    attacks, its table rolled for each (1129), and a Blood Bond one more (1147). Then each
    ranged monster with no character on its space attacks one in its range and sight, with
    the Overwhelm of that one's space (805)."""
    by_place: dict[str, list[Actor]] = defaultdict(list)
    for monster in game.actors_of(MONSTER):
        if monster.location is not None and not converted(game, monster):
            by_place[monster.location].append(monster)
    overwhelm: dict[str, int] = defaultdict(int)
    for place in game.rules.world.board.places:
        for monster in sorted(by_place.get(place, []), key=_priority):
            if not _friends(game, place):
                break
            smash(game, monster)
            _attacks(game, monster, overwhelm)
    for monster in game.actors_of(MONSTER):
        mine = converted(game, monster)
        if (
            reach(monster)
            and monster.location
            and not mine
            and not _friends(game, monster.location)
        ):
            _attacks(game, monster, overwhelm, afar=True)
    # a tantrum, a thaw no attack followed and a waking in confinement end here
    over = (f"{TANTRUM}:", f"{THAWED}:", f"{WOKE}:")
    game.state.flags = {flag for flag in game.state.flags if not flag.startswith(over)}


def _attacks(game: Game, monster: Actor, overwhelm: dict[str, int], afar: bool = False) -> None:
    """A monster's attacks of the step (two for a double attack, one more for a Blood Bond),
    each on one of the victims it has then (on its space, or in its range and sight), with
    the Overwhelm of the victim's space, which its attacks raise by one."""
    attacked = ""
    for _ in range((2 if prop(monster, DOUBLE) else 1) + (1 if bonded(game, monster) else 0)):
        found = _in_reach(game, monster) if afar else _victims(game, monster, monster.location)
        if monster.dead or not found:
            break
        asked = [v for v in found if v.kind == game.seated_kind]  # a defense skill (769)
        defend(game, asked, f"before {monster.name} picks whom it attacks")
        victim = _victim(game, found)
        defend(game, asked, f"after {monster.name} picks {victim.name}")
        if victim.dead:  # a skill's price paid with the last of their health
            continue
        attacked = victim.location or ""
        monster_attack(game, monster, victim, overwhelm[attacked])
    if attacked:
        overwhelm[attacked] += 1


def _in_reach(game: Game, monster: Actor) -> list[Actor]:
    """The characters a ranged monster may attack from its space."""
    spaces = {c.location for c in in_range(game, monster, _characters(game))}
    return [v for place in sorted(spaces, key=str) for v in _victims(game, monster, place)]


def monster_attack(game: Game, monster: Actor, victim: Actor, overwhelm: int = 0) -> int:
    """One monster's attack on a character: a row of its attack table, a d6 picking it, or
    the dice of its stat line. The damage dealt."""
    game.step()
    sheet = monster.sheet
    if sheet is None:  # a monster no card brought (the Warden in the Final Clash)
        return bare_attack(game, monster, victim, overwhelm)
    target, acting = game.state.target, game.state.acting
    game.state.target, game.state.acting = victim, monster
    monster.bonuses.append((OVERWHELM, overwhelm))
    try:
        with game.recording() as events, game.acting_card(sheet):
            if has_table(game.rules, sheet.definition):
                game.fire(ATTACKS, [sheet])
            else:
                stat_line_strike(game, sheet)
    finally:
        monster.bonuses = [(name, n) for name, n in monster.bonuses if name != OVERWHELM]
        game.state.acting = acting
        game.state.target = target if target is None or not target.dead else None
    return sum(
        int(event.data.get("damage", 0))
        for event in events
        if event.kind == "attack" and event.data.get("attacker") == monster.name
    )


def bare_attack(game: Game, monster: Actor, victim: Actor, overwhelm: int = 0) -> int:
    """The attack of a monster without a card: the dice and rating of its stats, the symbols
    of its keywords, Overwhelm and a waiting Defense Die; the damage dealt."""
    symbols = {KEYWORD_SYMBOLS[k] for k in monster.keywords if k in KEYWORD_SYMBOLS}
    attack = Attack(
        max(monster.stats.get("dice") + overwhelm - recovering(game, monster), 0),
        monster.stats.get("ar"),
        fire="fire" in symbols,
        holy="holy" in symbols,
        ghostly="ghostly" in symbols,
    )
    shields = sum(dice for name, dice in victim.bonuses if name == DEFENSE_DIE)
    victim.bonuses = [(name, dice) for name, dice in victim.bonuses if name != DEFENSE_DIE]
    target = replace(target_of(game, victim, {}), defense_dice=min(shields, 10))
    damage = attack_told(game, monster, victim, attack, target)
    if damage:
        wound(game, victim, damage)
    return damage


def has_table(rules: GameRules, card: CardDef) -> bool:
    """Whether a monster card has an attack table (a block its attack runs)."""
    return any(
        (rule := rules.blocks.get(block.name)) is not None and rule.trigger == ATTACKS
        for block in card.blocks
    )


STAT_LINE = "its attack"
"""How `pillbox odds` names the attack of a monster card with no table."""


def stat_line_strike(game: Game, card: CardInstance) -> None:
    """The attack of a monster with no table: the dice of its stat line, its keywords'
    symbols (`fiery`: fire)."""
    attacker = _attacker(game, card)
    if attacker is not None:
        keywords = set(attacker.keywords)
    else:
        keywords = {w for value in card.definition.properties.values() for w in words(value)}
    symbols = sorted({KEYWORD_SYMBOLS[k] for k in keywords if k in KEYWORD_SYMBOLS})
    strike(game, card, dice=_number(game, card, attacker, "dice"), symbols=symbols)


def stat_line_attack(rules: GameRules, card: CardDef) -> list[tuple[str, Effect]]:
    """What a monster card with no attack table does unwritten, for `pillbox odds` to walk
    against the player: its stat line's attack."""
    return [] if has_table(rules, card) else [(STAT_LINE, stat_line_strike)]


# ---------------------------------------------------------------- the strike: a monster's attack


@dataclass(frozen=True)
class PreparedStrike:
    """A monster's attack test ready to roll, with who makes it and on whom."""

    attack: Attack
    target: Target
    attacker: str
    victim: str
    wears: bool  # the dice include a weapon's, which a natural 1 wears
    ranges: bool  # the card writes outcomes, each of which may hold several damages


def _attacker(game: Game, card: CardInstance) -> Actor | None:
    """The monster a card is, or the monster acting now; none in an odds walk of its card."""
    owner = game.owner_of(card)
    if owner is not None:
        return owner
    acting = game.state.acting
    return acting if acting is not None and acting.kind == MONSTER else None


def _victim_now(game: Game) -> Actor:
    """Whom a monster's attack is on: its target, a character; the player in an odds walk
    (who becomes the target, so that `the target` of the rest of the row is them too)."""
    target = game.state.target
    if target is not None and (target.kind == game.seated_kind or converted(game, target)):
        return target
    if target is None:
        game.state.target = game.player
    return game.player


def _number(game: Game, card: CardInstance, attacker: Actor | None, stat: str) -> int:
    """A monster's stat: the actor's, or printed on its card when no actor is in play."""
    if attacker is not None and stat in attacker.stats.rules:
        return game.stat(stat, attacker)
    kind = game.rules.world.sheet_kind(card.kind)
    name = kind.starts.get(stat) if kind is not None else None
    value = card.definition.properties.get(name) if name else None
    return value if isinstance(value, int) else 0


def prepare_strike(game: Game, card: CardInstance, call: CheckCall) -> PreparedStrike:
    """The row's dice and symbols, with the Overwhelm dice and an armed monster's weapon; the
    victim's Defense and a waiting Defense Die."""
    attacker = _attacker(game, card)
    victim = _victim_now(game)
    dice = int(call.arg("dice", 0))
    symbols = set(call.arg("symbols") or ())
    weapon = armed_weapon(attacker)
    if attacker is not None:
        dice += sum(n for name, n in attacker.bonuses if name == OVERWHELM)
        dice -= recovering(game, attacker)
    if weapon is not None:
        extra, more = attack_numbers(game, weapon)
        dice, symbols = dice + extra, symbols | set(more)
    shields = sum(n for name, n in victim.bonuses if name == DEFENSE_DIE)
    victim.bonuses = [(name, n) for name, n in victim.bonuses if name != DEFENSE_DIE]
    target = replace(target_of(game, victim, call.params), defense_dice=min(shields, 10))
    if _flag(game, STUNNED, victim.name) in game.state.flags:
        target = replace(target, defense=0, avoidance=None)
    rating = _number(game, card, attacker, str(call.params.get("rating", "ar"))) or 4
    bonus = 1 if attacker is not None and bonded(game, attacker) else 0  # Blood Bond (1147)
    every = Attack(
        max(dice, 0),
        rating,
        bonus,
        fire=True,
        holy=True,
        ghostly=True,
        precision=True,
        critical=True,
    )
    attack = only(every, symbols)
    name = attacker.name if attacker is not None else card.definition.title
    return PreparedStrike(attack, target, name, victim.name, weapon is not None, bool(call.arms))


def roll_strike(game: Game, prepared: PreparedStrike) -> Rolled:
    """Roll the monster's attack: the damage to the character."""
    rolled = roll_attack(prepared.attack, prepared.target, game.dice)
    return Rolled(
        rolled.outcome,
        f"{prepared.attacker} attacks {prepared.victim}: {rolled.text}",
        after=_after(prepared, rolled.outcome, rolled.rolled_a_one),
        data=(
            ("attacker", prepared.attacker),
            ("target", prepared.victim),
            ("damage", rolled.outcome),
            ("dice", list(rolled.faces)),
        ),
        kind="attack",
    )


def strike_odds(prepared: PreparedStrike) -> list[Branch]:
    """The exact damage (a row's outcome `1+` deals one or more), apart by whether an armed
    monster's weapon wears."""
    if prepared.wears:
        table = attack_wear_distribution(prepared.attack, prepared.target)
        return [Branch(d, p, _after(prepared, d, one)) for (d, one), p in sorted(table.items())]
    damages = attack_distribution(prepared.attack, prepared.target)
    return [Branch(d, p, _after(prepared, d, False)) for d, p in sorted(damages.items())]


def _after(prepared: PreparedStrike, damage: int, one: bool) -> str | None:
    """What a path needs besides the outcome: the damage within a range the card writes, and
    whether the weapon wears; nothing for a row that is its damage alone."""
    worn = prepared.wears and one
    if prepared.ranges or worn:
        return damage_after(damage, worn)
    return None


def settle_strike(
    game: Game, card: CardInstance, call: CheckCall, prepared: PreparedStrike, rolled: Rolled
) -> None:
    """The damage to the character; a soul leech heals as much (never past its printed HP,
    1145); an armed monster's weapon wears on a natural 1 (1141)."""
    attacker = _attacker(game, card)
    victim = _victim_now(game)
    damage = rolled.result if isinstance(rolled.result, int) else 0
    weapon = armed_weapon(attacker)
    if weapon is not None and isinstance(rolled.after, str) and rolled.after.endswith(WORN):
        wear_out(game, weapon, call.params)
        if attacker is not None and weapon in game.state.discards.get(WEAPON_DECK, []):
            attacker.items.remove(weapon)  # broken: the engine takes it from no monster
    if damage <= 0:
        return
    if attacker is not None and prop(attacker, LEECH) and HP in attacker.stats.rules:
        game.change(HP, damage, attacker)
    _hurt(game, victim, damage)
    if FROST in (call.arg("symbols") or ()) and not victim.dead:
        freeze(game, victim)  # a Frost attack that hurt (721)


def strike(
    game: Game, card: CardInstance, *, dice: int, symbols: Sequence[str] | None = None
) -> None:
    """`strike 4 fire`: the monster's attack test on the character it attacks (the card's
    words come as a tuple: a `list` here is refused by the compiled runtime)."""
    rule = procedure_rule(game, STRIKE_PROCEDURE)
    if rule is None:
        game.event("attack", "this game has no monster's attack test")
        return
    shown = " ".join(str(w) for w in (dice, *(symbols or ())))
    args = (("dice", dice), ("symbols", list(symbols or [])))
    game.check(card, CheckCall(rule, args, (), f"strike {shown}"))


STRIKE = CheckProcedure(
    prepare_strike,
    roll_strike,
    strike_odds,
    settle=settle_strike,
    bounds=attack_bounds,
    validate=ATTACK.validate,
    cost=lambda prepared: prepared.attack.dice,
    stats=lambda params, args, rules: [str(params.get("defense", "defense"))],
    results=frozenset({"damage"}),
)
"""`lobotomy-strike`: a monster's attack test on the character it attacks, with exact odds."""


# ---------------------------------------------------------------- armed monsters, the Nemesis


def armed_weapon(monster: Actor | None) -> CardInstance | None:
    """The weapon an armed monster took, while it has one."""
    if monster is None or not prop(monster, ARMED):
        return None
    return next((c for c in monster.items if c.kind == WEAPON), None)


class _Found(Exception):
    """The attack a card's `use` makes, found."""

    def __init__(self, call: CheckCall) -> None:
        super().__init__(call.header)
        self.call = call


class _Probe(Game):
    """A throwaway game that runs a card's `use` only as far as its attack test."""

    def check(self, card: CardInstance, call: CheckCall) -> Result:
        """Stop at the attack test: its dice and symbols are what the card attacks with."""
        if call.rule.procedure == ATTACK_PROCEDURE:
            raise _Found(call)
        return super().check(card, call)


def attack_numbers(game: Game, card: CardInstance) -> tuple[int, tuple[str, ...]]:
    """The dice and symbols of the attack test a weapon's or skill's `use` makes, read by
    running it in a throwaway game up to that test; (0, ()) for a card that makes none."""
    probe = _Probe(game.rules, (), game.module, budget=PROBE_STEPS)
    copy = probe.new_instance(card.definition)
    for block in card.definition.blocks:
        rule = game.rules.blocks.get(block.name)
        if block.run is None or rule is None or rule.trigger != "use":
            continue
        try:
            probe.resolve(copy, block.run, "use")
        except _Found as found:
            return int(found.call.arg("dice", 0)), tuple(found.call.arg("symbols") or ())
        except (RunawayError, RunEnded, DiceError):  # a card that cannot be read: no attack
            break
    return 0, ()


def _pick(game: Game, cards: list[CardInstance]) -> CardInstance:
    """One of the cards at random (a die of as many sides)."""
    if len(cards) == 1:
        return cards[0]
    return cards[game.roll_dice(1, len(cards)).total - 1]


def _attacks_of(game: Game, cards: Iterable[CardInstance], kind: str) -> list[CardInstance]:
    return [c for c in cards if c.kind == kind and attack_numbers(game, c)[0] > 0]


def strike_weapon(game: Game, card: CardInstance) -> None:
    """`strike with a weapon of the target's`: a random weapon of the character it attacks,
    with three more dice; their fists if they have none (1055). Nothing wears."""
    victim = _victim_now(game)
    weapons = _attacks_of(game, victim.items, WEAPON)
    if not weapons:
        strike(game, card, dice=FISTS_DICE + NEMESIS_DICE)
        return
    weapon = _pick(game, weapons)
    dice, symbols = attack_numbers(game, weapon)
    game.event("attack", f"with {victim.name}'s {weapon.definition.label}")
    strike(game, card, dice=dice + NEMESIS_DICE, symbols=list(symbols))


def strike_skill(game: Game, card: CardInstance) -> None:
    """`strike with a skill of the target's`: a random attack skill of theirs, as written; the
    weapon attack if they have none (1057). No cooldown is used."""
    victim = _victim_now(game)
    skills = _attacks_of(game, [*victim.items, *victim.owned], SKILL)
    if not skills:
        strike_weapon(game, card)
        return
    skill = _pick(game, skills)
    dice, symbols = attack_numbers(game, skill)
    game.event("attack", f"with {victim.name}'s {skill.definition.label}")
    strike(game, card, dice=dice, symbols=list(symbols))


# ---------------------------------------------------------------- attacks on monsters


def only(attack: Attack, symbols: Collection[str]) -> Attack:
    """The attack without the symbols it has that are not among these."""
    return replace(
        attack,
        fire=attack.fire and "fire" in symbols,
        holy=attack.holy and "holy" in symbols,
        ghostly=attack.ghostly and "ghostly" in symbols,
        precision=attack.precision and "precision" in symbols,
        critical=attack.critical and "critical" in symbols,
    )


def harmless(header: str) -> PreparedAttack:
    """An attack test spent for nothing: no dice, no damage."""
    return PreparedAttack(Attack(0, 6), Target(), header)


def _faces_unholy(game: Game, card: CardInstance, monster: Actor) -> bool:
    """Unholy (1125): an imagination test before the first attack on it this turn; a fail
    spends the attack for nothing."""
    attacker = game.actor
    flag = _flag(game, UNHOLY, game.state.round, attacker.name, monster.name)
    rule = game.rules.procedures.get(IMAGINATION)
    if flag in game.state.flags or rule is None:
        return True
    passed, failed = (*rule.names, "pass", "fail")[:2]
    arms = (named_arm(passed), named_arm(failed))
    if game.check(card, CheckCall(rule, (), arms, IMAGINATION)) != passed:
        game.event("attack", f"{attacker.name} falters before {monster.name}: no attack")
        return False
    game.state.flags.add(flag)
    return True


def prepare_guarded(game: Game, card: CardInstance, call: CheckCall) -> PreparedAttack:
    """The attack test on a monster as `lobotomy_attack` prepares it, after what the monster's
    card says: a Nemesis haunting another is out of reach, an unholy one needs an imagination
    test first, an immunity takes that symbol off, a stunned monster has no Defense."""
    monster = game.state.target
    if monster is None or monster.kind != MONSTER:
        return prepare_attack(game, card, call)
    if untouchable(game, game.actor, monster):
        game.event("attack", f"{monster.name} haunts another: it cannot be touched")
        return harmless(call.header)
    if UNHOLY in monster.keywords and not _faces_unholy(game, card, monster):
        return harmless(call.header)
    prepared = prepare_attack(game, card, call)
    kept = set(SYMBOLS) - set(words(prop(monster, IMMUNE)))
    target = prepared.target
    if _flag(game, STUNNED, monster.name) in game.state.flags:
        target = replace(target, defense=0, avoidance=None)
    return replace(prepared, attack=only(prepared.attack, kept), target=target)


GUARDED_ATTACK = replace(ATTACK, prepare=prepare_guarded)
"""`lobotomy-attack` with what the monster attacked brings to it."""
