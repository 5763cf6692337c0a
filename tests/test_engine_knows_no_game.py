"""The engine knows no game: dsl/, compiler/ and the generic runtime (all of runtime/ but its
game modules, runtime/games/) never name a bundled game or its own words, in code, docstrings,
comments, templates or styles. A game's words live in its content folder, its game module and
its docs; an example in the engine's docs is written in words every game could use.

The games are found as the compiler finds them (content folders with a ruleset and a pack),
with the game modules the registry knows; a game's words are its name, its title, the names of
its kinds and stats that no other bundled game has (less the plain words an engine uses in
their own sense, `GENERIC`), and a few more kept here (`MORE_WORDS`).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
import yaml

from compiler.build import load_checked
from compiler.printing.cards import CardRenderer
from compiler.printing.sizes import PrintOptions
from compiler.ruleset import bundled_games, bundled_path
from runtime.games import known_games

ROOT = Path(__file__).resolve().parent.parent

SCANNED = ("dsl", "compiler", "runtime")
"""The generic code, less `GAMES` below it."""

GAMES = ROOT / "runtime" / "games"

SUFFIXES = frozenset({".py", ".lark", ".html", ".css", ".js", ".json", ".yaml", ".txt", ".md"})

LEFT_OUT = frozenset({"dsl/_lark_parser.py"})
"""Lark's generated standalone parser: its words are lark's."""

GENERIC = frozenset(
    {
        # Words an engine uses in its own sense, though one game names a kind or stat so.
        "record", "role", "room", "special", "strength", "character", "dice", "memory",
        "monster", "draw", "page", "status", "condition", "tool", "counters", "red", "green",
        "blue", "foe", "dying", "smash", "skill", "movement", "door", "equipment", "enemy",
    }
)  # fmt: skip

MORE_WORDS = {
    "coma-ward": ("suspense", "phenomena", "neuroses", "prologue"),
    "lobotomy": ("warden",),
    "comanauts": ("comanaut",),
    "cool-name": (),
}
"""Words of a game that are not its kinds' or stats' names, known to be its own."""


def _ruleset(game: str) -> dict[str, object]:
    path = bundled_path(game)
    assert path is not None
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _names(data: dict[str, object]) -> set[str]:
    """The names of a ruleset's kinds and stats (derived, and its actors' too)."""
    names: set[str] = set()
    for section in ("kinds", "stats", "derived"):
        names |= set(data.get(section) or {})  # type: ignore[arg-type]
    for actor in (data.get("actors") or {}).values():  # type: ignore[attr-defined]
        names |= set((actor or {}).get("stats") or {})
    return names


@cache
def game_words() -> dict[str, set[str]]:
    """Each bundled game's words, lower case, `_` and `-` read as a space (read once: the
    rulesets' YAML is half a second, and every game's test asks)."""
    games = bundled_games()
    rulesets = {game: _ruleset(game) for game in games}
    names = {game: _names(data) for game, data in rulesets.items()}
    words: dict[str, set[str]] = {}
    for game in games:
        others = set().union(*(names[g] for g in games if g != game))
        own = {n for n in names[game] - others if len(n) >= 4 and n not in GENERIC}
        title = str(rulesets[game].get("title") or "")
        own |= {game, title, *MORE_WORDS.get(game, ())}
        words[game] = {re.sub(r"[-_]", " ", w.lower()) for w in own if w}
    for module in known_games():  # a game module of no bundled ruleset is named too
        words.setdefault(module, set()).add(module.replace("-", " "))
    return words


def _pattern(word: str) -> re.Pattern[str]:
    spaced = r"[\s_-]+".join(map(re.escape, word.split()))
    return re.compile(rf"(?<![A-Za-z0-9]){spaced}(?:e?s)?(?![A-Za-z0-9])", re.IGNORECASE)


@cache
def scanned_texts() -> tuple[tuple[Path, str, str], ...]:
    """Each scanned file with its text, and the text in lower case to look words up in."""
    texts = [(path, path.read_text(encoding="utf-8", errors="replace")) for path in scanned_files()]
    return tuple((path, text, text.lower()) for path, text in texts)


def scanned_files() -> list[Path]:
    files = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            relative = path.relative_to(ROOT).as_posix()
            if (
                path.is_file()
                and path.suffix in SUFFIXES
                and "__pycache__" not in path.parts
                and not path.is_relative_to(GAMES)
                and relative not in LEFT_OUT
            ):
                files.append(path)
    return files


def test_the_games_and_their_words_are_found() -> None:
    words = game_words()
    assert set(bundled_games()) <= set(words)
    assert {"coma ward", "hallucination", "terror"} <= words["coma-ward"]
    assert {"lobotomy", "insanity"} <= words["lobotomy"]
    assert "cool name" in words["cool-name"] and "comanauts" in words["comanauts"]
    assert not any(w in GENERIC for found in words.values() for w in found)
    assert scanned_files() and not any(p.is_relative_to(GAMES) for p in scanned_files())


@pytest.mark.parametrize("game", bundled_games())
def test_no_generic_file_names_a_game_or_its_words(game: str) -> None:
    patterns = [(word, _pattern(word)) for word in sorted(game_words()[game])]
    hits = []
    for path, text, lowered in scanned_texts():
        # A word's pattern is asked only of a file its first part appears in at all, as a plain
        # substring: each pattern over each line of every file was a second of each game's test.
        present = [(word, pattern) for word, pattern in patterns if word.split()[0] in lowered]
        if not present:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for word, pattern in present:
                if pattern.search(line):
                    where = path.relative_to(ROOT).as_posix()
                    hits.append(f"{where}:{number}: {word!r}: {line.strip()[:100]}")
    assert not hits, f"the engine names {game}:\n" + "\n".join(hits)


def test_a_game_design_reaches_every_pack_of_its_ruleset() -> None:
    """Coma Ward's design is the game's (content/coma-ward/design/), not the generic
    templates': the specimens pack, of the same ruleset with no templates of its own, prints a
    hallucination with it; a game without such a kind never sees it."""

    def renderer(pack: Path) -> CardRenderer:
        checked = load_checked(pack).pack
        assert checked is not None
        return CardRenderer(checked, PrintOptions())

    assert not (ROOT / "compiler" / "printing" / "templates" / "hallucination.html").exists()
    specimens = renderer(ROOT / "tests" / "specimens" / "coma-ward")
    assert specimens.template_for("hallucination") == "hallucination.html"
    assert ".slot.kind-hallucination" in specimens.stylesheet()
    lobotomy = renderer(ROOT / "content" / "lobotomy")
    assert ".kind-hallucination" not in lobotomy.stylesheet()
