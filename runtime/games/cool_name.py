"""Cool Name RPG injuries: vitality that stops at 0, wounds, death checks, dying, healing.

What the ruleset's data says (the stats, the injury table, the round) is not repeated here;
this module runs what data cannot: a vitality that reaches 0, or is hit at 0, gives a wound
of its type; a lethal wound brings a death check at once (`cool_name_checks`); a dying
character counts a round down after each of its own turns, from the round after the one it
began dying in, and dies after its turn in the last; a coup de grâce finishes the helpless.
The readings where the page is silent are in docs/cool-name.md.
"""

from __future__ import annotations

from runtime.cards import CardInstance
from runtime.checks import CheckCall
from runtime.game import Game
from runtime.games.base import BASE, carry, lose
from runtime.games.cool_name_checks import (
    CHECKS,
    DEATH,
    DYING_ROUNDS,
    DYING_SINCE,
    ENVIRONMENT,
    NATURAL,
    UNCONSCIOUS,
    actor_dying,
    has,
    incapacitated,
    injuries,
    unconscious,
)
from runtime.module import ValueDef
from runtime.state import Actor

FOE = "foe"
NON_LETHAL = "non_lethal"
"""The weapon property whose attacks wound without a death check."""
WOUNDED = "wounded"
"""The trigger fired on a character's cards when they suffer a wound."""
COUP_WOUND = "body"
"""The wound a coup de grâce gives a character who is incapacitated but not yet down."""


# ---------------------------------------------------------------- wounds


def lose_vitality(
    game: Game, card: CardInstance, actor: Actor, vitality: str, amount: int, *, lethal: bool
) -> None:
    """Vitality lost stops at 0; reaching 0, or losing more at 0, is a wound of its type."""
    if not has(actor, vitality):
        game.change(vitality, -amount, actor)  # logs that the actor has none
        return
    if actor.stats.get(vitality) > 0:
        game.change(vitality, -amount, actor)
        if actor.stats.get(vitality) > 0:
            return
    wound(game, card, actor, vitality, lethal=lethal)


def wound(game: Game, card: CardInstance, actor: Actor, vitality: str, *, lethal: bool) -> None:
    """A wound of the type; a lethal one brings a death check at once (no action needed)."""
    table = injuries(game.rules)
    stat = table.vitality.get(vitality, ("", ""))[0]
    if not has(actor, stat):
        game.event("wound", f"{actor.name} cannot be wounded in {vitality}", actor=actor.name)
        return
    game.event("wound", f"{actor.name} suffers a {vitality} wound", actor=actor.name)
    game.change(stat, 1, actor)
    game.fire(WOUNDED, [*actor.items, *actor.owned])
    if not lethal:
        game.event("wound", "a non-lethal wound: no death check", actor=actor.name)
        return
    rule = next((r for r in game.rules.procedures.values() if r.procedure == DEATH), None)
    if rule is None:
        game.event("wound", "this game has no death check", actor=actor.name)
        return
    call = CheckCall(
        rule, (("vitality", vitality), ("patient", actor.name)), (), f"death check ({vitality})"
    )
    game.check(card, call)


def hit(game: Game, card: CardInstance, *, subject: str, amount: int, vitality: str) -> None:
    """`hit the target for 3 body`: an attack; a weapon that is non-lethal wounds softly."""
    lethal = NON_LETHAL not in card.definition.properties
    for actor in game.subjects(subject, card):
        lose_vitality(game, card, actor, vitality, amount, lethal=lethal)


def harm(game: Game, card: CardInstance, *, subject: str, amount: int, vitality: str) -> None:
    """`harm the target for 2 mind`: the Harm action, a non-lethal attack."""
    for actor in game.subjects(subject, card):
        lose_vitality(game, card, actor, vitality, amount, lethal=False)


def lose_stat(
    game: Game, card: CardInstance, *, stat: str, amount: int, subject: str = "you"
) -> None:
    """`lose body 2`: vitality lost by any means follows the vitality rules (lethally)."""
    if stat not in injuries(game.rules).vitality:
        lose(game, card, stat=stat, amount=amount, subject=subject)
        return
    for actor in game.subjects(subject, card):
        lose_vitality(game, card, actor, stat, amount, lethal=True)


def suffer(game: Game, card: CardInstance, *, vitality: str) -> None:
    """`suffer a mind wound`: a wound at once, with its death check."""
    wound(game, card, game.actor, vitality, lethal=True)


def coup(game: Game, card: CardInstance, *, subject: str) -> None:
    """`deliver a coup de grâce to the target`: lethal whatever the weapon; a dying or
    unconscious character dies, an incapacitated one suffers a body wound (with its death
    check); anyone else is not helpless, and nothing happens."""
    for actor in game.subjects(subject, card):
        if unconscious(game, actor):
            game.kill(actor, f"a coup de grâce ends {actor.name}")
        elif incapacitated(game, actor):
            wound(game, card, actor, COUP_WOUND, lethal=True)
        else:
            game.event("coup", f"{actor.name} is not helpless: no coup de grâce", actor=actor.name)


def target(game: Game, card: CardInstance, *, subject: str) -> None:
    """`target each foe here`: the first actor named becomes the target."""
    named = game.subjects(subject, card)
    game.target(named[0] if named else None)


# ---------------------------------------------------------------- rest and the encounter


def rest_hour(game: Game, card: CardInstance) -> None:
    """`rest an hour`: every vitality back to its maximum."""
    actor = game.actor
    for vitality in injuries(game.rules).vitality:
        rule = actor.stats.rules.get(vitality)
        if rule is not None and actor.stats.get(vitality) < rule.high:
            game.change(vitality, rule.high - actor.stats.get(vitality), actor)


def rest_week(game: Game, card: CardInstance) -> None:
    """`rest a week`: one natural healing check for each type of wound the character has."""
    rule = next((r for r in game.rules.procedures.values() if r.procedure == NATURAL), None)
    actor = game.actor
    for vitality, (stat, _) in injuries(game.rules).vitality.items():
        if rule is None or not has(actor, stat) or actor.stats.get(stat) == 0:
            continue
        header = f"natural healing ({vitality})"
        game.check(card, CheckCall(rule, (("vitality", vitality),), (), header))


def end_encounter(game: Game, card: CardInstance) -> None:
    """`end the encounter`: whoever was stabilised wakes."""
    game.step()
    for actor in game.state.actors:
        flag = f"{UNCONSCIOUS}:{actor.name}"
        if flag in game.state.flags:
            game.state.flags.discard(flag)
            game.event("wake", f"{actor.name} regains consciousness", actor=actor.name)
    game.event("encounter", "the encounter ends")


# ---------------------------------------------------------------- dying, turn by turn


def count_down(game: Game, actor: Actor) -> None:
    """After a dying character's turn, from the round after the wound, a round less; after
    the turn of the last round, death (rulebook: Wargar, wounded in round 5, dies after his
    turn in round 8)."""
    left = actor_dying(game, actor)
    since = next((r for name, r in actor.bonuses if name == DYING_SINCE), None)
    if not left or actor.dead or since is None or game.state.round <= since:
        return
    game.change(injuries(game.rules).dying, -1, actor)
    game.state.count(DYING_ROUNDS)
    if left == 1:
        actor.bonuses = [b for b in actor.bonuses if b[0] != DYING_SINCE]
        game.kill(actor, f"{actor.name}'s last round of dying is over")


def foe_turn(game: Game, actor: Actor) -> None:
    """A foe's turn: its dying counts down as a character's does."""
    count_down(game, actor)


# ---------------------------------------------------------------- conditions and values


def you_are(game: Game, card: CardInstance, *, injury: str) -> bool:
    """`you are dying`."""
    return injured(game, game.actor, injury)


def target_is(game: Game, card: CardInstance, *, injury: str) -> bool:
    """`the target is incapacitated`."""
    return game.state.target is not None and injured(game, game.state.target, injury)


def injured(game: Game, actor: Actor, injury: str) -> bool:
    """Whether an actor is incapacitated, dying, unconscious or dead."""
    if injury == "dead":
        return actor.dead
    if injury == "dying":
        return actor_dying(game, actor) > 0
    if injury == UNCONSCIOUS:
        return unconscious(game, actor)
    return incapacitated(game, actor)


def standing(game: Game, actor: Actor) -> bool:
    """Whether an actor is still in the fight: alive and awake (dying is unconscious). An
    incapacitated one is still in it: it may catch its breath; a side is out when none is."""
    return not actor.dead and not unconscious(game, actor)


def left_standing(game: Game, card: CardInstance, *, actor: str) -> int:
    """`foe left standing`: the actors of that kind still in the fight."""
    return sum(1 for other in game.state.actors if other.kind == actor and standing(game, other))


def how_many(game: Game, card: CardInstance, *, actor: str, injury: str) -> int:
    """`how many character are dying`: the actors of that kind so injured."""
    return sum(
        1 for other in game.state.actors if other.kind == actor and injured(game, other, injury)
    )


def target_injured(game: Game, card: CardInstance, *, injury: str, actor: str) -> None:
    """`target the dying character`: the first actor of that kind so injured, if any."""
    game.target(
        next((a for a in game.state.actors if a.kind == actor and injured(game, a, injury)), None)
    )


def target_standing(game: Game, card: CardInstance, *, actor: str) -> None:
    """`target a standing foe`: the first actor of that kind still in the fight, if any."""
    game.target(next((a for a in game.state.actors if a.kind == actor and standing(game, a)), None))


def wounds(game: Game, card: CardInstance) -> int:
    """Your wounds of every type."""
    return injuries(game.rules).wounds(game.actor)


# ---------------------------------------------------------------- cards coming into play


def foe_arrives(game: Game, card: CardInstance) -> bool:
    """A foe drawn or played comes onto your place and is the target."""
    game.target(game.spawn(FOE, game.actor.location, card))
    return True


def play_foe(game: Game, card: CardInstance) -> None:
    """A test's `play "Goblin"`: the foe arrives."""
    foe_arrives(game, card)


def enter_place(game: Game, card: CardInstance) -> bool:
    """An environment drawn or played is where the characters now are."""
    old = game.state.in_play.get(ENVIRONMENT)
    if old is not None:
        game.discard(old)
    game.state.in_play[ENVIRONMENT] = card
    game.event("reveal", f"the place: {card.definition.label}", uid=card.uid)
    return True


def play_place(game: Game, card: CardInstance) -> None:
    """A test's `play "Dry Crypt"`: the characters are there."""
    enter_place(game, card)


COOL_NAME = BASE.extend(
    "cool-name",
    verbs={
        "lose": lose_stat,
        "hit": hit,
        "harm": harm,
        "suffer": suffer,
        "coup": coup,
        "target": target,
        "target_injured": target_injured,
        "target_standing": target_standing,
        "rest_hour": rest_hour,
        "rest_week": rest_week,
        "end_encounter": end_encounter,
    },
    conditions={"you_are": you_are, "target_is": target_is},
    values={
        "wounds": ValueDef(wounds),
        "left_standing": ValueDef(left_standing),
        "how_many": ValueDef(how_many),
    },
    checks=CHECKS,
    drawn={FOE: foe_arrives, "environment": enter_place, "*": carry},
    played={FOE: play_foe, "environment": play_place},
    owned={"condition": True},
    hooks={"turn_ended": count_down},
    turns={FOE: foe_turn},
    announces=frozenset({WOUNDED}),
)

MODULE = COOL_NAME
"""The game module `runtime: cool-name` names."""
