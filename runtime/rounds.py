"""Rounds: the phases of the ruleset's `turns:`, each actor's turn, and the module's steps.

The engine starts each round and each turn, fires the triggers the ruleset names for them and
refills the stat a turn spends (action points); what an actor does on its turn and what a
phase's steps do is the game module's.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.cards import CardInstance
from runtime.game import Game, RunEnded
from runtime.state import Actor
from runtime.world import SEATED, Phase


def play_round(game: Game) -> bool:
    """Play one whole round; False once the game's last round is over (or the run ended)."""
    turns = game.rules.world.turns
    if game.ended or (turns.last_round is not None and game.state.round >= turns.last_round):
        return False
    game.state.round += 1
    game.event("round", f"round {game.state.round} begins", round=game.state.round)
    try:
        if turns.round_trigger is not None:
            game.fire(turns.round_trigger, game.cards_in_play())
        for phase in turns.phases:
            play_phase(game, phase)
    except RunEnded:  # not suppress(): on a hot path its context manager cost a call
        pass
    game.state.phase = None
    return not game.ended


def rounds_until(game: Game, over: Callable[[Game, Actor], bool], first: Actor, limit: int) -> None:
    """Rounds of the first phase's turns, each of its actors' in order, until `over` holds
    for `first` (read before each round and after every turn: the turn that makes it hold is
    the last) or `limit` rounds have begun. No phase is begun and no step runs: a part of a
    game that is turns alone (an opening played until something is found)."""
    phase = game.rules.world.turns.phases[0]
    while not over(game, first) and game.state.round < limit:
        game.state.round += 1
        game.event("round", f"round {game.state.round} begins", round=game.state.round)
        for actor in turn_order(game, phase):
            try:  # noqa: SIM105
                take_turn(game, actor, phase)
            except RunEnded:  # not suppress(): on a hot path its context manager cost a call
                pass
            if over(game, first):
                break


def play_phase(game: Game, phase: Phase) -> None:
    """Each actor of the phase's kind takes a turn, then the phase's steps run."""
    game.state.phase = phase.name
    game.event("phase", f"{phase.name} begins", phase=phase.name)
    if phase.actors is not None:
        for actor in turn_order(game, phase):
            take_turn(game, actor, phase)
    for step in phase.steps:
        game.phase_step(phase, step)


def turn_order(game: Game, phase: Phase) -> list[Actor]:
    """The phase's living actors in the order they take their turns this round: in seat
    order, or, for a phase that `rotates`, from the next of them each round (round 1 from the
    first), as a first player's token passed to the left."""
    actors = game.actors_of(phase.actors or SEATED)
    if phase.rotates and actors:
        first = (game.state.round - 1) % len(actors)
        actors = actors[first:] + actors[:first]
    return actors


def take_turn(game: Game, actor: Actor, phase: Phase) -> None:
    """One actor's turn: its action stat refilled, its start trigger fired, the module's turn."""
    if game.turn_watch is not None:
        game.turn_watch(actor, phase)
    seated = actor.seat is not None
    if seated:
        assert actor.seat is not None
        game.state.current = actor.seat
        game.state.turns += 1
        actor.turn_over = False
    else:
        game.state.acting = actor
    try:
        if game.hears("turn"):
            game.event("turn", f"{actor.name}'s turn begins", actor=actor.name)
        if phase.actions is not None:
            rule = actor.stats.rules[phase.actions]
            spent = rule.start - actor.stats.get(phase.actions)
            actor.stats.set(phase.actions, rule.start)
            if spent:  # the figures of a sweep follow every change
                game.restored(actor, phase.actions, rule.start, spent)
        _tick(game, actor)
        if phase.trigger is not None:
            game.fire(phase.trigger, [*actor.items, *actor.owned, *_sheet(actor)])
        turn = game.module.turns.get(actor.kind)
        if turn is not None and not actor.dead:
            turn(game, actor)
        if seated:
            game.end_turn()
        else:
            if game.hears("turn"):
                game.event("turn", f"{actor.name}'s turn ends", actor=actor.name)
    finally:
        game.state.acting = None


def _tick(game: Game, actor: Actor) -> None:
    """Tokens that count on by themselves each turn of the card's owner (a cooldown down)."""
    ticking = [track for track in game.rules.world.tracks.values() if track.each_turn]
    if not ticking:
        return  # most games have no such tokens: no turn need look at every card for them
    for card in [*actor.items, *actor.owned]:
        for track in ticking:
            end = track.low if track.each_turn < 0 else track.high
            if card.tokens.get(track.name, end) != end:
                game.add_tokens(card, track.name, track.each_turn)


def _sheet(actor: Actor) -> list[CardInstance]:
    return [actor.sheet] if actor.sheet is not None else []
