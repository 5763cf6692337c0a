"""Lobotomy: the attack test, monsters on the board, the monsters' turn in seven steps, death.

What the ruleset's data says (stats, actor kinds, the board, the Insomnia Track, the round) is
not repeated here; this module runs what data cannot: monsters that move towards the nearest
character and attack with Overwhelm, the movement card's steps, and a character's death, which
sends them back to confinement rather than out of the game. The readings where the rulebook is
silent are in docs/lobotomy.md.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from runtime.cards import CardInstance
from runtime.checks import CheckCall
from runtime.game import Game
from runtime.games.base import BASE, carry
from runtime.games.lobotomy_attack import (
    ATTACK,
    CHAOS,
    COOLDOWN,
    DAMAGES,
    chaos_faces,
    final_blow,
    target_of,
)
from runtime.games.lobotomy_clash import (
    CLASH_TABLES,
    WARDEN_NAME,
    clash_begun,
    clash_death,
)
from runtime.games.lobotomy_dice import Attack, ChaosFace, roll_attack, roll_stomp
from runtime.games.lobotomy_scenarios import SCENARIO_TABLES, movement_stopped
from runtime.module import OddsVariant, ValueDef
from runtime.state import Actor
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
ETHEREAL = "ethereal"
ESCAPING = "escaping"

DEFENSE_DIE = "defense die"
"""The name under which a waiting Defense Die is kept among an actor's bonuses."""

TANTRUM = "tantrum"
"""The flag of a character drawing this monsters' turn's attacks on their space."""

PRIORITY = ("boss", "elite", "basic")
"""Which monster on a space attacks first (rulebook, Monsters - Priority)."""

DEATH_WARDEN_STEPS = 3
DEATH_INSANITY_REGAINED = 2


# ---------------------------------------------------------------- verbs


def deal_damage(game: Game, card: CardInstance, *, amount: int, subject: str) -> None:
    """`deal 2 damage to each monster here`."""
    for actor in game.subjects(subject, card):
        game.change(DAMAGES.get(actor.kind, HEALTH), -amount, actor)
        if actor.dead and actor.kind == MONSTER:
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
    """1 insanity for the Chaos Die in the next attack (also the odds' other start)."""
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


def spawn_monster(game: Game, card: CardInstance, *, place: str | None = None) -> None:
    """`spawn monster [at A3]`: the top monster card comes onto the board."""
    game.step()
    pile = game.state.decks.get(MONSTER) or []
    if not pile:
        game.event("spawn", "the monster deck is empty")
        return
    game.spawn(MONSTER, place or random_place(game), pile.pop())


def random_place(game: Game) -> str:
    """A space of the board picked with the dice (the rulebook's randomisation)."""
    places = [p for p in game.rules.world.board.places if p != game.rules.start_place]
    if not places:
        return game.rules.start_place or "nowhere"
    return places[game.roll_dice(1, len(places)).total - 1]


def target_nearest(game: Game, card: CardInstance) -> None:
    """`target nearest monster`: on your space first, then by moves away."""
    where = game.actor.location
    monsters = game.actors_of(MONSTER)
    if where is None or not monsters:
        game.target(None)
        return
    distances = game.rules.world.board.distances(where)
    reachable = [m for m in monsters if m.location in distances]
    game.target(min(reachable, key=lambda m: distances[m.location or ""], default=None))


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


def monster_drawn(game: Game, card: CardInstance) -> bool:
    """A monster card drawn comes onto the board at a random space."""
    game.spawn(MONSTER, random_place(game), card)
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
    """Step 3: memory tokens are not simulated; the log says when one would appear."""
    card = _movement(game)
    if card is not None and card.definition.properties.get("memory"):
        game.event("rule", "not simulated: a memory token appears on the board")


def move_warden(game: Game, phase: Phase) -> None:
    """Step 4: the Warden advances a space along the Insomnia Track."""
    card = _movement(game)
    if card is not None and card.definition.properties.get("warden"):
        game.advance(INSOMNIA, 1)


def move_monsters(game: Game, phase: Phase) -> None:
    """Step 5: each monster spends its AP moving towards the nearest character."""
    board = game.rules.world.board
    for monster in game.actors_of(MONSTER):
        if monster.location is None:
            continue
        for _ in range(max(monster.stats.get("ap"), 0)):
            characters = [c for c in game.actors_of(CHARACTER) if c.location is not None]
            here = monster.location
            if not characters or any(c.location == here for c in characters):
                break
            distances = {c.name: board.distance(here, c.location or "") for c in characters}
            reachable = [c for c in characters if distances[c.name] is not None]
            if not reachable:
                break
            nearest = min(reachable, key=lambda c: (distances[c.name], c.seat or 0))
            step = _step_towards(game, here, nearest.location or "")
            if step is None:
                break
            game.step()
            monster.location = step
            game.event("move", f"{monster.name}: {here} → {step}", actor=monster.name, to=step)


def _step_towards(game: Game, start: str, goal: str) -> str | None:
    """The next place on a shortest path from `start` to `goal` (ties in board order)."""
    board = game.rules.world.board
    from_goal = board.distances(goal)
    order = {place: index for index, place in enumerate(board.places)}
    here = from_goal.get(start)
    options = [
        p
        for p in board.neighbours(start)
        if p in from_goal and here is not None and from_goal[p] < here
    ]
    return min(options, key=lambda p: order.get(p, 0), default=None)


def spawn_monsters(game: Game, phase: Phase) -> None:
    """Step 6: the monsters the movement card names appear at random spaces."""
    card = _movement(game)
    if card is None:
        return
    count = card.definition.properties.get("spawns")
    for _ in range(count if isinstance(count, int) else 0):
        spawn_monster(game, card)


def monsters_attack(game: Game, phase: Phase) -> None:
    """Step 7: on each space with characters, its monsters attack, boss first, each with one
    more die for every monster that attacked there before (Overwhelm)."""
    by_place: dict[str, list[Actor]] = defaultdict(list)
    for monster in game.actors_of(MONSTER):
        if monster.location is not None:
            by_place[monster.location].append(monster)
    for place in game.rules.world.board.places:
        attackers = sorted(by_place.get(place, []), key=_priority)
        for overwhelm, monster in enumerate(attackers):
            victims = game.actors_of(CHARACTER, place)
            if not victims:
                break
            monster_attack(game, monster, _victim(game, victims), overwhelm)
    game.state.flags = {flag for flag in game.state.flags if not flag.startswith(f"{TANTRUM}:")}


def _victim(game: Game, victims: list[Actor]) -> Actor:
    """Whom a monster attacks: one who threw a tantrum, else the lowest Defense, then the
    least health, then the first seat (where the players would choose)."""
    raging = [c for c in victims if f"{TANTRUM}:{c.name}" in game.state.flags]
    return min(
        raging or victims,
        key=lambda c: (game.stat("defense", c), game.stat(HEALTH, c), c.seat or 0),
    )


def _priority(monster: Actor) -> int:
    return next((i for i, word in enumerate(PRIORITY) if word in monster.keywords), len(PRIORITY))


def monster_attack(game: Game, monster: Actor, victim: Actor, overwhelm: int = 0) -> int:
    """One monster's attack test on a character: the damage dealt."""
    game.step()
    attack = Attack(
        max(monster.stats.get("dice") + overwhelm, 0),
        monster.stats.get("ar"),
        fire="fiery" in monster.keywords,
        holy="holy" in monster.keywords,
        ghostly="ghostly" in monster.keywords,
    )
    shields = sum(dice for name, dice in victim.bonuses if name == DEFENSE_DIE)
    victim.bonuses = [(name, dice) for name, dice in victim.bonuses if name != DEFENSE_DIE]
    target = replace(target_of(game, victim, {}), defense_dice=min(shields, 10))
    rolled = roll_attack(attack, target, game.dice)
    game.event(
        "attack",
        f"{monster.name} attacks {victim.name}: {rolled.text}",
        attacker=monster.name,
        target=victim.name,
        damage=rolled.outcome,
    )
    if rolled.outcome:
        game.change(HEALTH, -rolled.outcome, victim)
    return rolled.outcome


# ---------------------------------------------------------------- the Warden


QUARTERS = "ABCD"
SPACES = 12
STUNNED = "stunned"
DEFIED = "defied time"
FISTS_DICE = 3
"""Every character can attack bare-handed with three dice (rulebook, Attack Action)."""


def patrol_space(step: int) -> str:
    """The space of the Insomnia Track at a step: 0 is A1, 11 A12, 12 B1... 47 D12."""
    return f"{QUARTERS[step // SPACES]}{step % SPACES + 1}"


def warden(game: Game) -> Actor:
    """The Warden, brought onto his patrol's first space the first time he is needed."""
    found = game.actors_of(WARDEN)
    if found:
        return found[0]
    return game.spawn(WARDEN, patrol_space(game.state.tracks.get(INSOMNIA, 0)), name=WARDEN_NAME)


def warden_walks(game: Game, before: int, after: int) -> None:
    """The Insomnia Track moved: the Warden stands on its space, and stomps who is there
    (from the Final Clash on, he is on the pentagram)."""
    if clash_begun(game):
        return
    walker = warden(game)
    walker.location = patrol_space(after)
    game.event("move", f"the Warden walks to {walker.location}", actor=walker.name)
    stomp_here(game, walker)


def stomp_here(game: Game, walker: Actor) -> None:
    """Every character on the Warden's space is stomped: the Chaos Die twice, a damage a skull
    that nothing prevents, stunned; then he walks on (rulebook, Stomp!)."""
    victims = game.actors_of(CHARACTER, walker.location) if walker.location else []
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
    or the move is an escape (rulebook, Movement: line 333)."""
    if actor.kind != CHARACTER or actor.location is None or place == actor.location:
        return None
    if f"{ESCAPING}:{actor.name}" in game.state.flags:
        return None
    holding = [m for m in game.actors_of(MONSTER, actor.location) if ETHEREAL not in m.keywords]
    if not holding:
        return None
    return f"{actor.name} cannot leave a space with {holding[0].name} on it"


def character_turn(game: Game, actor: Actor) -> None:
    """A stunned character spends an action getting up (the rest of a turn is the players')."""
    flag = f"{STUNNED}:{actor.name}"
    if flag in game.state.flags:
        game.state.flags.discard(flag)
        game.event("stun", f"{actor.name} gets up")
        game.change("ap", -1, actor)


# ---------------------------------------------------------------- death


def confinement(game: Game, actor: Actor) -> None:
    """A character who dies goes back to solitary confinement: health back, 2 insanity
    regained, every item worn by one, the Warden three spaces on. A monster leaves the board.
    In the Final Clash a death is for good (lobotomy_clash)."""
    if clash_death(game, actor):
        return
    if actor.kind == MONSTER:
        actor.location = None
        if actor.sheet is not None:
            game.discard(actor.sheet)
        if game.state.target is actor:
            game.state.target = None
        return
    actor.stats.dead = False
    actor.location = game.rules.start_place
    rule = actor.stats.rules[HEALTH]
    actor.stats.set(HEALTH, rule.start)
    insanity = actor.stats.get(INSANITY)
    actor.stats.set(INSANITY, max(insanity - DEATH_INSANITY_REGAINED, 0))
    game.event("death", f"{actor.name} wakes in solitary confinement", player=actor.name)
    for item in list(actor.items):
        if isinstance(item.definition.properties.get("durability"), int):
            game.add_tokens(item, WEAR, 1)
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
    },
    conditions={"target_is": target_is, "monster_here": monster_here},
    values={"monsters_here": ValueDef(monsters_here)},
    checks={ATTACK_PROCEDURE: ATTACK},
    drawn={
        "movement": reveal_movement,
        "monster": monster_drawn,
        "*": carry,
    },
    played={"monster": play_drawn, "movement": play_drawn, "scenario": play_drawn},
    hooks={"death": confinement, "move_ended": moved_onto_warden},
    refusals={"move": held_by_monsters},
    odds_variants={"with the Chaos Die": OddsVariant(add_chaos_die, frozenset({ATTACK_PROCEDURE}))},
    on_track={INSOMNIA: warden_walks},
    turns={CHARACTER: character_turn},
    steps={
        "event_effects": event_effects,
        "special_event": special_event,
        "spawn_memories": spawn_memories,
        "move_warden": move_warden,
        "move_monsters": move_monsters,
        "spawn_monsters": spawn_monsters,
        "monsters_attack": monsters_attack,
    },
    announces=frozenset({"movement", "green_event", "blue_event", "red_event", "final_blow"}),
)

# The end of the Warden's patrol and the campaign of scenarios, in modules of their own.
LOBOTOMY = LOBOTOMY.extend("lobotomy", **CLASH_TABLES).extend("lobotomy", **SCENARIO_TABLES)

MODULE = LOBOTOMY
"""The game module `runtime: lobotomy` names."""
