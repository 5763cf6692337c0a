"""Lobotomy: the attack test, monsters on the board, the monsters' turn in seven steps, death.

What the ruleset's data says (stats, actor kinds, the board, the Insomnia Track, the round) is
not repeated here; this module runs what data cannot: monsters that move towards the nearest
character and attack with Overwhelm, the movement card's steps, and a character's death, which
sends them back to confinement rather than out of the game. The readings where the rulebook is
silent are in docs/lobotomy.md.
"""

from __future__ import annotations

from runtime.cards import CardInstance
from runtime.checks import CheckCall
from runtime.game import Game
from runtime.games import lobotomy_keywords, lobotomy_surge, lobotomy_table, lobotomy_tokens
from runtime.games.base import BASE, carry
from runtime.games.lobotomy_abilities import ABILITIES, ETHEREAL, STEALTHY, has
from runtime.games.lobotomy_attack import (
    CHAOS,
    COOLDOWN,
    DAMAGES,
    THAWED,
    chaos_faces,
    final_blow,
    thaws,
)
from runtime.games.lobotomy_clash import (
    CLASH_TABLES,
    WARDEN_NAME,
    clash_begun,
    clash_death,
)
from runtime.games.lobotomy_convert import converted
from runtime.games.lobotomy_dice import ChaosFace, roll_stomp
from runtime.games.lobotomy_inventory import CHARACTERS, spend_charge, wound
from runtime.games.lobotomy_monsters import (
    ATTACKS,
    DEFENSE_DIE,
    FISTS_DICE,
    STRIKE,
    STRIKE_PROCEDURE,
    STUNNED,
    TANTRUM,
    WOKE,
    lift_grudge,
    monster_dies,
    monster_drawn,
    monster_spawned,
    monsters_attack,
    move_monsters,
    spawn_monster,
    spawn_monsters,
    stat_line_attack,
    strike,
    strike_skill,
    strike_weapon,
    untouchable,
)
from runtime.games.lobotomy_scenarios import SCENARIO_TABLES, SCENARIOS, movement_stopped
from runtime.games.lobotomy_symbols import SYMBOL_ATTACK, stun_and_push
from runtime.games.lobotomy_table import QUARTERS, SPACES, spawn_memory_token
from runtime.module import OddsVariant, ValueDef
from runtime.state import Actor, Player
from runtime.world import Phase

INSANITY = "insanity"
HEALTH = "health"
INSOMNIA = "insomnia"
WEAR = "wear"

MONSTER = "monster"
CHARACTER = "character"
WARDEN = "warden"
ATTACK_PROCEDURE = "lobotomy-attack"
MOVEMENT = "movement"
"""The in-play slot of the movement card revealed this monsters' turn."""
ESCAPING = "escaping"
IN_CELL = "in a cell"
"""The flag of a character woken in a cell of solitary confinement, until their next turn
ends: the monsters on the central piece do not hold them (257, 914; docs/lobotomy.md)."""

FINAL_CLASH = "final_clash"
"""The trigger of the Warden passing the end of his patrol (the Insomnia Track's `past_max`)."""

DEATH_WARDEN_STEPS = 3
DEATH_INSANITY_REGAINED = 2


# ---------------------------------------------------------------- verbs


def deal_damage(game: Game, card: CardInstance, *, amount: int, subject: str) -> None:
    """`deal 2 damage to each monster here`: one attack, so one final blow however many
    monsters it kills (645, 741): one cooldown off, the card's `on final blow` once."""
    killed = False
    for actor in game.subjects(subject, card):
        if untouchable(game, game.actor, actor):
            continue  # a Nemesis haunting another (runtime/games/lobotomy_monsters.py)
        if actor.kind == CHARACTER:
            wound(game, actor, amount)  # their armor first (585)
        else:
            game.change(DAMAGES.get(actor.kind, HEALTH), -amount, actor)
        killed = killed or (actor.dead and actor.kind == MONSTER)
    if killed:
        final_blow(game, card)


def insane(game: Game, ability: str) -> bool:
    """Use 1 insanity for an insane ability; at the top of the counter none can be used
    (rulebook, Insanity Penalties: only being forced to lose more sends you back)."""
    actor = game.actor
    rule = actor.stats.rules.get(INSANITY)
    if rule is None or actor.stats.get(INSANITY) >= rule.high:
        game.event("insane", f"{actor.name} is at the top of insanity: no {ability}")
        return False
    game.change(INSANITY, 1)
    return True


def chaos_die(game: Game, card: CardInstance) -> None:
    """`add chaos die`: 1 insanity for the Chaos Die in the next attack."""
    add_chaos_die(game)


def add_chaos_die(game: Game) -> None:
    """1 insanity for the Chaos Die in the next attack (also the odds' other start); never
    twice for the same attack (835): while one waits, another use is refused and costs
    nothing. The attack uses it up, and the next attack may have one again."""
    if any(name == CHAOS for name, _ in game.actor.bonuses):
        game.event("bonus", "the Chaos Die already waits for the next attack", check="attack")
        return
    if insane(game, "Chaos Die"):
        game.actor.bonuses.append((CHAOS, 1))
        game.event("bonus", "the Chaos Die joins the next attack", check="attack")


def defense_die(game: Game, card: CardInstance) -> None:
    """`roll defense die`: 1 insanity for the Defense Die against the next attack on you."""
    if insane(game, "Defense Die"):
        game.actor.bonuses.append((DEFENSE_DIE, 1))
        game.event("bonus", "the Defense Die waits for the next attack on you", check="defense")


def tantrum(game: Game, card: CardInstance) -> None:
    """`throw a tantrum`: 1 insanity, and this monsters' turn every attack on your space is
    aimed at you."""
    if insane(game, "tantrum"):
        game.state.flags.add(f"{TANTRUM}:{game.actor.name}")
        game.event("insane", f"{game.actor.name} throws a tantrum: the monsters turn on them")


def defy_time(game: Game, card: CardInstance) -> None:
    """`defy time`: the Warden a space on for 1 more AP, once a turn (an insomnia shift)."""
    flag = f"{DEFIED}:{game.state.round}:{game.actor.name}"
    if flag in game.state.flags:
        game.event("insane", f"{game.actor.name} has defied time this turn already")
        return
    game.state.flags.add(flag)
    game.advance(INSOMNIA, 1)
    game.change("ap", 1)


def fists(game: Game, card: CardInstance) -> None:
    """`attack with fists`: the attack test of three dice a bare-handed character rolls."""
    rule = next(
        (r for r in game.rules.procedures.values() if r.procedure == ATTACK_PROCEDURE), None
    )
    if rule is None:
        game.event("attack", "this game has no attack test")
        return
    game.check(card, CheckCall(rule, (("dice", FISTS_DICE),), (), "attack with fists"))


def target_nearest(game: Game, card: CardInstance) -> None:
    """`target nearest monster`: on your space first, then by moves away."""
    where = game.actor.location
    monsters = [m for m in game.actors_of(MONSTER) if not untouchable(game, game.actor, m)]
    if where is None or not monsters:
        game.target(None)
        return
    distances = game.rules.world.board.distances(where)
    reachable = [m for m in monsters if m.location in distances]
    game.target(min(reachable, key=lambda m: distances[m.location or ""], default=None))


def imaginary_locker(game: Game, card: CardInstance) -> None:
    """`imagine a locker`: 1 insanity and 1 AP, once the Warden has reached B1, for a random
    locker on your space that only you may search."""
    if lobotomy_tokens.can_imagine(game) and insane(game, "Imaginary Locker"):
        lobotomy_tokens.imagine_locker(game)


def cool_down(game: Game, card: CardInstance, *, amount: int) -> None:
    """`cool down 2`: the skill waits that many turns, more at the top of insanity."""
    rule = game.actor.stats.rules.get(INSANITY)
    extra = 0
    if rule is not None:
        extra = max(0, game.actor.stats.get(INSANITY) - (rule.high - 2))
    game.add_tokens(card, COOLDOWN, amount + extra)


# ---------------------------------------------------------------- conditions and values


def target_is(game: Game, card: CardInstance, *, keyword: str) -> bool:
    """`the target is ethereal`."""
    return game.state.target is not None and keyword in game.state.target.keywords


def monsters_here(game: Game, card: CardInstance) -> int:
    """How many monsters share your space."""
    where = game.actor.location
    return len(game.actors_of(MONSTER, where)) if where is not None else 0


def monster_here(game: Game, card: CardInstance) -> bool:
    """`a monster is here`."""
    return monsters_here(game, card) > 0


# ---------------------------------------------------------------- cards coming into play


def reveal_movement(game: Game, card: CardInstance) -> bool:
    """A movement card drawn is this turn's: its event runs."""
    old = game.state.in_play.get(MOVEMENT)
    if old is not None:
        game.discard(old)
    game.state.in_play[MOVEMENT] = card
    game.event("reveal", f"movement card: {card.definition.label}", uid=card.uid)
    game.fire("movement", [card])
    return True


def play_drawn(game: Game, card: CardInstance) -> None:
    """Play a card as drawing it would; a monster played comes onto your space (a test's
    `play "Wisp"` meets it where it stands)."""
    game.event("play", f"play {card.definition.label}", uid=card.uid)
    if card.kind == MONSTER:
        game.spawn(MONSTER, game.actor.location, card)
        return
    handler = game.module.drawn.get(card.kind) or game.module.drawn["*"]
    handler(game, card)


# ---------------------------------------------------------------- the monsters' turn


def _movement(game: Game) -> CardInstance | None:
    return game.state.in_play.get(MOVEMENT)


def event_effects(game: Game, phase: Phase) -> None:
    """Step 1: reveal the top movement card; its event runs (none once every scenario is
    done)."""
    if movement_stopped(game):
        return
    game.draw(MOVEMENT)


def special_event(game: Game, phase: Phase) -> None:
    """Step 2: the movement card's colour, answered by scenarios, then monsters, then items."""
    card = _movement(game)
    colour = card.definition.properties.get("special") if card else None
    if not isinstance(colour, str):
        return
    game.event("special", f"a {colour} special event", colour=colour)
    scenarios = [c for c in game.state.in_play.values() if c.kind != MOVEMENT]
    monsters = [a.sheet for a in game.actors_of(MONSTER) if a.sheet is not None]
    items = [c for a in game.state.players for c in (*a.items, *a.owned)]
    game.fire(f"{colour}_event", [*scenarios, *monsters, *items])


def spawn_memories(game: Game, phase: Phase) -> None:
    """Step 3: a memory token appears at random when the movement card shows the symbol."""
    card = _movement(game)
    if card is not None and card.definition.properties.get("memory"):
        spawn_memory_token(game)


def move_warden(game: Game, phase: Phase) -> None:
    """Step 4: the Warden advances a space along the Insomnia Track; from the Final Clash on
    he stands on the pentagram and moves as a monster (1019), so the track moves no more (a
    push past its end would start the clash's blocks, `when the warden arrives`, again)."""
    card = _movement(game)
    if card is not None and card.definition.properties.get("warden") and not clash_begun(game):
        game.advance(INSOMNIA, 1)


# ---------------------------------------------------------------- the Warden


DEFIED = "defied time"


def patrol_space(step: int) -> str:
    """The space of the Insomnia Track at a step: 0 is A1, 11 A12, 12 B1... 47 D12."""
    return f"{QUARTERS[step // SPACES]}{step % SPACES + 1}"


def warden(game: Game) -> Actor:
    """The Warden, brought onto his patrol's first space the first time he is needed."""
    found = game.actors_of(WARDEN)
    if found:
        return found[0]
    return game.spawn(WARDEN, patrol_space(game.state.tracks.get(INSOMNIA, 0)), name=WARDEN_NAME)


def patrol_end(game: Game) -> int:
    """The last space of the Warden's patrol: A12 (11) for one scenario, B12 for two, C12 for
    three, D12 (47) for four (266, 875-881): the difficulty is the `scenarios` track's most,
    and the patrol never runs past the Insomnia Track's own end."""
    rule = game.rules.world.tracks.get(SCENARIOS)
    track = game.rules.world.tracks[INSOMNIA]
    if rule is None:
        return track.high
    return min(track.high, SPACES * max(rule.high, 1) - 1)


def warden_walks(game: Game, before: int, after: int) -> None:
    """The Insomnia Track moved: the Warden stands on its space, and stomps who is there
    (from the Final Clash on, he is on the pentagram). Past the end of the difficulty's
    patrol the Final Clash begins (883): the track's own `past_max` where the patrol is the
    whole track, its trigger fired here where the difficulty ends it sooner."""
    if clash_begun(game):
        return
    if after > patrol_end(game):
        game.event("track", f"the Warden passes the end of his patrol: {FINAL_CLASH}")
        game.fire(FINAL_CLASH, game.cards_in_play())
        return
    walker = warden(game)
    walker.location = patrol_space(after)
    game.event("move", f"the Warden walks to {walker.location}", actor=walker.name)
    stomp_here(game, walker)


def stomp_here(game: Game, walker: Actor) -> None:
    """Every character on the Warden's space is stomped: the Chaos Die twice, a damage a skull
    that nothing prevents, stunned; then he walks on (rulebook, Stomp!)."""
    here = game.actors_of(CHARACTER, walker.location) if walker.location else []
    victims = [victim for victim in here if not has(victim, STEALTHY)]  # unseen (904)
    for victim in victims:
        rolled = roll_stomp(game.dice, faces=_chaos_die(game))
        game.event("stomp", f"the Warden stomps {victim.name}: {rolled.text}", target=victim.name)
        if rolled.outcome:
            game.change(HEALTH, -rolled.outcome, victim)
        game.state.flags.add(f"{STUNNED}:{victim.name}")
    if victims:
        game.advance(INSOMNIA, 1)


def _chaos_die(game: Game) -> tuple[ChaosFace, ...]:
    """The Chaos Die as the ruleset's attack test describes it (its designer values)."""
    rule = next(
        (r for r in game.rules.procedures.values() if r.procedure == ATTACK_PROCEDURE), None
    )
    return chaos_faces(rule.params if rule is not None else {})


def moved_onto_warden(game: Game, actor: Actor) -> None:
    """A character who ends a move on the Warden's space is stomped (not in the clash)."""
    if clash_begun(game):
        return
    walker = warden(game)
    if walker.location == actor.location:
        stomp_here(game, walker)


def escape_to(game: Game, card: CardInstance, *, place: str) -> None:
    """`escape to central`: a move that monsters on the space do not stop (stealth)."""
    flag = f"{ESCAPING}:{game.actor.name}"
    game.state.flags.add(flag)
    try:
        game.move(place)
    finally:
        game.state.flags.discard(flag)


def held_by_monsters(game: Game, actor: Actor, place: str) -> str | None:
    """A character cannot leave a space with monsters on it, unless they are all ethereal
    or the move is an escape or the character has stealth (rulebook, Movement: line 333,
    1105); an ethereal character is held by the ethereal ones alone (1117), and a Nemesis
    holds only the character it haunts (1049)."""
    if actor.kind != CHARACTER or actor.location is None or place == actor.location:
        return None
    if f"{ESCAPING}:{actor.name}" in game.state.flags or has(actor, STEALTHY):
        return None
    if f"{IN_CELL}:{actor.name}" in game.state.flags and actor.location == game.rules.start_place:
        return None  # woken in a cell: the monsters stand on the central piece, not in it
    ethereal = has(actor, ETHEREAL)
    holding = [
        m
        for m in game.actors_of(MONSTER, actor.location)
        if has(m, ETHEREAL) == ethereal
        and not untouchable(game, actor, m)  # 1049
        and not converted(game, m)  # a converted one is a friend (1135)
    ]
    if not holding:
        return None
    return f"{actor.name} cannot leave a space with {holding[0].name} on it"


def left_the_cell(game: Game, player: Player) -> None:
    """A character's turn is over: a cell they woke in is the central piece's again."""
    game.state.flags.discard(f"{IN_CELL}:{player.name}")


def refused_move(game: Game, actor: Actor, place: str) -> str | None:
    """Why a character may not make this move: monsters on its space hold it (333), or a door
    not yet opened stands in the way (922, `lobotomy_tokens.door_in_the_way`)."""
    return held_by_monsters(game, actor, place) or lobotomy_tokens.door_in_the_way(
        game, actor, place
    )


def character_turn(game: Game, actor: Actor) -> None:
    """A stunned character spends an action getting up, and a frozen one an action thawing
    (723: a character's first attack loses no die, as a monster's does); the rest of a turn
    is the players'."""
    flag = f"{STUNNED}:{actor.name}"
    if flag in game.state.flags:
        game.state.flags.discard(flag)
        game.event("stun", f"{actor.name} gets up")
        game.change("ap", -1, actor)
    if thaws(game, actor):
        game.state.flags.discard(f"{THAWED}:{actor.name}")
        game.change("ap", -1, actor)


# ---------------------------------------------------------------- death


def confinement(game: Game, actor: Actor) -> None:
    """A character who dies goes back to solitary confinement: health back, 2 insanity
    regained, every item worn by one, the Warden three spaces on. A monster leaves the board.
    In the Final Clash a death is for good (lobotomy_clash)."""
    if clash_death(game, actor):
        return
    if actor.kind == MONSTER:
        monster_dies(game, actor)
        return
    actor.stats.dead = False
    actor.location = game.rules.start_place
    game.state.flags.add(f"{IN_CELL}:{actor.name}")
    if game.state.phase is not None and game.state.acting is not None:  # a monster's attack
        game.state.flags.add(f"{WOKE}:{actor.name}")
    rule = actor.stats.rules[HEALTH]
    actor.stats.set(HEALTH, rule.start)
    insanity = actor.stats.get(INSANITY)
    actor.stats.set(INSANITY, max(insanity - DEATH_INSANITY_REGAINED, 0))
    # Its own kind: the death is the engine's event; a second `death` counted it twice
    game.event("wake", f"{actor.name} wakes in solitary confinement", player=actor.name)
    for item in list(actor.items):
        if isinstance(item.definition.properties.get("durability"), int):
            game.add_tokens(item, WEAR, 1)
        elif isinstance(item.definition.properties.get("uses"), int):
            spend_charge(game, item)
    game.advance(INSOMNIA, DEATH_WARDEN_STEPS)


LOBOTOMY = BASE.extend(
    "lobotomy",
    verbs={
        "deal_damage": deal_damage,
        "chaos_die": chaos_die,
        "defense_die": defense_die,
        "tantrum": tantrum,
        "defy_time": defy_time,
        "fists": fists,
        "spawn_monster": spawn_monster,
        "target_nearest": target_nearest,
        "cool_down": cool_down,
        "escape_to": escape_to,
        # Monsters in full (runtime/games/lobotomy_monsters.py)
        "strike": strike,
        "strike_weapon": strike_weapon,
        "strike_skill": strike_skill,
        "lift_grudge": lift_grudge,
        "stun": stun_and_push,
    },
    conditions={"target_is": target_is, "monster_here": monster_here},
    values={"monsters_here": ValueDef(monsters_here)},
    checks={ATTACK_PROCEDURE: SYMBOL_ATTACK, STRIKE_PROCEDURE: STRIKE},
    drawn={
        "movement": reveal_movement,
        "monster": monster_drawn,
        "*": carry,
    },
    played={"monster": play_drawn, "movement": play_drawn, "scenario": play_drawn},
    hooks={"death": confinement, "move_ended": moved_onto_warden, "spawned": monster_spawned},
    refusals={"move": refused_move},
    odds_variants={"with the Chaos Die": OddsVariant(add_chaos_die, frozenset({ATTACK_PROCEDURE}))},
    on_track={INSOMNIA: warden_walks},
    turns={CHARACTER: character_turn},
    implied={MONSTER: stat_line_attack},
    steps={
        "event_effects": event_effects,
        "special_event": special_event,
        "spawn_memories": spawn_memories,
        "move_warden": move_warden,
        "move_monsters": move_monsters,
        "spawn_monsters": spawn_monsters,
        "monsters_attack": monsters_attack,
    },
    announces=frozenset(
        {"movement", "green_event", "blue_event", "red_event", "final_blow", ATTACKS}
    ),
)


# The end of the Warden's patrol and the campaign of scenarios, in modules of their own.
LOBOTOMY = LOBOTOMY.extend("lobotomy", **CLASH_TABLES).extend("lobotomy", **SCENARIO_TABLES)
LOBOTOMY = LOBOTOMY.extend("lobotomy", **ABILITIES)
LOBOTOMY = lobotomy_tokens.extend(LOBOTOMY.extend("lobotomy", **CHARACTERS)).extend(
    "lobotomy", verbs={"imaginary_locker": imaginary_locker}
)
LOBOTOMY = lobotomy_table.extend(LOBOTOMY).extend("lobotomy", hooks={"turn_ended": left_the_cell})
LOBOTOMY = lobotomy_surge.extend(lobotomy_keywords.extend(LOBOTOMY))
"""With the characters' rules (setup, capacities, memories, running, costs), the board
tokens' (lockers, bodies, doors), the whole game's procedures (the board's setup, moving,
doors and memory tokens at the table), the keywords that change a turn (auras, Burrow,
Inspiring Presence, a monster's AoE attack) and the Surge's special events."""

MODULE = LOBOTOMY
"""The game module `runtime: lobotomy` names."""
