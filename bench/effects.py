"""Benchmark compiled effects against hand-written Python doing the same on the same runtime.

For three specimen cards — a check with outcomes and a `may` (The Figure at the End of the
Hall, "Back away"), a roll table (Unlabeled Vial, `use`) and an if / else-if chain over game
state (Clue A, `when drawn`) — it times the function pillbox generated and a function a
programmer would write by hand against the same runtime API, over identically seeded games.
Before timing, it checks that both produce the same event log, so the comparison is of equals.

It prints one line per card: microseconds per call of each and the ratio compiled /
hand-written, with the goal (≤ 1.2) and PASS or MISS. It always exits 0: it reports, it does
not gate. Run `python bench/effects.py` or `make bench`.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from compiler.build import CompiledPack, compile_pack, load_checked  # noqa: E402
from runtime.cards import CardDef, CardInstance, Effect  # noqa: E402
from runtime.decisions import FirstChoice  # noqa: E402
from runtime.game import Game, RunEnded  # noqa: E402
from runtime.games.coma_ward_pool import stat_check  # noqa: E402
from runtime.games.coma_ward_rules import (  # noqa: E402
    bonus_next,
    phenomenon_revealed,
    reveal_phenomenon,
    rummage,
)

GOAL_RATIO = 1.2
CALLS_PER_GAME = 500
"""Calls on one game before a fresh one: the state (discards, terror) must not drift far."""
GAMES = 40
REPEATS = 9

FIGURE_LOW = "It is suddenly beside you. You fall back into the hall, and it is gone."
FIGURE_HIGH = "You throw yourself aside as it lunges. Its wail sinks into the walls."


def back_away(game: Game, card: CardInstance) -> None:
    """The Figure at the End of the Hall, option "Back away", by hand."""
    successes = stat_check(game, card, "dexterity")
    if successes <= 1:
        game.say(card, FIGURE_LOW)
        game.change("terror", 1)
        game.move("hallway")
    else:
        game.say(card, FIGURE_HIGH)
        if game.may(card, "search the room"):
            rummage(game, card)


def vial(game: Game, card: CardInstance) -> None:
    """Unlabeled Vial, `use`, by hand."""
    game.discard(card)
    face = game.roll(card, 1, 6)
    if face <= 2:
        game.change("health", -1)
    elif face <= 4:
        game.change("terror", 1)
    else:
        game.change("health", 1)
        game.change("terror", -1)


def clue_a(game: Game, card: CardInstance) -> None:
    """Clue A, `when drawn`, by hand."""
    if phenomenon_revealed(game, card):
        game.discard(card)
        game.draw("item")
    elif len(game.state.found) == 3:
        reveal_phenomenon(game, card)
    else:
        bonus_next(game, card, check_name="attack", modifier=1)


def compiled_pack() -> CompiledPack:
    """The specimen pack, checked and compiled."""
    loaded = load_checked(ROOT / "tests" / "specimens" / "coma-ward")
    assert loaded.pack is not None, "the specimens must check"
    return compile_pack(loaded.pack)


def find(pack: CompiledPack, title: str) -> CardDef:
    """A specimen card by title."""
    return next(card for card in pack.cards if card.title == title)


def cases(pack: CompiledPack) -> list[tuple[str, CardDef, Effect, Effect]]:
    """(label, card, compiled function, hand-written function) for each benchmarked card."""
    figure = find(pack, "The Figure at the End of the Hall")
    vial_card = find(pack, "Unlabeled Vial")
    clue = find(pack, "Clue A")

    def block(card: CardDef, name: str) -> Effect:
        found = card.block(name)
        assert found is not None and found.run is not None
        return found.run

    return [
        ('"Back away" (check, may)', figure, figure.options[2].run, back_away),
        ("Unlabeled Vial (roll table)", vial_card, block(vial_card, "use"), vial),
        ("Clue A (if chain)", clue, block(clue, "when_drawn"), clue_a),
    ]


def fresh_games(pack: CompiledPack, card: CardDef, games: int) -> list[tuple[Game, CardInstance]]:
    """Seeded games, each with the card in play; made before timing starts."""
    out = []
    for seed in range(games):
        game = pack.new_game(seed=seed, decisions=FirstChoice(), budget=10**9)
        out.append((game, game.new_instance(card)))
    return out


def call_all(games: list[tuple[Game, CardInstance]], effect: Effect) -> int:
    """Call the effect up to CALLS_PER_GAME times on each game; give the calls that ran.

    A game whose character dies (terror past 5 turns into lost health) ends there, as play
    would: both functions follow the same seeded games, so they make the same calls.
    """
    calls = 0
    for game, this in games:
        try:
            for _ in range(CALLS_PER_GAME):
                calls += 1
                effect(game, this)
        except RunEnded:
            pass
    return calls


def same_logs(pack: CompiledPack, card: CardDef, one: Effect, other: Effect) -> bool:
    """Whether both functions log the same events over the same seeded games."""
    logs = []
    for effect in (one, other):
        games = fresh_games(pack, card, 3)
        call_all(games, effect)
        logs.append([game.log.to_json() for game, _ in games])
    return logs[0] == logs[1]


def timed(pack: CompiledPack, card: CardDef, effect: Effect) -> float:
    """Seconds per call, timing the calls alone on fresh games, the collector out of the way."""
    games = fresh_games(pack, card, GAMES)
    gc.collect()
    gc.disable()
    start = time.perf_counter()
    calls = call_all(games, effect)
    elapsed = time.perf_counter() - start
    gc.enable()
    return elapsed / calls


def best_times(pack: CompiledPack, card: CardDef, one: Effect, other: Effect) -> list[float]:
    """The best of REPEATS timings of each function, taken in turns so load hits both."""
    best = [float("inf"), float("inf")]
    for _ in range(REPEATS):
        for index, effect in enumerate((one, other)):
            best[index] = min(best[index], timed(pack, card, effect))
    return best


def main() -> None:
    """Print the figures."""
    pack = compiled_pack()
    calls = GAMES * CALLS_PER_GAME
    print(f"compiled effects vs hand-written, up to {calls:,} calls each, best of {REPEATS}:")
    for label, card, compiled, by_hand in cases(pack):
        if not same_logs(pack, card, compiled, by_hand):
            print(f"  {label}: the hand-written function logs differently; not compared")
            continue
        compiled_time, hand_time = best_times(pack, card, compiled, by_hand)
        ratio = compiled_time / hand_time
        print(
            f"  {label:<30} compiled {compiled_time * 1e6:6.2f} µs   "
            f"hand-written {hand_time * 1e6:6.2f} µs   ratio {ratio:.2f} "
            f"(goal ≤ {GOAL_RATIO}) {'PASS' if ratio <= GOAL_RATIO else 'MISS'}"
        )


if __name__ == "__main__":
    main()
