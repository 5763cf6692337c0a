"""Any game whose ruleset declares it whole (`game:`), played from that data.

The round is the ruleset's `turns:` (`runtime.rounds`); on a seat's turn the seat is asked
which of the legal actions to take next, or to end its turn, as a table asks. An action is
legal when the seat can pay its cost from the phase's action stat, has not taken it already if
it is once a turn, has not taken a main action already if it is one, and its `when:` holds.
An actor no seat plays does what the ruleset's `turns:` of `game:` says on its turn, after
what its module does. After every action and every turn the ruleset's endings are read, in
order; a game still going at the round limit is stopped and counted as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import replace
from functools import partial

from runtime.cards import CardDef, CardInstance, Effect, Observe
from runtime.decisions import reads_defaults
from runtime.game import DEFAULT_BUDGET, Game, RunEnded
from runtime.games import game_module
from runtime.module import GameModule, TurnRule
from runtime.rounds import play_round, rounds_until
from runtime.rules import GameRules
from runtime.state import Actor, Player
from runtime.whole import NotWhole, Outcome, WholeGame, phase_over
from runtime.wholerules import END_PHASE, ActionRule, TurnShape, WholeRules

END_TURN = "end the turn"
"""The answer that ends a seat's turn, always offered first."""

ACTIONS_A_TURN = 64
"""The most actions one turn takes: a turn of free actions that never ends is stopped here."""

TAKEN = "took: "
"""The tallies of a game played from data are the actions its seats took."""

STEPS_A_TURN = 20_000
"""An action's step budget when the turns are data: a whole game is thousands of steps, a
runaway effect is caught within one action."""


def whole_game_of(rules: GameRules, whole: WholeRules | None) -> WholeGame:
    """How this game is played whole, as its ruleset's `game:` section says; NotWhole if it
    says nothing of it."""
    if whole is None:
        raise NotWhole(rules.game)
    return data_whole_game(whole)


def data_whole_game(whole: WholeRules) -> WholeGame:
    """The whole game a ruleset's `game:` section describes."""

    made: dict[int, tuple[GameRules, GameModule]] = {}

    def new_game(rules: GameRules, cards: Sequence[CardDef], players: int, seed: int) -> Game:
        if not whole.fewest <= players <= whole.most:
            raise ValueError(f"{rules.name} is played by {whole.fewest} to {whole.most} seats")
        # The module is made once a ruleset: the engine keeps its tables by the module's
        # identity, and a sweep plays thousands of games of one ruleset.
        kept = made.get(id(rules))
        if kept is None or kept[0] is not rules:
            kept = made[id(rules)] = (rules, table_module(rules, whole))
        # A game whose turns are data counts its budget a turn; one whose parts are its
        # module's procedures counts it a game, as those procedures always have.
        budget = STEPS_A_TURN if whole.actions and not whole.parts else DEFAULT_BUDGET
        return Game(rules, cards, kept[1], seed=seed, players=players, budget=budget)

    return WholeGame(
        players=(whole.fewest, whole.most),
        phases=tuple(part.name for part in whole.parts) or (END_PHASE,),
        new_game=new_game,
        play=partial(play, whole),
        outcome=partial(outcome, whole),
    )


def table_module(rules: GameRules, whole: WholeRules) -> GameModule:
    """The module a whole game is played with: the ruleset's, with the tables it adds at the
    table (`whole`) and the turns the data plays."""
    module = game_module(rules.game)
    if module.whole:
        module = module.extend(module.name, **module.whole)
    if whole.worth:
        module = replace(module, progress=partial(progress, whole))
    return _with_turns(rules, module, whole)


def progress(whole: WholeRules, game: Game, seat: int) -> tuple[float, float]:
    """What the ruleset's `worth:` terms earn the seat (its "you") in the game as it stands,
    and their weights in all."""
    card = _card(whole, game)
    state = game.state
    turn = state.current
    state.current = seat
    earned = total = 0.0
    try:
        for term in whole.worth:
            total += term.weight
            if term.when is not None and not term.when(game, card):
                continue
            if term.value is None:
                earned += term.weight
                continue
            read = term.value(game, card)
            number = float(read) if isinstance(read, int | float) else 0.0
            share = (number - term.low) / (term.high - term.low)
            earned += term.weight * min(max(share, 0.0), 1.0)
    finally:
        state.current = turn
    return earned, total


def _with_turns(rules: GameRules, module: GameModule, whole: WholeRules) -> GameModule:
    """The game's module with the seats' turn played from data, and the other actors' turns
    the data adds to their module's."""
    seated = next((k.name for k in rules.world.actors.values() if k.seated), "character")
    turns: dict[str, TurnRule] = {}
    if whole.turn is not None:  # bound at once: a hot path, each turn of every game
        turns[seated] = partial(free_then_main, whole, whole.turn)
    elif whole.actions:
        turns[seated] = partial(take_turn, whole)
    for kind, effect in whole.actor_turns.items():
        turns[kind] = partial(actor_turn, whole, module.turns.get(kind), effect)
    return module.extend(module.name, turns=turns) if turns else module


def _card(whole: WholeRules, game: Game) -> CardInstance:
    """The game's copy of its rules card, made at its first use: what the rules' effects put
    on "this" stays on it for the rest of the game."""
    card = game.state.rules_card
    if card is None:
        assert whole.card is not None, "the compiled rules come with their card"
        # uid 0: no card of the decks has it, and the decks' uids are as they would be
        card = game.state.rules_card = CardInstance(whole.card, 0)
    return card


def setup(whole: WholeRules, game: Game) -> None:
    """The table's setup once, then each seat's, that seat acting."""
    card = _card(whole, game)
    game.state.current = 0
    if whole.setup_table is not None:
        game.resolve(card, whole.setup_table, "setup")
    if whole.setup_procedure is not None:
        game.module.procedures[whole.setup_procedure](game, game.state.players[0])
    if whole.setup_seat is not None:
        for seat in range(len(game.state.players)):
            game.state.current = seat
            game.resolve(card, whole.setup_seat, "each seat's setup")
    game.state.current = 0
    where = game.rules.start_place or "the table"
    game.event("setup", f"{len(game.state.players)} players at {where}")


def legal_actions(
    whole: WholeRules, game: Game, player: Player, taken: set[str]
) -> list[ActionRule]:
    """The actions the seat may take now, in the ruleset's order."""
    card = _card(whole, game)
    points = _action_points(game, player)
    main_taken = any(a.main and a.name in taken for a in whole.actions)
    legal = []
    for action in whole.actions:
        if (action.once and action.name in taken) or (action.main and main_taken):
            continue
        if action.cost and (points is None or points < action.cost):
            continue
        if action.when is not None and not action.when(game, card):
            continue
        able = game.module.can.get(action.procedure) if action.procedure else None
        if able is not None and not able(game, player):
            continue
        legal.append(action)
    return legal


def _action_stat(game: Game) -> str | None:
    name = game.state.phase
    phase = next((p for p in game.rules.world.turns.phases if p.name == name), None)
    return phase.actions if phase is not None else None


def _action_points(game: Game, player: Player) -> int | None:
    stat = _action_stat(game)
    return player.stats.get(stat) if stat is not None else None


def take_turn(whole: WholeRules, game: Game, player: Player) -> None:
    """A seat's turn: legal actions one after another, until the seat ends it or has none."""
    if whole.turn is not None:
        free_then_main(whole, whole.turn, game, player)
        return
    card = _card(whole, game)
    taken: set[str] = set()
    if whole.turn_starts is not None and not game.ended and not player.dead:
        game.resolve(card, whole.turn_starts, "the turn's start")
    for _ in range(ACTIONS_A_TURN):
        game.steps = 0  # the budget is an action's: it catches an effect that loops, not a game
        if game.ended or player.turn_over or player.dead:
            break
        legal = legal_actions(whole, game, player, taken)
        if not legal:
            break
        choices = [END_TURN, *(action.text for action in legal)]
        picked = game.decide("action", "an action, or end the turn", choices, default=1)
        if picked == 0:
            break
        action = legal[picked - 1]
        taken.add(action.name)
        _take(game, player, card, action)
        if _ended(whole, game, card):
            return
    if whole.turn_ends is not None and not game.ended and not player.dead:
        game.resolve(card, whole.turn_ends, "the turn's end")
    _ended(whole, game, card)


class BoundAction:
    """An action of a turn of free actions then one main action with the module's checks and
    procedure it names found once a module, not looked up by name at every offer."""

    def __init__(self, rule: ActionRule, module: GameModule) -> None:
        self.rule = rule
        self.name = rule.name
        self.text = rule.text
        self.main = rule.main
        self.when = rule.when
        self.effect = rule.effect
        self.procedure = rule.procedure
        procedure = rule.procedure
        # None: no check, the action is legal whenever its `when:` holds
        self.able = module.can.get(procedure) if procedure is not None else None
        # None with a procedure named: the module lacks it, which taking the action says
        self.run = module.procedures.get(procedure) if procedure is not None else None
        self.prefer = rule.prefer
        self.preferred = module.can.get(rule.prefer) if rule.prefer is not None else None
        self.follow: BoundAction | None = None  # the action its `then:` takes without asking

    def can(self, game: Game, player: Player, card: CardInstance) -> bool:
        """Whether the seat can take this action now: its `when:` and its module's check."""
        when = self.when
        if when is not None and not when(game, card):
            return False
        able = self.able
        return able is None or able(game, player)

    def preferred_now(self, game: Game, player: Player) -> bool:
        """Whether the module's `prefer:` check makes this action the default answer now."""
        check = self.preferred
        if check is None:
            raise KeyError(self.prefer)
        return check(game, player)


class MainRun:
    """Main actions next to each other in the ruleset that share a list of targets (none: each
    offered once), with that list's procedure found once a module."""

    def __init__(self, targets: str | None, module: GameModule) -> None:
        self.targets = targets
        # None with a list named: the module lacks it, which offering the run says
        self.whom = module.targets.get(targets) if targets is not None else None
        self.actions: list[BoundAction] = []

    def on(self, game: Game, player: Player) -> Sequence[Player]:
        """Whom the run's actions can be taken on now."""
        whom = self.whom
        if whom is None:
            raise KeyError(self.targets)
        return whom(game, player)


class BoundTurn:
    """A turn shape's actions bound to one module: the free ones in order, and the main ones
    as the runs of actions that share a list of targets (offered target by target), in order."""

    def __init__(self, shape: TurnShape, module: GameModule) -> None:
        self.shape = shape
        follow = {name: BoundAction(rule, module) for name, rule in shape.follow.items()}
        self.free = [self._bound(rule, module, follow) for rule in shape.free]
        self.runs: list[MainRun] = []
        for rule in shape.main:
            if not self.runs or self.runs[-1].targets != rule.targets:
                self.runs.append(MainRun(rule.targets, module))
            self.runs[-1].actions.append(self._bound(rule, module, follow))
        self.fallback = shape.fallback
        self.fallback_run = module.procedures.get(shape.fallback) if shape.fallback else None

    @staticmethod
    def _bound(rule: ActionRule, module: GameModule, follow: dict[str, BoundAction]) -> BoundAction:
        bound = BoundAction(rule, module)
        if rule.then is not None:
            bound.follow = follow.get(rule.then)
        return bound


_BOUND: dict[int, tuple[TurnShape, GameModule, BoundTurn]] = {}
"""The turns bound, by their module's identity (a sweep plays one module thousands of times)."""


def bound_turn(shape: TurnShape, module: GameModule) -> BoundTurn:
    """The turn shape bound to the module, bound once."""
    kept = _BOUND.get(id(module))
    if kept is not None and kept[0] is shape and kept[1] is module:
        return kept[2]
    if len(_BOUND) >= 64:  # a process plays a few modules: past that, bind again
        _BOUND.clear()
    bound = BoundTurn(shape, module)
    _BOUND[id(module)] = (shape, module, bound)
    return bound


def free_then_main(whole: WholeRules, shape: TurnShape, game: Game, player: Player) -> None:
    """A turn of free actions, each at most once and in the order the seat picks, then one
    main action: the one an action was followed by (`then:`), or the seat's pick of those it
    can take, each on each of its targets, or when there is none the turn's fallback. A run
    that ends mid-action ends the turn there."""
    card = _card(whole, game)
    game.state.marks.clear()
    if whole.turn_starts is not None and not game.ended and not player.dead:
        game.resolve(card, whole.turn_starts, "the turn's start")
    heads = reads_defaults(game.decisions)  # no default worked out for a maker that skips it
    turn = bound_turn(shape, game.module)
    taken: set[str] = set()
    main: BoundAction | None = None
    # Asked before every free action of every turn: plain loops, no generator (mypyc makes
    # each an object), each test the cheapest first.
    while not game.ended and not player.turn_over and not player.dead:
        free: list[BoundAction] = []
        choices = [shape.on]
        default = 0
        for action in turn.free:
            if action.name not in taken and action.can(game, player, card):
                free.append(action)
                choices.append(action.text)
                if (
                    heads
                    and not default
                    and action.prefer is not None
                    and action.preferred_now(game, player)
                ):
                    default = len(free)
        if not free:
            break
        picked = game.decide(shape.free_kind, shape.free_ask, choices, default=default)
        if picked == 0:
            break
        action = free[picked - 1]
        taken.add(action.name)
        _do(game, player, card, action, shape.tally)
        follow = action.follow
        if follow is not None and not game.ended and follow.can(game, player, card):
            if follow.main:
                main = follow
                break
            _do(game, player, card, follow, shape.tally)
    if not game.ended and not player.turn_over and not player.dead:
        if main is not None:
            _do(game, player, card, main, shape.tally)
        else:
            _main_action(whole, turn, game, player, heads)
    if whole.turn_ends is not None and not game.ended and not player.dead:
        game.resolve(card, whole.turn_ends, "the turn's end")
    if not whole.parts:  # a game of parts ends as its module's procedures say
        _ended(whole, game, card)


def main_action(whole: WholeRules, game: Game, player: Player, heads: bool | None = None) -> None:
    """The main action of a turn of free actions then one main action: the seat's pick of
    those it can take, each on each of its targets (actions that share a list of targets
    offered target by target), or the turn's fallback when it can take none."""
    shape = whole.turn
    assert shape is not None, "a main action is a turn's of free actions then one main action"
    _main_action(whole, bound_turn(shape, game.module), game, player, heads)


def _main_action(
    whole: WholeRules, turn: BoundTurn, game: Game, player: Player, heads: bool | None
) -> None:
    shape = turn.shape
    card = _card(whole, game)
    offered: list[tuple[BoundAction, Actor | None]] = []
    for run in turn.runs:
        if run.targets is None:
            for action in run.actions:
                if action.can(game, player, card):
                    offered.append((action, None))
            continue
        group: list[BoundAction] = []
        for action in run.actions:
            if action.can(game, player, card):
                group.append(action)
        if group:  # offered target by target
            for target in run.on(game, player):
                for action in group:
                    offered.append((action, target))
    if not offered:
        if turn.fallback is not None:
            if turn.fallback_run is None:
                raise KeyError(turn.fallback)
            turn.fallback_run(game, player)
        return
    default = 0
    if heads is None:
        heads = reads_defaults(game.decisions)
    if heads:  # no default worked out for a maker that skips it
        for index, (action, _on) in enumerate(offered):
            if action.prefer is None or action.preferred_now(game, player):
                default = index
                break
    choices = [a.text if on is None else f"{a.text} {on.name}" for a, on in offered]
    action, on = offered[game.decide(shape.main_kind, shape.main_ask, choices, default=default)]
    if on is None:
        _do(game, player, card, action, shape.tally)
        return
    # A procedure reads whom it is taken on as the state's `aim`; an effect, as `the target`
    # (the card language's: it stays the target after it, as a card's `target` leaves it).
    game.state.aim = on
    if action.effect is not None:
        game.state.target = on
    try:
        _do(game, player, card, action, shape.tally)
    finally:
        game.state.aim = None


def _do(game: Game, player: Player, card: CardInstance, action: BoundAction, tally: bool) -> None:
    """Do an action of a free-then-main turn (it has no cost): a run that ends propagates."""
    if tally:
        game.state.count(f"{TAKEN}{action.name}")
    if action.effect is not None:
        game.resolve(card, action.effect, action.text)
    elif action.procedure is not None:
        run = action.run
        if run is None:
            raise KeyError(action.procedure)
        run(game, player)


def actor_turn(
    whole: WholeRules, module_turn: TurnRule | None, effect: Effect, game: Game, actor: Actor
) -> None:
    """The turn of an actor no seat plays: its module's rule, then what the data says, with
    the actor's own card (its sheet) as the card the effect is written on."""
    game.steps = 0
    if module_turn is not None:
        module_turn(game, actor)
    if not game.ended and not actor.dead:
        game.resolve(actor.sheet or _card(whole, game), effect, f"{actor.name}'s turn")
    _ended(whole, game, _card(whole, game))


def _take(game: Game, player: Player, card: CardInstance, action: ActionRule) -> None:
    """Pay an action's cost and do it."""
    game.state.count(f"{TAKEN}{action.name}")
    stat = _action_stat(game)
    if action.cost and stat is not None and not action.self_paid:
        game.change(stat, -action.cost, player)
    if action.effect is not None:
        game.resolve(card, action.effect, action.text)
    elif action.procedure is not None:
        with suppress(RunEnded):  # a run may end mid-procedure: the log says so
            game.module.procedures[action.procedure](game, player)


def _ended(whole: WholeRules, game: Game, card: CardInstance) -> bool:
    """Read the endings in order; end the game at the first that holds."""
    if game.ended:
        return True
    for ending in whole.endings:
        if ending.holds(game, card):
            _end(whole, game, ending.result, ending.text)
            return True
    if all(player.dead for player in game.state.players):
        _end(whole, game, "lost", "every seat is out")
        return True
    return False


def _end(whole: WholeRules, game: Game, result: str, why: str) -> None:
    if result == "won":
        seats = game.state.players
        game.state.winners = [p.name for p in seats if whole.winners == "all" or not p.dead]
    game.end_game(result, why)


def play(whole: WholeRules, game: Game, until: str) -> None:
    """Set the game up and play rounds until an ending holds, the last round is over or the
    round limit stops it (or its parts, to the end of the one named)."""
    phases = [part.name for part in whole.parts] or [END_PHASE]
    if until not in phases:
        raise ValueError(f"{game.rules.name} plays to the end of: {', '.join(phases)}")
    card = _card(whole, game)
    with suppress(RunEnded):  # a run may end mid-setup: the log says so
        setup(whole, game)
    if whole.parts:
        play_parts(whole, game, until)
        return
    _ended(whole, game, card)
    while not game.ended and game.state.round < whole.round_limit:
        if not play_round(game):
            break
        _ended(whole, game, card)
    last = game.rules.world.turns.last_round
    over = last is not None and game.state.round >= last
    if not game.ended and over and whole.after_last_round is not None:
        _end(whole, game, whole.after_last_round, f"round {last}, the last, is over")
    if game.state.over is None:
        game.state.stopped = "round limit"
    phase_over(game, END_PHASE)


def play_parts(whole: WholeRules, game: Game, until: str) -> None:
    """Play the game's parts in order, to the end of the one named: rounds of the seats' turns
    until the part's check holds, then its `then:`; or its module's procedure, when the
    module says it can be played now (`can`): a part that cannot ends the game there."""
    first = game.state.players[0]
    for part in whole.parts:
        if part.until is not None:
            rounds_until(game, game.module.can[part.until], first, part.round_limit)
            if part.then is not None:
                game.module.procedures[part.then](game, first)
        elif part.procedure is not None:
            able = game.module.can.get(part.procedure)
            if able is not None and not able(game, first):
                return
            game.module.procedures[part.procedure](game, first)
        phase_over(game, part.name)
        if part.name == until:
            return


def outcome(whole: WholeRules, game: Game) -> Outcome:
    """How the game ended, the facts the ruleset counts and the actions taken."""
    card = _card(whole, game)
    if whole.notes is not None:
        game.module.procedures[whole.notes](game, game.state.players[0])
    labels: dict[str, str] = dict(game.state.labels)
    for fact in whole.facts:
        try:
            labels[fact.name] = "yes" if fact.holds(game, card) else "no"
        except RunEnded:  # read after the game ended: a value that steps cannot be read
            labels[fact.name] = "no"
    winners = tuple(game.state.winners)
    if game.state.over == "won" and not winners:  # its module ended it: the data's winners
        seats = game.state.players
        winners = tuple(p.name for p in seats if whole.winners == "all" or not p.dead)
    tallies = dict(game.state.tallies)
    for tally in whole.tallies:
        if tally.each_seat:
            tallies[tally.name] = _summed(game, card, tally.value)
        else:
            read = tally.value(game, card)
            tallies[tally.name] = int(read) if isinstance(read, int) else 0
    return Outcome(
        game.state.over,
        winners=winners,
        labels=labels,
        stopped=game.state.stopped,
        tallies=tallies,
    )


def _summed(game: Game, card: CardInstance, value: Observe) -> int:
    """A value read for each seat in turn (its "you"), added up."""
    total = 0
    seat = game.state.current
    for index in range(len(game.state.players)):
        game.state.current = index
        read = value(game, card)
        total += int(read) if isinstance(read, int) else 0
    game.state.current = seat
    return total
