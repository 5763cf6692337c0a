"""A fingerprint of many seeded whole games: a hash of every log and end state, to prove a change
to the runtime kept play the same, move for move (a speed-up must print the same fingerprint).

`python scripts/game_fingerprint.py [--games N]` plays Coma Ward at 2, 4 and 6 seats with the
game's own random decisions and with each policy that does not search (`FINGERPRINTED`), to the
game's end, log on, and prints one hash per group and one for all. It also checks that the
log-off run of each game ends in the same state as the log-on run. `--pack content/cool-name
--game cool-name --seats 1,2,4` does the same for another game that plays whole (its ruleset's
`game:` section); a count of seats the game does not allow is left out.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from compiler.build import compile_pack, load_checked  # noqa: E402
from runtime.datagame import whole_game_of  # noqa: E402
from runtime.game import Game  # noqa: E402
from runtime.policies import policy_named, seat_policies  # noqa: E402

FINGERPRINTED = ("random", "cautious", "bold", "odds")
"""The policies whose games are hashed: those that answer without playing the game out (a
seat that searches plays hundreds of playouts a decision; its games are proven the same on
one worker and two in the tests instead)."""


def end_state(game: Game) -> str:
    """The end state of a game as stable text."""
    stats = sorted({name for p in game.state.players for name in p.stats.values})
    return json.dumps(game.state.to_json(stats, game.stat), sort_keys=True, default=str)


def main() -> int:
    """Print the fingerprints; exit 1 if a log-off game ended elsewhere than its log-on twin."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--pack", default=str(ROOT / "content" / "coma-ward"))
    parser.add_argument("--game", default="coma-ward")
    parser.add_argument("--seats", default="2,4,6", help="the counts of seats, comma-separated")
    args = parser.parse_args()
    loaded = load_checked(Path(args.pack))
    assert loaded.pack is not None
    pack = compile_pack(loaded.pack)
    assert pack.rules.game == args.game, f"the pack plays {pack.rules.game}, not {args.game}"
    whole = whole_game_of(pack.rules, pack.whole)
    fewest, most = whole.players
    counts = [int(count) for count in args.seats.split(",")]
    total = hashlib.sha256()
    status = 0
    for policy in (None, *FINGERPRINTED):
        for seats in (n for n in counts if fewest <= n <= most):
            digest = hashlib.sha256()
            for seed in range(args.games):
                twins = []
                for log in (True, False):
                    game = whole.new_game(pack.rules, pack.cards, seats, seed)
                    game.logging = log
                    if policy is not None:
                        seat_policies(game, policy_named(policy))
                    whole.play(game, whole.phases[-1])
                    twins.append(end_state(game))
                    if log:
                        for line in game.log.to_json():
                            digest.update(json.dumps(line, sort_keys=True, default=str).encode())
                        digest.update(repr(whole.outcome(game)).encode())
                if twins[0] != twins[1]:
                    print(f"seed {seed}, {seats} seats, {policy}: log off ends elsewhere")
                    status = 1
                digest.update(twins[0].encode())
            print(f"{policy or 'game'} x{seats}: {digest.hexdigest()[:16]}", flush=True)
            total.update(digest.digest())
    print(f"all: {total.hexdigest()[:16]}")
    return status


if __name__ == "__main__":
    sys.exit(main())
