"""Coma Ward combat: an attack or a steal, answered by a dodge or a counter-attack.

The procedure is the rulebook's "Attacking or Stealing Items". Readings taken here:
- A side uses up to two hands of carried weapons: one two-handed weapon or up to two one-handed
  ones. Weapons used together must attack with the same stat: one check rolls one stat's dice,
  and the rulebook never adds two stats together. Unarmed is always allowed: strength, 1 damage.
- A weapon without `hands` takes one hand, without `attacks_with` attacks with strength, without
  `attack` adds no dice and without `damage` deals 1, as an unarmed blow would.
- An attack check takes the `bonus next attack` bonuses. A counter-attack is an attack check
  too, so it takes them as well as `bonus next counter-attack`; a dodge takes `bonus next dodge`.
  Neither takes the bonuses of a stat's own checks (`bonus next dexterity`): those wait for a
  `check dexterity`. Adrenaline and carried items count through `game.stat`, as in any check.
- Ties go to the defender, and nothing happens: no damage, no move, no item changes hands.
- A defender who wins by a dodge may step one space away (`coma_ward_map.step_away`).
- The side that is hurt may discard clothing that `protects` to take less damage, piece by
  piece (`coma_ward.hurt`).
- Medicine as an attack: the attacker declares `medicine` and rolls an attack check with the
  weapons of their choice, answered as any attack; if the attacker wins, the medicine's
  `use as an attack` block resolves on the defender (who is the "you" of its effects), then the
  medicine is spent like any use of it (its block says `discard this` or `spend a use`). If
  the defender wins, a dodge or counter-attack resolves as usual and the medicine is kept.
- A stolen item is carried at once; the carry limit is left to the attacker's next drop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from runtime.cards import CardInstance, Effect
from runtime.checks import CheckCall
from runtime.decisions import YES_NO
from runtime.game import Game
from runtime.games.coma_ward_map import step_away
from runtime.games.coma_ward_pool import POOL, Pool, make_pool, roll_prepared, take_bonuses
from runtime.rules import ProcedureRule
from runtime.state import Player, seat_index

ACTIONS = ("attack", "steal", "medicine")
"""What the attacker declares before rolling."""

DEFENCES = ("dodge", "counter-attack")
"""What the defender answers with, after seeing the attack roll."""

HANDS = 2
"""Hands a character has for weapons."""

UNARMED_STAT = "strength"
"""Unarmed attacks always check strength; so do weapons that name no stat."""

UNARMED_DAMAGE = 1
"""An unarmed attack deals 1 damage (a weapon without a damage rating too)."""

WEAPON_TYPE = "weapon"


class CombatError(ValueError):
    """A fight the rules do not allow: too many hands, mixed stats, players apart..."""


@dataclass(frozen=True)
class Loadout:
    """The weapons one side fights with (none: unarmed), the stat checked, dice and damage."""

    weapons: tuple[CardInstance, ...]
    stat: str
    attack: int  # dice the weapons add
    damage: int  # health the other side loses if this side wins

    @property
    def label(self) -> str:
        """How the log and decisions name it: `Broom`, `Knife and Pan`, `unarmed`."""
        return " and ".join(w.title for w in self.weapons) or "unarmed"


UNARMED = Loadout((), UNARMED_STAT, 0, UNARMED_DAMAGE)


@dataclass(frozen=True)
class CombatResult:
    """What one attack or steal came to."""

    action: str  # "attack", "steal" or "medicine"
    defence: str  # "dodge" or "counter-attack"
    attacker_dice: int
    attacker_successes: int
    defender_dice: int
    defender_successes: int
    winner: str  # "attacker" or "defender" (a tie is the defender's)
    tie: bool
    damage: int = 0  # health lost by the side that lost (0 when nobody is hurt)
    damaged: str | None = None  # the name of the player who lost it
    stolen: CardInstance | None = None

    def __init__(
        self,
        action: str,
        defence: str,
        attacker_dice: int,
        attacker_successes: int,
        defender_dice: int,
        defender_successes: int,
        winner: str,
        tie: bool,
        damage: int = 0,
        damaged: str | None = None,
        stolen: CardInstance | None = None,
    ) -> None:
        # Written out for mypyc (runtime/native.py): made in every fight.
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "defence", defence)
        object.__setattr__(self, "attacker_dice", attacker_dice)
        object.__setattr__(self, "attacker_successes", attacker_successes)
        object.__setattr__(self, "defender_dice", defender_dice)
        object.__setattr__(self, "defender_successes", defender_successes)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "tie", tie)
        object.__setattr__(self, "damage", damage)
        object.__setattr__(self, "damaged", damaged)
        object.__setattr__(self, "stolen", stolen)

    def _but(self, damage: int, damaged: str | None, stolen: CardInstance | None) -> CombatResult:
        # Not dataclasses.replace: it reads the fields anew on every call, in every fight.
        return CombatResult(
            self.action,
            self.defence,
            self.attacker_dice,
            self.attacker_successes,
            self.defender_dice,
            self.defender_successes,
            self.winner,
            self.tie,
            damage,
            damaged,
            stolen,
        )

    def with_stolen(self, item: CardInstance) -> CombatResult:
        """The same result, the winner having taken this item."""
        return self._but(self.damage, self.damaged, item)

    def with_damage(self, damage: int, damaged: str) -> CombatResult:
        """The same result, the loser named having lost this much health."""
        return self._but(damage, damaged, self.stolen)


def hurt(game: Game, player: Player, damage: int) -> int:
    """Damage from a blow: the player may discard clothing that protects to take less of it.

    Each piece is offered while damage is left, in the order carried; the health lost is
    what remains (and the number returned). The hurt player is asked, even on another's turn."""
    for item in list(player.items):
        saves = item.definition.properties.get("protects")
        if damage <= 0 or not isinstance(saves, int) or saves <= 0:
            continue
        prompt = f"discard {item.title} to prevent {min(saves, damage)} damage"
        if game.decide("yes-no", prompt, YES_NO, asked=player) == 0:
            game.discard(item)
            damage -= min(saves, damage)
    if damage > 0:
        game.change("health", -damage, player)
    else:
        game.event("damage", f"{player.name} takes no damage", player=player.name)
    return damage


def weapons_of(player: Player) -> list[CardInstance]:
    """The weapons a player carries, in the order they were picked up."""
    return [item for item in player.items if item.definition.properties.get("type") == WEAPON_TYPE]


def _hands(weapon: CardInstance) -> int:
    return int(weapon.definition.properties.get("hands", 1))


def _stat(weapon: CardInstance) -> str:
    return str(weapon.definition.properties.get("attacks_with", UNARMED_STAT))


def loadout(player: Player, weapons: Sequence[CardInstance]) -> Loadout:
    """Total up the weapons a player fights with, refusing what the rules do not allow."""
    if not weapons:
        return UNARMED
    for index, weapon in enumerate(weapons):
        # Identity, not equality: two copies of one card are two weapons.
        if any(weapon is other for other in weapons[:index]):
            raise CombatError(f"{weapon.title} is named twice; one card fights once")
        if not any(weapon is item for item in player.items):
            raise CombatError(f"{player.name} does not carry {weapon.title}")
        if weapon.definition.properties.get("type") != WEAPON_TYPE:
            raise CombatError(f"{weapon.title} is not a weapon")
    hands = sum(_hands(w) for w in weapons)
    names = " and ".join(w.title for w in weapons)
    if hands > HANDS:
        raise CombatError(
            f"{names} take {hands} hands; a character fights with at most {HANDS} "
            "(one two-handed weapon or two one-handed ones)"
        )
    stats = sorted({_stat(w) for w in weapons})
    if len(stats) > 1:
        raise CombatError(
            f"{names} attack with different stats ({', '.join(stats)}); "
            "weapons used together must attack with the same stat"
        )
    return Loadout(
        tuple(weapons),
        stats[0],
        sum(int(w.definition.properties.get("attack", 0)) for w in weapons),
        sum(int(w.definition.properties.get("damage", UNARMED_DAMAGE)) for w in weapons),
    )


def loadouts(player: Player) -> list[Loadout]:
    """Every way the player may fight: unarmed first, then one weapon, then pairs."""
    options = [UNARMED]
    seen = {UNARMED.label}
    carried = weapons_of(player)
    for size in (1, 2):
        for weapons in combinations(carried, size):
            try:
                option = loadout(player, weapons)
            except CombatError:
                continue
            # Two copies of a card make the same choice; offer it once.
            if option.label not in seen:
                seen.add(option.label)
                options.append(option)
    return options


def choose_loadout(game: Game, player: Player, doing: str) -> Loadout:
    """Ask the player (a defender too) which weapons they fight with; without weapons there is
    nothing to ask."""
    options = loadouts(player)
    if len(options) == 1:
        return options[0]
    prompt = f"{player.name} {doing} with"
    index = game.decide("weapons", prompt, [o.label for o in options], asked=player)
    return options[index]


ATTACK = "coma-ward-attack"
DODGE = "coma-ward-dodge"
"""The procedures of the ruleset's checks that a fight rolls."""


def combat_rule(game: Game, procedure: str) -> ProcedureRule:
    """The ruleset's check run by a combat procedure: its faces, and a dodge's base dice."""
    for rule in game.rules.procedures.values():
        if rule.procedure == procedure:
            return rule
    raise CombatError(f"the ruleset has no check run by {procedure!r}, which a fight rolls")


def attack_dice(game: Game, player: Player, gear: Loadout) -> int:
    """An attack check's dice before one-off bonuses: the stat as it is now, plus the weapons."""
    return game.stat(gear.stat, player) + gear.attack


def dodge_base(rule: ProcedureRule) -> tuple[tuple[str, ...], int]:
    """The stats a dodge takes the best of, and the dice it adds (the ruleset's `base`)."""
    base = rule.params.get("base") or {}
    return tuple(base.get("stats", ())), int(base.get("dice", 0))


def dodge_dice(game: Game, player: Player, rule: ProcedureRule | None = None) -> int:
    """A dodge's dice before one-off bonuses: its base stat as it is now, plus its dice."""
    stats, dice = dodge_base(rule or combat_rule(game, DODGE))
    return max((game.stat(stat, player) for stat in stats), default=0) + dice


def attack_pool(
    game: Game,
    player: Player,
    gear: Loadout,
    label: str,
    checks: Sequence[str] = ("attack",),
    extra: int = 0,
    rule: ProcedureRule | None = None,
) -> Pool:
    """An attack check prepared: stat, weapons and the waiting bonuses of these check names."""
    rule = rule or combat_rule(game, ATTACK)
    stat = game.stat(gear.stat, player)
    bonus = sum(take_bonuses(game, player, check) for check in checks) + extra
    parts = [f"{gear.stat} {stat}"]
    if gear.weapons:
        parts.append(f"{gear.label} {gear.attack:+d}")
    if bonus:
        parts.append(f"bonus {bonus:+d}")
    dice = stat + gear.attack + bonus
    rolls = ", ".join(parts)
    if game.hears("pool"):
        game.event("pool", f"{player.name} rolls {rolls} = {dice} dice", player=player.name)
    return make_pool(dice, rule.params, label, player.name)


def dodge_pool(
    game: Game, player: Player, extra: int = 0, rule: ProcedureRule | None = None
) -> Pool:
    """A dodge prepared: its base stat and dice, plus any `bonus next dodge`."""
    rule = rule or combat_rule(game, DODGE)
    stats, base = dodge_base(rule)
    stat = max(stats, key=lambda name: game.stat(name, player)) if stats else ""
    value = game.stat(stat, player) if stat else 0
    bonus = take_bonuses(game, player, "dodge") + extra
    dice = value + base + bonus
    shown = f", bonus {bonus:+d}" if bonus else ""
    rolls = f"{stat} {value}, dodge {base:+d}{shown}"
    if game.hears("pool"):
        game.event("pool", f"{player.name} rolls {rolls} = {dice} dice", player=player.name)
    return make_pool(dice, rule.params, f"{player.name} dodges", player.name)


def _rolled(game: Game, pool: Pool, procedure: str) -> tuple[int, int]:
    """Roll one side's pool: its dice and its successes."""
    return pool.dice, roll_prepared(game, pool, combat_rule(game, procedure), pool.label)


def attack(
    game: Game,
    attacker: Player,
    defender: Player,
    action: str = "attack",
    *,
    weapons: Sequence[CardInstance] | None = None,
    defence: str | None = None,
    defender_weapons: Sequence[CardInstance] | None = None,
    medicine: CardInstance | None = None,
) -> CombatResult:
    """Resolve an attack, a steal or a medicine forced on someone; what the caller leaves out
    (None) is decided in play."""
    if action not in ACTIONS:
        raise CombatError(f"the attacker attacks, steals or uses medicine, not {action!r}")
    if (action == "medicine") != (medicine is not None):
        raise CombatError("a medicine attack names its medicine, and only it does")
    if medicine is not None and not _attack_blocks(game, medicine):
        raise CombatError(f"{medicine.title} cannot be used as an attack")
    if defence is not None and defence not in DEFENCES:
        raise CombatError(f"the defender dodges or counter-attacks, not {defence!r}")
    if attacker is defender:
        raise CombatError(f"{attacker.name} cannot fight themselves")
    for side in (attacker, defender):
        if side.dead:
            raise CombatError(f"{side.name} is dead")
    if attacker.location != defender.location:
        raise CombatError(f"{attacker.name} and {defender.name} must share a space to fight")
    game.step()
    # Checked before anything is logged or rolled, so a refused loadout changes nothing.
    gear = loadout(attacker, weapons) if weapons is not None else None
    answer = loadout(defender, defender_weapons) if defender_weapons is not None else None
    if gear is None:
        gear = choose_loadout(game, attacker, "attacks" if action == "attack" else "steals")
    what = {
        "attack": "attacks",
        "steal": "tries to steal from",
        "medicine": f"tries to force {medicine.title if medicine else ''} on",
    }[action]
    game.event(
        "combat",
        f"{attacker.name} {what} {defender.name}: {gear.label}",
        action=action,
        attacker=attacker.name,
        defender=defender.name,
        weapons=[w.title for w in gear.weapons],
    )
    attacking = _rolled(game, attack_pool(game, attacker, gear, "check attack"), ATTACK)
    if defence is None:
        prompt = f"{defender.name} defends against {attacker.name}"
        defence = DEFENCES[game.decide("defence", prompt, DEFENCES, asked=defender)]
    counter = None  # the defender's weapons, only when they counter-attack
    if defence == "dodge":
        defending = _rolled(game, dodge_pool(game, defender), DODGE)
    else:
        counter = answer or choose_loadout(game, defender, "counter-attacks")
        label = f"{defender.name} counter-attacks"
        checks = ("attack", "counter-attack")
        defending = _rolled(game, attack_pool(game, defender, counter, label, checks), ATTACK)
    (attack_dice_rolled, hits), (defence_dice_rolled, blocks) = attacking, defending
    result = CombatResult(
        action,
        defence,
        attack_dice_rolled,
        hits,
        defence_dice_rolled,
        blocks,
        winner="attacker" if hits > blocks else "defender",
        tie=hits == blocks,
    )
    score = f"{hits} to {blocks}"
    if hits == blocks:
        game.event("combat", f"tie {score}: {defender.name} wins; nothing happens", tie=True)
        return result
    if hits > blocks and medicine is not None:
        return _medicine_given(game, attacker, defender, medicine, result, score)
    if hits > blocks:
        return _attacker_wins(game, attacker, defender, gear, result, score)
    if counter is None:
        game.event(
            "combat",
            f"{defender.name} wins {score}: no harm done; "
            f"{defender.name} may move one space away from {attacker.name}",
            winner=defender.name,
        )
        step_away(game, defender, attacker.name)
        return result
    # A counter-attack hurts the attacker even when they only meant to steal.
    return _hurt(game, defender, attacker, counter.damage, result, score)


def _attack_blocks(game: Game, medicine: CardInstance) -> list[tuple[str, Effect]]:
    """The medicine's blocks that run when it is used as an attack, with their headers."""
    found: list[tuple[str, Effect]] = []
    for block in medicine.definition.blocks:
        rule = game.rules.blocks.get(block.name)
        if rule is not None and rule.trigger == MEDICINE_TRIGGER and block.run is not None:
            found.append((rule.written(block.args), block.run))
    return found


MEDICINE_TRIGGER = "use_as_attack"
"""The trigger of a medicine's block that resolves on the loser of a medicine attack."""


def _medicine_given(
    game: Game,
    attacker: Player,
    defender: Player,
    medicine: CardInstance,
    result: CombatResult,
    score: str,
) -> CombatResult:
    game.event(
        "combat",
        f"{attacker.name} wins {score}: {defender.name} is given {medicine.title}",
        winner=attacker.name,
    )
    # The defender is the "you" of the medicine's effects while it resolves.
    turn = game.state.current
    game.state.current = seat_index(game.state.players, defender)
    try:
        for header, run in _attack_blocks(game, medicine):
            game.resolve(medicine, run, header)
    finally:
        game.state.current = turn
    return result


def _attacker_wins(
    game: Game,
    attacker: Player,
    defender: Player,
    gear: Loadout,
    result: CombatResult,
    score: str,
) -> CombatResult:
    if result.action == "attack":
        return _hurt(game, attacker, defender, gear.damage, result, score)
    items = list(defender.items)
    if not items:
        game.event(
            "combat",
            f"{attacker.name} wins {score}: {defender.name} has nothing to take",
            winner=attacker.name,
        )
        return result
    prompt = f"{attacker.name} takes from {defender.name}"
    item = items[game.decide("item", prompt, [i.title for i in items])]
    defender.items.remove(item)
    attacker.items.append(item)
    game.event(
        "combat",
        f"{attacker.name} wins {score}: takes {item.title} from {defender.name}",
        winner=attacker.name,
        uid=item.uid,
    )
    return result.with_stolen(item)


def _hurt(
    game: Game, winner: Player, loser: Player, damage: int, result: CombatResult, score: str
) -> CombatResult:
    game.event(
        "combat",
        f"{winner.name} wins {score}: {loser.name} takes {damage} damage",
        winner=winner.name,
        damage=damage,
    )
    taken = hurt(game, loser, damage)
    return result.with_damage(taken, loser.name)


def steal(
    game: Game,
    attacker: Player,
    defender: Player,
    *,
    weapons: Sequence[CardInstance] | None = None,
    defence: str | None = None,
    defender_weapons: Sequence[CardInstance] | None = None,
) -> CombatResult:
    """Resolve a steal: `attack` with the action declared as a steal."""
    return attack(
        game,
        attacker,
        defender,
        "steal",
        weapons=weapons,
        defence=defence,
        defender_weapons=defender_weapons,
    )


def prepare_attack(game: Game, card: CardInstance, call: CheckCall) -> Pool:
    """`check attack`: the player attacks what the card describes, with weapons of their
    choice; the card's outcomes count the successes."""
    player = game.player
    gear = choose_loadout(game, player, "attacks")
    modifier = int(call.arg("modifier", 0) or 0)
    label = f"check attack ({gear.label})"
    return attack_pool(game, player, gear, label, extra=modifier, rule=call.rule)


def prepare_dodge(game: Game, card: CardInstance, call: CheckCall) -> Pool:
    """`check dodge`: the player dodges what the card describes."""
    modifier = int(call.arg("modifier", 0) or 0)
    return dodge_pool(game, game.player, extra=modifier, rule=call.rule)


COMBAT_PROCEDURES = {
    ATTACK: replace(POOL, prepare=prepare_attack, settle=None),
    DODGE: replace(POOL, prepare=prepare_dodge, settle=None),
}
"""The check procedures of combat that cards can call for: pools prepared as a fight's are."""
