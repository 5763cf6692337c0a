"""A check whose settling reads the exact result (a focus check passes at 3) keeps that apart in
its odds, where the outcome the card writes covers both sides of the mark."""

from __future__ import annotations

from fractions import Fraction

from compiler.build import CompiledPack
from runtime.game import Game
from runtime.odds import Table, card_odds
from tests.conftest import ROOT
from tests.helpers import compiled

PACK = ROOT / "content" / "coma-ward"


def _walk(
    pack: CompiledPack, owned: str | None
) -> list[tuple[tuple[str, ...], Fraction, dict[str, int]]]:
    """The outcomes of "Power Cut" / "Feel along the wall" (2+ successes: -1 Terror), the player
    owning the strip named, its calm side up (Terror 1)."""

    def setup(game: Game) -> None:
        game.player.stats.set("terror", 1)
        if owned is not None:
            strip = next(c for c in pack.cards if c.title == owned)
            game.player.owned.append(game.new_instance(strip))

    table = Table(pack.rules, pack.cards, pack.module, setup)
    card = next(c for c in pack.cards if c.title == "Power Cut")
    (option,) = [o for o in card_odds(table, card) if o.name == "Feel along the wall"]
    return [(o.path, o.probability, o.changes) for o in option.outcomes]


def test_an_outcome_across_the_pass_mark_is_two_paths_when_a_card_listens() -> None:
    pack = compiled(PACK)
    alone = _walk(pack, None)
    listening = _walk(pack, "Counting Things")
    # Alone, the card's two outcomes; owning a strip that answers a passed focus check (a pill
    # on it), 2+ splits at the pass mark: 2 successes fail, 3 or more pass.
    assert len(alone) == 2
    assert len(listening) == 3
    assert sum(p for _, p, _ in listening) == 1
    two_up = {path[-1]: p for path, p, _ in listening if "2+" in path[-1]}
    assert sum(two_up.values()) == next(p for path, p, _ in alone if "2+" in path[-1])
    assert any("passed" in label for label in two_up) and any("failed" in label for label in two_up)
