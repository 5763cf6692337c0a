"""Helpers the test modules share: run the CLI in-process, write a pack to a folder."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from compiler.build import CompiledPack, compile_pack, load_checked
from compiler.cli import main
from runtime.cards import CardDef
from runtime.datagame import whole_game_of
from runtime.game import Game
from runtime.state import Actor
from runtime.whole import WholeGame

ROOT_PACKS = Path(__file__).resolve().parent.parent / "content"
"""The bundled packs."""


def run(*args: str) -> tuple[int, str]:
    """Run the CLI in-process; give the exit code and everything it printed."""
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def make_pack(folder: Path, manifest: str | None = None, **cards: str) -> Path:
    """Write a pack folder with a pack.yaml and card files named by keyword."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pack.yaml").write_text(
        manifest or "pack: test-pack\ntitle: Test\nversion: 0.1.0\nruleset: coma-ward\n"
    )
    for name, text in cards.items():
        (folder / f"{name}.card").write_text(text)
    return folder


def house_rules_pack(folder: Path, name: str, rules: str, cards: str) -> Path:
    """A pack of its own ruleset (`rules.yaml`, beside it) and one card file."""
    manifest = f"pack: {name}\ntitle: {name.title()}\nversion: 0.1.0\nruleset: rules.yaml\n"
    make_pack(folder, manifest, cards=cards)
    (folder / "rules.yaml").write_text(rules)
    return folder


def compiled(folder: Path) -> CompiledPack:
    """A pack checked clean (its diagnostics are the assertion's message) and compiled."""
    loaded = load_checked(folder)
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    return compile_pack(loaded.pack)


def card(pack: CompiledPack, title: str) -> CardDef:
    """The card of the pack with this title (its first variant)."""
    return next(c for c in pack.cards if c.title == title)


def sweep_figures(pack: Path, *options: str) -> dict[str, Any]:
    """`pillbox simulate PACK --json` with these options, less what differs from run to run
    (the time it took, the workers)."""
    code, output = run("simulate", str(pack), *options, "--json")
    assert code == 0, output
    report: dict[str, Any] = json.loads(output)
    for key in ("elapsed", "workers", "seconds", "games_per_second"):
        report.pop(key, None)
    return report


@cache
def coma_ward_whole() -> WholeGame:
    """Coma Ward played whole, as its ruleset's `game:` says: compiled once a process."""
    pack = compiled(ROOT_PACKS / "coma-ward")
    return whole_game_of(pack.rules, pack.whole)


_WHOLE: dict[int, tuple[CompiledPack, WholeGame]] = {}


def whole_game(pack: CompiledPack, players: int, seed: int) -> Game:
    """A whole game of the pack, not yet set up: its module with the turns its ruleset's
    `game:` plays (made once a pack, as a sweep makes it once)."""
    kept = _WHOLE.get(id(pack))
    if kept is None or kept[0] is not pack:
        kept = _WHOLE[id(pack)] = (pack, whole_game_of(pack.rules, pack.whole))
    return kept[1].new_game(pack.rules, pack.cards, players, seed)


def seat_turn(game: Game, player: Actor) -> None:
    """One seat's turn as its module plays it (the ruleset's `game:` turn, at a table)."""
    game.module.turns[player.kind](game, player)
