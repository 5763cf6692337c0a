"""The game: state, dice, decisions and the event log, and the steps compiled effects call.

Compiled effects are plain functions `effect(game, card)`; the verbs they call (in
`runtime.games`) change the state only through the methods here, so every change is logged and
counted against the step budget.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import count
from typing import Any

from runtime.card_blocks import ALWAYS, BlockIndex, Condition
from runtime.cards import BlockDef, CardDef, CardInstance, Effect
from runtime.checks import (
    ROLL,
    ROLL_TABLE,
    Arm,
    CheckCall,
    CheckProcedure,
    Result,
    Rolled,
    roll_call,
)
from runtime.decisions import YES_NO, Decision, DecisionMaker, RandomDecisions
from runtime.dice import (
    DiceSource,
    ForcedDiceRanOut,
    Roll,
    SeededDice,
    roll_dice,
    shuffle,
)
from runtime.events import Event, EventLog, FigureListener, Listener
from runtime.module import GameModule, Modifier
from runtime.native import mypyc_attr
from runtime.rules import BlockRule, GameRules, ProcedureRule
from runtime.state import Actor, GameState, Player
from runtime.stats import Stats, change_text
from runtime.world import ActorKind, Phase, TrackRule

DEFAULT_BUDGET = 10_000
"""Steps a run may take before it is stopped as a runaway (a card that draws itself...)."""

ModifierPlan = tuple[tuple[Condition, tuple[tuple[Modifier, dict[str, Any]], ...]], ...]
"""A card's modifier blocks where it is: each block's condition and its modifiers' rules."""

MAX_DEPTH = 40
"""Cards resolving inside cards (a trigger that draws a card that triggers...) before a stop."""


class RunawayError(Exception):
    """A run went past its step budget or its depth: some effect loops."""

    def __init__(self, limit: str, allowed: int) -> None:
        super().__init__(limit, allowed)
        self.limit = limit  # "steps" or "depth"
        self.allowed = allowed

    def __str__(self) -> str:
        if self.limit == "depth":
            what = f"cards resolved inside cards more than {self.allowed} deep"
        else:
            what = f"the run took more than {self.allowed} steps"
        return f"{what}; some effect seems to loop"


class RunEnded(Exception):
    """The current player died: whatever was resolving stops, as play would."""


@dataclass
class _Tables:
    """What a game reads off its cards once, shared by every game of the same ruleset and
    module (a sweep plays thousands): each card's blocks and modifier plans."""

    blocks: BlockIndex
    carried: dict[int, ModifierPlan] = field(default_factory=dict)
    owned: dict[int, ModifierPlan] = field(default_factory=dict)


_SHARED: OrderedDict[tuple[int, int], tuple[GameRules, GameModule, _Tables]] = OrderedDict()
"""The tables of the last few rulesets and modules played, by their ids (the entry holds both,
so that no other object takes an id while it is here)."""

_SHARED_LIMIT = 8


def _tables(rules: GameRules, module: GameModule) -> _Tables:
    """The shared tables of this ruleset and module."""
    key = (id(rules), id(module))
    entry = _SHARED.get(key)
    if entry is None:
        entry = _SHARED[key] = (rules, module, _Tables(BlockIndex(rules)))
        while len(_SHARED) > _SHARED_LIMIT:
            _SHARED.popitem(last=False)
    else:
        _SHARED.move_to_end(key)
    return entry[2]


DeckLists = dict[str, tuple[CardDef, ...]]
"""Each deck's cards in the order they are dealt before the shuffle, a copy for each."""

_DECK_LISTS: dict[int, tuple[GameRules, tuple[CardDef, ...], DeckLists]] = {}
"""The deck lists of the last rulesets played, each with the cards they were read from: a
sweep deals the same decks thousands of times (the entry holds the ruleset, so that no other
takes its id)."""


def _same_cards(kept: tuple[CardDef, ...], cards: tuple[CardDef, ...]) -> bool:
    # By identity: `==` would compare every card's fields (interpreted, when compiled).
    return len(kept) == len(cards) and all(card is cards[at] for at, card in enumerate(kept))


def _deck_lists(rules: GameRules, cards: tuple[CardDef, ...]) -> DeckLists:
    """The deck lists of a game of these rules and cards (a pack's cards are handed out in a
    new list each time: they are compared one by one)."""
    entry = _DECK_LISTS.get(id(rules))
    if entry is not None and entry[0] is rules and _same_cards(entry[1], cards):
        return entry[2]
    lists = {
        deck: tuple(card for card in cards if card.kind in kinds for _ in range(card.copies))
        for deck, kinds in rules.decks.items()
    }
    if len(_DECK_LISTS) >= _SHARED_LIMIT:
        _DECK_LISTS.clear()
    _DECK_LISTS[id(rules)] = (rules, cards, lists)
    return lists


@mypyc_attr(allow_interpreted_subclasses=True)  # odds walks and tests subclass it
class Game:
    """One deterministic run: the same seed, cards and answers give the same log."""

    def __init__(
        self,
        rules: GameRules,
        cards: Sequence[CardDef],
        module: GameModule,
        *,
        seed: int = 0,
        dice: DiceSource | None = None,
        decisions: DecisionMaker | None = None,
        players: int = 1,
        budget: int = DEFAULT_BUDGET,
        log: bool = True,
        dealt: GameState | None = None,
        shuffler: random.Random | None = None,
    ) -> None:
        self.rules = rules
        self.module = module
        self.cards = tuple(cards)
        self.seed = seed
        self.dice: DiceSource = dice if dice is not None else SeededDice(seed)
        self.decisions: DecisionMaker = (
            decisions if decisions is not None else RandomDecisions(f"decisions:{seed}")
        )
        self.log = EventLog()
        # Off, events are not kept (a sweep of many games reads none of them): they only go to
        # the listeners, and with none, no event is made at all.
        self.logging = log
        self.listeners: list[Listener] = []
        # The kinds of events the listeners read, when they say so (a sweep reads a few): the
        # others are not made at all, and those made carry their data, not their sentences
        # (`reads_text`). None: every kind, sentences and all.
        self.listening: frozenset[str] | None = None
        # Told of the steps a simulation's figures are read from, with no event made (a
        # sweep's record); whether or not anyone hears the steps' events.
        self.figures: FigureListener | None = None
        self.budget = budget
        self.steps = 0
        self.depth = 0
        self._uids = count(1)
        # Separate streams: a shuffle must not predict the dice that follow it.
        self._shuffler = shuffler if shuffler is not None else random.Random(f"shuffle:{seed}")
        self.shuffles = 0  # shuffles since the decks were dealt: a fork may need the stream
        self.ended = False
        self._current_card: str | None = None
        tables = _tables(rules, module)
        self.blocks = tables.blocks
        self._carried_plans = tables.carried
        self._owned_plans = tables.owned
        # Told of every turn about to start, before anything of it happens: a seat that
        # searches keeps the game as it was there, to play the turn again from it.
        self.turn_watch: Callable[[Actor, Phase], None] | None = None
        if dealt is not None:  # a fork's state, already dealt (`runtime.fork`)
            self.state = dealt
            return
        self.state = GameState(players=[self.new_player(f"player {n + 1}") for n in range(players)])
        for seat, player in enumerate(self.state.players):
            player.seat = seat
        self.state.decks = self._build_decks()
        self.state.discards = {deck: [] for deck in rules.decks}
        self.state.tracks = {
            name: track.start for name, track in rules.world.tracks.items() if track.on == "game"
        }

    # -- setting up -----------------------------------------------------------------------
    def new_player(self, name: str) -> Player:
        """A player with every stat at its start, at the starting place."""
        seated = self.rules.world.actors.get(self.seated_kind)
        rules = seated.stats if seated is not None else self.rules.stats
        return Player(
            name,
            Stats.start(rules, self.rules.derived),
            self.rules.start_place,
            kind=self.seated_kind,
        )

    @property
    def seated_kind(self) -> str:
        """The actor kind of the players' characters."""
        return next((k.name for k in self.rules.world.actors.values() if k.seated), "character")

    def new_instance(self, definition: CardDef) -> CardInstance:
        """A fresh copy of a card, to put in play."""
        return CardInstance(definition, next(self._uids))

    def _build_decks(self) -> dict[str, list[CardInstance]]:
        decks: dict[str, list[CardInstance]] = {}
        for deck, definitions in _deck_lists(self.rules, self.cards).items():
            copies = [self.new_instance(definition) for definition in definitions]
            shuffle(copies, self._shuffler)
            if deck in self.rules.deck_tops:
                copies = self._shuffle_into_top(copies, *self.rules.deck_tops[deck])
            decks[deck] = copies
        return decks

    def _shuffle_into_top(
        self, cards: list[CardInstance], kinds: tuple[str, ...], top: int
    ) -> list[CardInstance]:
        """Shuffle the cards of these kinds into the top `top` other cards (the list's end)."""
        chosen = [card for card in cards if card.kind in kinds]
        rest = [card for card in cards if card.kind not in kinds]
        split = max(len(rest) - top, 0)
        upper = rest[split:] + chosen
        shuffle(upper, self._shuffler)
        return rest[:split] + upper

    def find(self, title: str) -> CardDef | None:
        """The first card of the pack with that title."""
        for card in self.cards:
            if card.title == title:
                return card
        return None

    # -- the log and the budget -----------------------------------------------------------
    @property
    def player(self) -> Player:
        """The player whose turn it is."""
        return self.state.player

    @property
    def actor(self) -> Actor:
        """Whoever `you` is now: the actor whose turn it is (a monster on its turn), else the
        current player."""
        return self.state.acting or self.state.player

    def hears(self, kind: str) -> bool:
        """Whether an event of this kind would reach anyone, kept in the log or read by a
        listener: if not, a caller need not make its text (most of a sweep's cost)."""
        return self.logging or (
            bool(self.listeners) and (self.listening is None or kind in self.listening)
        )

    def reads_text(self) -> bool:
        """Whether anyone heard reads the events' sentences: the log, or a listener of every
        kind; listeners that name their kinds (a sweep's record) read their data only, and
        are told events with no sentence (making them was a twentieth of a compiled sweep)."""
        return self.logging or self.listening is None

    def event(self, kind: str, text: str, **data: Any) -> None:
        """Log one step, under the card being resolved, and tell the listeners (and the
        figure listener, of the steps it counts, whether anyone hears the event or not)."""
        if self.figures is not None:
            self.figures.heard(kind, data, self._current_card)
        if not self.logging and (
            not self.listeners or (self.listening is not None and kind not in self.listening)
        ):
            return
        # tuple.__new__ itself: a named tuple's own __new__ is Python code, a frame of the
        # interpreter for every event even on the compiled runtime
        event = tuple.__new__(Event, (kind, text, data, self._current_card, self.depth))
        if self.logging:
            self.log.add(event)
        for listener in self.listeners:
            listener(event)

    @contextmanager
    def acting_card(self, card: CardInstance) -> Iterator[None]:
        """What happens meanwhile is this card's in the log (a monster attacking from its stat
        line, with no block of the card resolving), so a sweep counts it as the card's."""
        outer, self._current_card = self._current_card, card.title
        try:
            yield
        finally:
            self._current_card = outer

    @contextmanager
    def recording(self) -> Iterator[list[Event]]:
        """The events of a stretch of play as they happen, whether the log is kept or not
        (for rules that read what just happened: the damage an attack dealt)."""
        events: list[Event] = []
        self.listeners.append(events.append)
        listening, self.listening = self.listening, None  # this listener reads every kind
        try:
            yield events
        finally:
            self.listeners.remove(events.append)
            self.listening = listening

    def step(self) -> None:
        """Count one step against the budget; nothing more happens once the run has ended."""
        if self.ended:
            raise RunEnded
        self.steps += 1
        if self.steps > self.budget:
            raise RunawayError("steps", self.budget)

    # -- stats ----------------------------------------------------------------------------
    def stat(self, name: str, player: Player | None = None) -> int:
        """A stat's value with every modifier that applies now."""
        player = player or self.actor
        if name not in player.stats.rules and name not in player.stats.derived:
            return 0  # another kind of actor's stat (a monster's hp): this one has none
        return player.stats.get(name) + self.stat_bonus(name, player)

    def stat_bonus(self, name: str, player: Player) -> int:
        """What the player's carried and owned cards add to a stat right now."""
        bonus = 0
        stats = player.stats
        for card in player.items:
            plan = card.carried_plan
            if plan is None:
                plan = card.carried_plan = self._plan(self._carried_plans, card, "carried")
            if plan:
                bonus += self._bonus(name, player, stats, card, plan)
        for card in player.owned:
            plan = card.owned_plan
            if plan is None:
                plan = card.owned_plan = self._plan(self._owned_plans, card, "owned")
            if plan:
                bonus += self._bonus(name, player, stats, card, plan)
        return bonus

    def _bonus(
        self, name: str, player: Player, stats: Stats, card: CardInstance, plan: ModifierPlan
    ) -> int:
        bonus = 0
        for condition, modifiers in plan:
            if condition is not ALWAYS and not condition.holds(card, stats):
                continue
            for apply, args in modifiers:
                change = apply(self, player, args)
                if change is not None and change[0] == name:
                    bonus += change[1]
        return bonus

    def _plan(self, plans: dict[int, ModifierPlan], card: CardInstance, where: str) -> ModifierPlan:
        plan = plans.get(id(card.definition))
        if plan is None:
            plan = plans[id(card.definition)] = self._modifier_plan(card.definition, where)
        return plan

    def _modifier_plan(self, definition: CardDef, where: str) -> ModifierPlan:
        """The card's modifier blocks that apply where it is (carried, owned), each with the
        module's rule for every modifier it has one for: read once per card and ruleset, since
        stats are asked for hundreds of times a turn and most cards modify none. (Kept by the
        card's id: the block index holds the definition, so no other object takes its id.)"""
        return tuple(
            (
                applying.condition,
                tuple(
                    (apply, modifier.args)
                    for modifier in applying.block.modifiers
                    if (apply := self.module.modifiers.get(modifier.name)) is not None
                ),
            )
            for applying in self.blocks.of(definition).applying_when(where)
        )

    def holds(self, card: CardInstance, block: BlockDef, rule: BlockRule, player: Player) -> bool:
        """Whether a block is in force now: its stat window, its band, the side it is on."""
        return self.blocks.condition(block, rule).holds(card, player.stats)

    def change(self, name: str, delta: int, player: Player | None = None) -> None:
        """Raise or lower a tracked stat within its bounds, logging what happened."""
        self.step()
        player = player or self.actor
        if name not in player.stats.rules:
            self.event("stat", f"{player.name} has no {name}", stat=name, actor=player.name)
            return
        was_dead = player.dead
        heard = self.hears("stat")
        figures = self.figures
        if not heard and figures is None:
            player.stats.change(name, delta, told=False)  # no one hears its sentences
            if player.dead and not was_dead:
                self._died(player)
            return
        # What the change did to every stat (an overflow reaches another), for the figures
        # of a simulation: on the first sentence only, so that summing them counts it once.
        told = heard and self.reads_text()
        values = player.stats.values
        if player.stats.rules[name].above_max is None:  # it reaches no other stat
            was = values[name]
            sentences = player.stats.change(name, delta, told)
            actual = values[name] - was
            changed = {name: actual} if actual else {}
        else:
            before = dict(values)
            sentences = player.stats.change(name, delta, told)
            changed = {
                stat: value - before[stat]
                for stat, value in values.items()
                if value != before.get(stat, value)
            }
        # Keywords, never a `**` of a dict: mypyc makes that a generic call (a fifth of what a
        # heard change cost a compiled sweep).
        if not heard:  # no event made: the figures are told of the change as its event would
            assert figures is not None
            figures.stat_changed(player.name, self._current_card, changed)
        elif not told:  # read for its data only: the first sentence's event, with no sentence
            self.event("stat", "", stat=name, delta=delta, actor=player.name, changed=changed)
        else:
            for number, sentence in enumerate(sentences):
                text = self._whose(player, sentence)
                if number:
                    self.event("stat", text, stat=name, delta=delta, actor=player.name)
                else:
                    self.event(
                        "stat", text, stat=name, delta=delta, actor=player.name, changed=changed
                    )
        if player.dead and not was_dead:
            self._died(player)

    def restored(self, actor: Actor, name: str, start: int, spent: int) -> None:
        """Tell of a stat set back to its start with `spent` of it spent (a turn's action
        points), as of any change: in the log, and to the figures of a simulation."""
        if self.hears("stat"):
            self.event(
                "stat",
                f"{actor.name}'s {name} back to {start}",
                stat=name,
                delta=spent,
                actor=actor.name,
                changed={name: spent},
            )
        elif self.figures is not None:  # no event made
            self.figures.stat_changed(actor.name, self._current_card, {name: spent})

    def kill(self, actor: Actor, reason: str) -> None:
        """An actor dies of a game's own rule rather than at a stat's bound (a dying
        character's last round runs out); the death is logged and hooked as any other."""
        self.step()
        if actor.dead:
            return
        actor.stats.dead = True
        self.event("stat", self._whose(actor, reason), actor=actor.name)
        self._died(actor)

    def _died(self, player: Actor) -> None:
        """What follows any death: the log, the module's hook, the end of a run of one turn."""
        self.event("death", f"{player.name} dies", player=player.name)
        self.hook("death", player)
        # A run of one turn ends with its player (even one the game brings back).
        if player is self.player and self.state.round == 0:
            self.ended = True
            self.event("end", "the run ends: the current player is dead")

    def _whose(self, actor: Actor, sentence: str) -> str:
        """A sentence of the log, naming the actor unless it is the current player."""
        return sentence if actor is self.player else f"{actor.name}: {sentence}"

    def hook(self, moment: str, player: Player) -> None:
        """What the game module does at one of the engine's moments, if anything."""
        rule = self.module.hooks.get(moment)
        if rule is not None:
            rule(self, player)

    def set_stat(self, name: str, value: int, player: Player | None = None) -> None:
        """Set a stat as a test's `given` does (a derived stat is pinned)."""
        player = player or self.actor
        player.stats.set(name, value)
        self.event("given", f"{name} is {value}", stat=name, value=value)

    # -- decisions ------------------------------------------------------------------------
    def decide(
        self,
        kind: str,
        prompt: str,
        choices: Sequence[str],
        default: int | None = None,
        asked: Actor | None = None,
        card: CardInstance | None = None,
    ) -> int:
        """Ask the decision maker and log the answer (`default`: the rule's answer when a card
        test gives none; `asked`: the character who answers, when not the one whose turn it is,
        so that a seat's policy answers for its own character; `card`: the card whose options
        are offered)."""
        self.step()
        seat = asked.seat if asked is not None else None
        offered = card.definition if card is not None else None
        index = self.decisions.decide(
            Decision(kind, prompt, tuple(choices), default, seat, offered)
        )
        if self.hears("decide"):
            self.event(
                "decide", f"{prompt}: {choices[index]}", question=prompt, answer=choices[index]
            )
        return index

    def choose(self, card: CardInstance, titles: tuple[str, ...]) -> int:
        """A `choose` block: the player picks one of the titles; its index."""
        return self.decide("option", "choose", titles)

    def may(self, card: CardInstance, prompt: str) -> bool:
        """A `may` block: the player says yes or no."""
        return self.decide("yes-no", f"you may {prompt}", YES_NO) == 0

    # -- dice -----------------------------------------------------------------------------
    def check(self, card: CardInstance, call: CheckCall) -> Result:
        """Make a check: its procedure prepares it, rolls it and settles what follows."""
        self.step()
        procedure = self.procedure(call.rule)
        prepared = procedure.prepare(self, card, call)
        try:
            rolled = self.roll_check(procedure, prepared, call)
        except ForcedDiceRanOut as error:
            if error.wanted_by is not None:
                raise
            what = f"`{call.header}`" if call.header else f"the {call.rule.name} check"
            raise ForcedDiceRanOut(error.faces, f"{what} of {card.definition.label}") from None
        amended = None
        if procedure.settle is not None:
            amended = procedure.settle(self, card, call, prepared, rolled)
        return rolled.result if amended is None else amended

    def procedure(self, rule: ProcedureRule) -> CheckProcedure:
        """The module's procedure that runs a ruleset's check (a roll table's own, unless the
        module rolls its tables itself: a procedure of its own named `roll`)."""
        if rule is ROLL_TABLE:
            return self.module.checks.get(ROLL_TABLE.procedure, ROLL)
        return self.module.checks[rule.procedure]

    def roll_check(self, procedure: CheckProcedure, prepared: Any, call: CheckCall) -> Rolled:
        """The dice of a prepared check, logged (the odds walker branches here instead)."""
        rolled = procedure.roll(self, prepared)
        if self.hears(rolled.kind):
            self.event(rolled.kind, rolled.text, check=call.rule.name, **dict(rolled.data))
        return rolled

    def roll(self, card: CardInstance, count: int, sides: int, arms: tuple[Arm, ...] = ()) -> int:
        """A `roll` table: roll the dice and give their sum."""
        total = self.check(card, roll_call(count, sides, arms))
        assert isinstance(total, int)
        return total

    def roll_dice(self, count: int, sides: int) -> Roll:
        """Summed dice, for a procedure's roll step."""
        return roll_dice(count, sides, self.dice)

    def repeat(self, card: CardInstance, times: int) -> Iterator[int]:
        """`repeat N`: each pass counts as a step, so nested repeats cannot run away."""
        for _ in range(times):
            self.step()
            yield _

    def no_outcome(self, card: CardInstance, result: int | str) -> None:
        """A check or roll whose result no outcome of the card covers."""
        self.step()
        self.event("outcome", f"no outcome of the card covers {result}", result=result)

    # -- words ----------------------------------------------------------------------------
    def say(self, card: CardInstance, text: str) -> None:
        """Flavour text the narrator reads."""
        self.step()
        if self.hears("say"):
            self.event("say", f"“{text}”")

    def rule(self, card: CardInstance, text: str) -> None:
        """A rule printed on the card that the simulator does not run."""
        self.step()
        self.event("rule", f"not simulated: {text}")

    # -- cards in play --------------------------------------------------------------------
    def resolve(self, card: CardInstance, effect: Effect, what: str) -> None:
        """Run one compiled block of a card, one level deeper in the log."""
        self.step()
        if self.depth >= MAX_DEPTH:
            raise RunawayError("depth", MAX_DEPTH)
        if self.hears("resolve"):
            self.event("resolve", f"{card.definition.label}: {what}", uid=card.uid)
        outer, self._current_card = self._current_card, card.title
        self.depth += 1
        try:
            effect(self, card)
        except RunEnded:
            if self.depth > 1:
                raise  # unwind to the outermost card
        finally:
            self.depth -= 1
            self._current_card = outer

    def fire(self, trigger: str, cards: Iterable[CardInstance]) -> None:
        """Run what the game module does when the trigger fires, then every block of these
        cards that it starts."""
        reaction = self.module.reactions.get(trigger)
        if reaction is not None:
            reaction(self)
        for card in list(cards):
            # Most cards have no block the trigger starts: one lookup each, no calls.
            started_by = card.started
            if started_by is None:
                started_by = card.started = self.blocks.of(card.definition).started
            for started in started_by.get(trigger, ()):
                condition = started.condition
                if condition is not ALWAYS and not condition.holds(card, self.actor.stats):
                    continue
                if started.rule.once:
                    if started.block.name in card.spent:
                        continue
                    card.spent.add(started.block.name)
                self.resolve(card, started.run, started.header)

    def listens(self, triggers: Iterable[str], cards: Iterable[CardInstance]) -> bool:
        """Whether any of these cards has a block that one of the triggers starts."""
        wanted = set(triggers)
        return any(
            not wanted.isdisjoint(self.blocks.of(card.definition).triggers) for card in cards
        )

    def usable(self, card: CardInstance) -> bool:
        """Whether the card has a block that using it runs, or a kind the module uses."""
        return card.kind in self.module.using or "use" in self.blocks.of(card.definition).triggers

    def use(self, card: CardInstance) -> None:
        """Use a card the player has (its `use` blocks)."""
        if not self.usable(card):
            self.event("use", f"{card.definition.label} has nothing to use")
            return
        waiting = [
            f"{card.tokens[t.name]} {t.name}"
            for t in self.rules.world.tracks.values()
            if t.blocks_use and card.tokens.get(t.name, 0) > 0
        ]
        if waiting:
            self.event("use", f"{card.definition.label} cannot be used yet: {', '.join(waiting)}")
            return
        rule = self.module.using.get(card.kind) or self.module.using.get("*")
        try:  # the player died; the log says so
            if rule is None:
                self.fire("use", [card])
            else:
                rule(self, card, lambda: self.fire("use", [card]))
        except RunEnded:  # not suppress(): on a hot path its context manager cost a call
            pass

    def play(self, definition: CardDef) -> CardInstance:
        """Bring a card into play as its kind says (narrate, reveal, carry and use...)."""
        card = self.new_instance(definition)
        self.play_instance(card)
        return card

    def play_instance(self, card: CardInstance) -> None:
        """Bring this copy of a card into play as its kind says."""
        handler = self.module.played.get(card.kind) or self.module.played["*"]
        try:  # noqa: SIM105 - the player died; the log says so
            handler(self, card)
        except RunEnded:  # not suppress(): on a hot path its context manager cost a call
            pass

    def draw(self, deck: str, count: int = 1) -> None:
        """Draw cards from a deck; each comes into play as its kind says."""
        for _ in range(count):
            self.step()
            pile = self.state.decks.get(deck)
            if pile is None:
                self.event("draw", f"there is no {deck} deck")
                return
            if not pile and self.state.discards.get(deck):
                pile.extend(self.state.discards[deck])
                self.state.discards[deck].clear()
                shuffle(pile, self._shuffler)
                self.shuffles += 1
                self.event("shuffle", f"the {deck} deck is empty: its discards are shuffled in")
            if not pile:
                self.event("draw", f"the {deck} deck is empty")
                return
            card = self.from_deck(pile.pop())
            if self.hears("draw"):
                self.event(
                    "draw",
                    f"draw {deck}: {card.definition.label}" if self.reads_text() else "",
                    deck=deck,
                    uid=card.uid,
                    title=card.title,
                )
            elif self.figures is not None:  # no event made
                self.figures.drawn(card.title)
            handler = self.module.drawn.get(card.kind) or self.module.drawn["*"]
            if handler(self, card) is False:
                return

    def from_deck(self, card: CardInstance) -> CardInstance:
        """A card taken out of a deck or a discard pile, to put anywhere else: the card itself,
        or when the pile is a fork's that holds the cards of the copy it was forked from
        (`CardInstance.lent`), its own copy of it (what is done to it then never reaches that
        copy)."""
        return card.copy() if card.lent else card

    def deck_of(self, card: CardInstance) -> str | None:
        """The deck a card comes from and is discarded to."""
        return self.rules.kind_decks.get(card.kind)

    def take(self, card: CardInstance) -> None:
        """Take a card out of wherever it is in play."""
        for player in self.state.players:
            for pile in (player.items, player.owned):
                if card in pile:
                    pile.remove(card)
        if card in self.state.found:
            self.state.found.remove(card)
        for place, placed in list(self.state.in_play.items()):
            if placed is card:
                del self.state.in_play[place]
        for pile in self.state.floor.values():
            if card in pile:
                pile.remove(card)

    def discard(self, card: CardInstance) -> None:
        """Put a card in play onto its deck's discard pile."""
        self.step()
        self.take(card)
        deck = self.deck_of(card)
        if deck is not None:
            self.state.discards.setdefault(deck, []).append(card)
        if self.hears("discard"):
            self.event("discard", f"discard {card.definition.label}", uid=card.uid)

    def at_place(self, where: str | None, place: str | None) -> bool:
        """Whether a location is a place, or one of that place's spaces (either way round)."""
        if where is None or place is None:
            return where == place
        board = self.rules.world.board
        return board.is_in(where, place) or board.is_in(place, where)

    def move(self, place: str) -> None:
        """Move the player; what ending a move there does is the game module's. A place with
        spaces (an area) means the nearest of them."""
        self.step()
        player = self.player
        written, place = place, self.nearest_space(place, player.location)
        shown = place if written == place else f"{written} ({place})"  # the card's word first
        refusal = self.module.refusals.get("move")
        reason = refusal(self, player, place) if refusal is not None else None
        if reason is not None:
            self.event("move", f"{player.location or 'nowhere'} → {shown}: {reason}", to=place)
            return
        self.event("move", f"move: {player.location or 'nowhere'} → {shown}", to=place)
        player.location = place
        self.hook("move_ended", player)

    def nearest_space(self, place: str, start: str | None) -> str:
        """The place itself, or, for an area, its space fewest moves from `start` (the first
        in board order when none can be walked to)."""
        board = self.rules.world.board
        spaces = {space for space, area in board.areas.items() if area == place}
        if not spaces:
            return place
        walked = board.within(start, len(board.places)) if start is not None else []
        return next((near for near in [*walked, *board.places] if near in spaces), place)

    def end_game(self, result: str, why: str) -> None:
        """The game is over (won, lost): it says so, and nothing more happens."""
        self.state.over = result
        self.event("over", f"the game is {result}: {why}", result=result)
        self.ended = True

    def end_turn(self) -> None:
        """End the turn at once; what happens at the end of a turn is the game module's."""
        player = self.player
        if player.turn_over:
            return
        player.turn_over = True
        if self.hears("turn"):
            self.event("turn", f"{player.name}'s turn ends")
        self.hook("turn_ended", player)

    # -- actors, places, tracks ----------------------------------------------------------
    def spawn(
        self,
        kind: str,
        place: str | None = None,
        sheet: CardInstance | CardDef | None = None,
        name: str | None = None,
    ) -> Actor:
        """Bring an actor that no one plays into the game: a monster from its card (the copy
        drawn, or a new copy of the card named)."""
        self.step()
        rule = self.rules.world.actors[kind]
        stats = Stats.start(rule.stats, rule.derived)
        card = self.new_instance(sheet) if isinstance(sheet, CardDef) else sheet
        if card is not None:
            _read_sheet(stats, rule, card)
        keywords = frozenset(_words(card.definition.properties.values())) if card else frozenset()
        name = name or (card.definition.title if card else kind)
        same = sum(1 for other in self.state.others if other.name.split(" #")[0] == name)
        actor = Actor(
            f"{name} #{same + 1}" if same else name,
            stats,
            place,
            kind=kind,
            sheet=card,
            keywords=keywords & rule.keywords,
        )
        self.state.others.append(actor)
        self.event(
            "spawn",
            f"{actor.name} ({kind}) comes into play at {place or 'no place'}",
            actor=actor.name,
            place=place,
        )
        self.hook("spawned", actor)
        return actor

    def seat(self, player: Player, card: CardInstance) -> None:
        """Give a player's character the numbers its card prints (a character card): each
        stat's start and maximum that the seated kind reads from its sheet."""
        self.step()
        rule = self.rules.world.actors.get(player.kind)
        if rule is None:
            return
        _read_sheet(player.stats, rule, card)
        shown = ", ".join(f"{name} {player.stats.get(name)}" for name in player.stats.rules)
        self.event("seat", f"{player.name} is {card.title}: {shown}", uid=card.uid)

    def shuffle(self, cards: list[CardInstance]) -> None:
        """Shuffle cards with the deck shuffler (never the dice: a test's forced faces stay)."""
        shuffle(cards, self._shuffler)
        self.shuffles += 1

    def actors_of(self, kind: str, place: str | None = None) -> list[Actor]:
        """The living actors of a kind, all of them or those at one place."""
        return [
            actor
            for actor in self.state.actors
            if actor.kind == kind and not actor.dead and (place is None or actor.location == place)
        ]

    def subjects(self, subject: str, card: CardInstance | None = None) -> list[Actor]:
        """The actors a verb's subject names: `you`, `the target`, `each monster here`...

        `you`, `here` and `other` are said from the card's side: on an actor's own card (a
        monster's) they are that actor and its place; on any other card, whoever acts now.
        """
        speaker = self.owner_of(card) or self.actor
        if subject == "you":
            return [speaker]
        if subject == "the target":
            target = self.state.target
            return [target] if target is not None and not target.dead else []
        words = subject.split()  # each [other] KIND [here]
        local = words[-1] == "here"
        place = speaker.location
        if local and place is None:
            return []
        chosen = self.actors_of(words[-2] if local else words[-1], place if local else None)
        if words[1] == "other":
            chosen = [actor for actor in chosen if actor is not speaker]
        return chosen

    def owner_of(self, card: CardInstance | None) -> Actor | None:
        """The actor a card is (a monster's card), if it is one: the one standing, where a card
        that was a dead actor's has come back as another (a defeated hostile returns)."""
        if card is None:
            return None
        dead: Actor | None = None
        for actor in self.state.others:
            if actor.sheet is card:
                if not actor.dead:
                    return actor
                if dead is None:
                    dead = actor
        return dead

    def target(self, actor: Actor | None) -> None:
        """Make an actor the one `the target` names."""
        self.state.target = actor
        self.event("target", f"target: {actor.name if actor else 'none'}")

    def advance(self, track: str, delta: int) -> None:
        """Move a game track by `delta` within its bounds; at an end, its trigger fires."""
        self.step()
        rule = self.rules.world.tracks[track]
        before = self.state.tracks[track]
        after = max(rule.low, min(rule.high, before + delta))
        self.state.tracks[track] = after
        self.event("track", change_text(track, before, after, delta), track=track)
        reaction = self.module.on_track.get(track)
        if reaction is not None and after != before:
            reaction(self, before, after)
        self._track_end(rule, before, after, self.cards_in_play())
        self._past_max(rule, before + delta, self.cards_in_play())

    def add_tokens(self, card: CardInstance, token: str, delta: int) -> None:
        """Add (or take, with a negative `delta`) tokens of a kind on a card, within bounds."""
        self.step()
        rule = self.rules.world.tracks.get(token)
        before = card.tokens.get(token, rule.start if rule else 0)
        after = before + delta
        if rule is not None:
            after = max(rule.low, min(rule.high, after))
        card.tokens[token] = after
        self.event(
            "tokens",
            f"{card.definition.label}: {token} {before} → {after}",
            uid=card.uid,
            token=token,
        )
        if rule is not None:
            self._track_end(rule, before, after, [card])
            self._past_max(rule, before + delta, [card])

    def _track_end(
        self, rule: TrackRule, before: int, after: int, cards: Sequence[CardInstance]
    ) -> None:
        for trigger, end in ((rule.at_max, rule.high), (rule.at_min, rule.low)):
            if trigger is not None and after == end != before:
                self.event("track", f"{rule.name} reaches {end}: {trigger}", track=rule.name)
                self.fire(trigger, cards)

    def _past_max(self, rule: TrackRule, wanted: int, cards: Sequence[CardInstance]) -> None:
        """A track pushed past its maximum, at it or on the way, fires its `past_max`."""
        if rule.past_max is not None and wanted > rule.high:
            self.event("track", f"{rule.name} is pushed past {rule.high}: {rule.past_max}")
            self.fire(rule.past_max, cards)

    def cards_in_play(self) -> list[CardInstance]:
        """Every card in play: what the living actors carry and own and are, and those at
        places (a monster killed is out of play, and so is its card)."""
        cards: list[CardInstance] = []
        for actor in self.state.actors:
            if actor.dead:
                continue
            cards += [*actor.items, *actor.owned, *([actor.sheet] if actor.sheet else [])]
        return cards + list(self.state.in_play.values())

    def phase_step(self, phase: Phase, step: str) -> None:
        """Run one of the module's steps of a phase."""
        self.step()
        self.event("step", f"{phase.name}: {step}", phase=phase.name)
        self.module.steps[step](self, phase)

    def stat_names(self) -> list[str]:
        """Tracked and derived stats, in the ruleset's order."""
        return [s.name for s in self.rules.stats] + [d.name for d in self.rules.derived]

    def snapshot(self) -> dict[str, Any]:
        """The state as plain data."""
        return self.state.to_json(self.stat_names(), self.stat)


def _read_sheet(stats: Stats, rule: ActorKind, card: CardInstance) -> None:
    """Set the stats an actor's card gives, as its own rules: what a turn refills and a
    respawn restores is the card's start, not the ruleset's (maxima first, so starts fit)."""
    for stat, value in _sheet_numbers(card, rule.maxima, stats):
        bound = stats.rules[stat]
        stats.rules[stat] = replace(bound, high=max(bound.low, value))
        stats.set(stat, stats.get(stat))
    for stat, value in _sheet_numbers(card, rule.starts, stats):
        bound = stats.rules[stat]
        stats.rules[stat] = replace(bound, start=max(bound.low, min(value, bound.high)))
        stats.set(stat, value)


def _sheet_numbers(
    card: CardInstance, names: Mapping[str, str], stats: Stats
) -> Iterator[tuple[str, int]]:
    """(stat, the number of the card's property that names it), for the stats it has."""
    for stat, prop in names.items():
        value = card.definition.properties.get(prop)
        if isinstance(value, int) and stat in stats.rules:
            yield stat, value


def _words(values: Iterable[Any]) -> Iterator[str]:
    """The words among a card's property values (a monster's keywords)."""
    for value in values:
        if isinstance(value, str):
            yield value
        elif isinstance(value, list | tuple):
            yield from (str(word) for word in value)
