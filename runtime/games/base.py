"""The base module: verbs, values and card play that most card games share."""

from __future__ import annotations

from typing import Any

from runtime.cards import CardInstance
from runtime.game import Game
from runtime.games.base_checks import BASE_CHECKS
from runtime.module import GameModule, ValueDef
from runtime.state import Player


def gain(game: Game, card: CardInstance, *, stat: str, amount: int, subject: str = "you") -> None:
    """`gain {stat} {amount} [for {subject}]`."""
    for actor in game.subjects(subject, card):
        game.change(stat, amount, actor)


def lose(game: Game, card: CardInstance, *, stat: str, amount: int, subject: str = "you") -> None:
    """`lose {stat} {amount} [for {subject}]`."""
    for actor in game.subjects(subject, card):
        game.change(stat, -amount, actor)


def advance(game: Game, card: CardInstance, *, track: str, amount: int = 1) -> None:
    """`advance {track} [{amount}]`."""
    game.advance(track, amount)


def set_back(game: Game, card: CardInstance, *, track: str, amount: int = 1) -> None:
    """`set back {track} [{amount}]`."""
    game.advance(track, -amount)


def add_tokens(game: Game, card: CardInstance, *, token: str, amount: int) -> None:
    """`put {amount} {token} on this`."""
    game.add_tokens(card, token, amount)


def take_tokens(game: Game, card: CardInstance, *, token: str, amount: int) -> None:
    """`remove {amount} {token} from this`."""
    game.add_tokens(card, token, -amount)


def target_stat(game: Game, card: CardInstance, *, stat: str) -> int:
    """A stat of the target (0 with no target, or one without that stat)."""
    target = game.state.target
    return game.stat(stat, target) if target is not None else 0


def track_value(game: Game, card: CardInstance, *, track: str) -> int:
    """Where a track of the game stands."""
    return game.state.tracks[track]


def set_track(game: Game, card: CardInstance, value: int, *, track: str) -> None:
    """`given insomnia 3`: a track where a test wants it."""
    game.state.tracks[track] = value
    game.event("given", f"{track} is {value}", track=track, value=value)


def tokens_value(game: Game, card: CardInstance, *, token: str) -> int:
    """How many tokens of a kind are on the card being resolved."""
    rule = game.rules.world.tracks.get(token)
    return card.tokens.get(token, rule.start if rule else 0)


def set_tokens(game: Game, card: CardInstance, value: int, *, token: str) -> None:
    """`given charges on this 2`."""
    card.tokens[token] = value
    game.event("given", f"{token} on this is {value}", token=token, value=value)


def move_to(game: Game, card: CardInstance, *, place: str) -> None:
    """`move to {place}`."""
    game.move(place)


def draw(game: Game, card: CardInstance, *, deck: str, count: int = 1) -> None:
    """`draw {deck} [{count}]`."""
    game.draw(deck, count)


def discard_this(game: Game, card: CardInstance) -> None:
    """`discard this`: the card being resolved."""
    game.discard(card)


def flip_this(game: Game, card: CardInstance) -> None:
    """`flip this`: a two-sided card turns to its other side, for good."""
    game.step()
    if card.flipped:
        game.event("flip", f"{card.definition.label} is already flipped", uid=card.uid)
        return
    card.flipped = True
    game.event("flip", f"{card.definition.label} is flipped to its other side", uid=card.uid)


def this_flipped(game: Game, card: CardInstance) -> bool:
    """`this is flipped`."""
    return card.flipped


def end_turn(game: Game, card: CardInstance) -> None:
    """`end turn`."""
    game.end_turn()


def stat_value(game: Game, card: CardInstance, *, stat: str) -> int:
    """A stat with its modifiers."""
    return game.stat(stat)


def set_stat(game: Game, card: CardInstance, value: int, *, stat: str) -> None:
    """`given terror 4`."""
    game.set_stat(stat, value)


def location(game: Game, card: CardInstance) -> str | None:
    """Where the player is."""
    return game.player.location


def set_location(game: Game, card: CardInstance, value: str) -> None:
    """`given location hallway`: put the player there without moving."""
    game.player.location = value
    game.event("given", f"location is {value}", location=value)


def stat_bonus(game: Game, player: Player, args: dict[str, Any]) -> tuple[str, int] | None:
    """`dexterity +1` while the block applies."""
    return str(args["stat"]), int(args["modifier"])


def carry(game: Game, card: CardInstance) -> bool:
    """A drawn card goes to the player's hand; its `when drawn` blocks run. A card that is an
    actor no seat plays (a kind's `sheet:`) comes into play instead, where the player is."""
    actor = game.rules.world.sheet_kind(card.kind)
    if actor is not None and not actor.seated:
        game.spawn(actor.name, game.player.location, card)
    else:
        game.player.items.append(card)
    game.fire("drawn", [card])
    return True


def narrate(game: Game, card: CardInstance) -> None:
    """Read what the kind narrates first and the option titles only; resolve the one picked."""
    name = game.rules.narrated.get(card.kind)
    if name is not None and name in card.definition.properties and game.hears("narrate"):
        game.event("narrate", f"“{card.definition.properties[name]}”")
    options = card.definition.options
    if not options:  # the checker lets a card of a kind with options have none
        game.event("narrate", f"{card.definition.label} offers no option to pick")
        return
    titles = tuple(option.title for option in options)
    picked = options[game.decide("option", "pick an option", titles, card=card)]
    game.resolve(card, picked.run, f'option "{picked.title}"')


def play_card(game: Game, card: CardInstance) -> None:
    """Options are narrated; anything else is drawn by the player, then used if it can be."""
    if card.definition.options:
        narrate(game, card)
        return
    game.event("play", f"play {card.definition.label}", uid=card.uid)
    handler = game.module.drawn.get(card.kind) or game.module.drawn["*"]
    handler(game, card)
    if card in game.player.items and game.usable(card):
        game.use(card)


# ---------------------------------------------------------------- whole games' procedures

STAY = "stay"


def step(game: Game, player: Player) -> None:
    """A whole game's `procedure: step`: move to a place next to this one, picked by the seat."""
    here = player.location
    places = sorted(game.rules.world.board.neighbours(here)) if here is not None else []
    picked = game.decide("step", "move to", [STAY, *places], default=1 if places else 0)
    if picked:
        game.move(places[picked - 1])


def can_step(game: Game, player: Player) -> bool:
    """Whether there is a place next to the seat's."""
    here = player.location
    return here is not None and bool(game.rules.world.board.neighbours(here))


def use_card(game: Game, player: Player) -> None:
    """A whole game's `procedure: use_card`: use one of the seat's cards, picked by the seat."""
    cards = _usable(game, player)
    if cards:
        game.use(cards[game.decide("item", "use", [c.title for c in cards], default=0)])


def can_use_card(game: Game, player: Player) -> bool:
    """Whether the seat holds a card it can use."""
    return bool(_usable(game, player))


def _usable(game: Game, player: Player) -> list[CardInstance]:
    return [card for card in [*player.items, *player.owned] if game.usable(card)]


BASE = GameModule(
    name="base",
    verbs={
        "gain": gain,
        "lose": lose,
        "move_to": move_to,
        "draw": draw,
        "discard_this": discard_this,
        "end_turn": end_turn,
        "flip_this": flip_this,
        "advance": advance,
        "set_back": set_back,
        "add_tokens": add_tokens,
        "take_tokens": take_tokens,
    },
    conditions={"this_flipped": this_flipped},
    values={
        "stat": ValueDef(stat_value, set_stat),
        "location": ValueDef(location, set_location),
        "target_stat": ValueDef(target_stat),
        "track": ValueDef(track_value, set_track),
        "tokens_on_this": ValueDef(tokens_value, set_tokens),
    },
    modifiers={"stat_bonus": stat_bonus},
    checks=BASE_CHECKS,
    drawn={"*": carry},
    procedures={"step": step, "use_card": use_card},
    can={"step": can_step, "use_card": can_use_card},
    announces=frozenset({"drawn"}),
    played={"*": play_card},
    guided=frozenset({"step"}),
)

MODULE = BASE
"""The game module `runtime: base` names: what most card games share."""
