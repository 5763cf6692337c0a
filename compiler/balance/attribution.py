"""Which of the cards changed since the base moved a band most: each one's change taken back
alone, and the band read again on the same seeds.

A band that moved when several cards changed together says nothing of which one did it. For
each changed card the pack is played again as it is now but with that one card as the base had
it (or without it, when it is new), on the band's own seeds and games: the card's share of the
move is the band's figure now less its figure then. Paired on the same seeds, two sweeps differ
only where the card's rules make them differ, so a small effect shows in a few hundred games.

It is done for a handful of cards at most (MOST_CARDS), and in this process: a worker compiles
the pack from its folder, and the pack weighed here is in no folder.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from compiler.balance.baseline import ChangedCard
from compiler.balance.judge import Verdict
from compiler.bands import TargetError, parse_target, read
from compiler.build import CompiledPack
from compiler.simulate.command import SimulateRequest, make_sweep
from compiler.simulate.pool import Playing, run_sweep
from runtime.cards import CardDef
from runtime.datagame import whole_game_of
from runtime.simulation.figures import figures

MOST_CARDS = 4
"""More cards changed than this are not weighed one by one: each costs a sweep a band."""


@dataclass(frozen=True)
class Share:
    """A changed card's part in a band's move: the band's figure with only that card taken
    back, and how far the card's change moved it (now less then)."""

    card: ChangedCard
    without: float
    moved: float


Progress = Callable[[str], None]


def weigh(
    after: CompiledPack,
    before: CompiledPack,
    cards: Sequence[ChangedCard],
    verdicts: Sequence[Verdict],
    source: tuple[Path, str | None],
    report: Progress,
) -> dict[int, list[Share]]:
    """For each band read on both sides (by its index in `verdicts`), the changed cards'
    shares of its move, the largest first; empty when there are too few cards to tell apart
    or too many to weigh."""
    if not 2 <= len(cards) <= MOST_CARDS:
        return {}
    base_cards = {_key(card): card for card in before.cards}
    shares: dict[int, list[Share]] = {}
    breakdown = after.whole.breakdown if after.whole is not None else None
    for card in cards:
        mixed = _taken_back(after.cards, base_cards, card)
        playing = Playing(whole_game_of(after.rules, after.whole), after.rules, mixed)
        for (policy, players, seed, games), indexes in _sweeps(verdicts).items():
            report(f"balance: weighing {card.kind} {card.title!r}: {games} games, {policy}")
            request = SimulateRequest(games, seed, players, policy)
            sweep = make_sweep(playing.whole, request)
            summary = figures(sweep, run_sweep(playing, source, sweep, games, 1))
            for index in indexes:
                now = verdicts[index].reading
                assert now is not None  # _sweeps holds only bands read
                try:
                    then = read(parse_target(verdicts[index].band.band), summary, breakdown)
                except TargetError:  # the band's figure is gone without the card
                    continue
                shares.setdefault(index, []).append(Share(card, then.value, now.value - then.value))
    for found in shares.values():
        found.sort(key=lambda share: -abs(share.moved))
    return shares


def _sweeps(verdicts: Sequence[Verdict]) -> dict[tuple[str, int | None, int, int], list[int]]:
    """The bands read, by the sweep that read them (policy, players, seed and games played):
    bands judged together are weighed on one sweep."""
    found: dict[tuple[str, int | None, int, int], list[int]] = {}
    for index, verdict in enumerate(verdicts):
        if verdict.reading is not None and verdict.games:
            band = verdict.band
            found.setdefault((band.policy, band.players, band.seed, verdict.games), []).append(
                index
            )
    return found


def _key(card: CardDef | ChangedCard) -> tuple[str, str, int | None]:
    return card.kind, card.title, card.variant


def _taken_back(
    cards: Sequence[CardDef],
    base_cards: dict[tuple[str, str, int | None], CardDef],
    changed: ChangedCard,
) -> list[CardDef]:
    """The pack's cards with this one as the base had it, or left out if the base had none."""
    mixed = []
    for card in cards:
        if _key(card) != _key(changed):
            mixed.append(card)
        elif _key(card) in base_cards:
            mixed.append(base_cards[_key(card)])
    return mixed
