"""W0324: a pack that cannot reach the end of the game its ruleset plays, and what it lacks.

What a whole game needs is the ruleset's to say, never this module's: `game: needs:` gives, for
each kind, the fewest cards of it a game reaches its end with (copies counted) and why, and
the card language of `game:` (a setup, an action) may name cards by their title in a slot that
takes the titles of some kinds, which the pack must then have. A pack whose ruleset declares
no game, or a loose set of card files, is not a game and gets no warning; a pack with errors
gets none either, as cards that did not read are not counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from compiler.ir import AnyCard
from compiler.pack import Pack, display_path
from compiler.passes import walk_effects
from compiler.ruleset import Ruleset
from compiler.wholegame import SECTION, lowered_whole
from dsl.spans import Diagnostic, Span

CODE = "W0324"


def pack_counts(cards: Iterable[AnyCard]) -> tuple[dict[str, int], dict[str, list[str]]]:
    """The cards of each kind (copies counted) and the kinds of each title: what the warning
    reads of a pack, kept in a check's summary."""
    counts: dict[str, int] = {}
    titles: dict[str, list[str]] = {}
    for card in cards:
        copies = card["properties"].get("copies")
        counts[card["kind"]] = counts.get(card["kind"], 0) + (
            copies if isinstance(copies, int) and copies > 0 else 1
        )
        kinds = titles.setdefault(card["title"], [])
        if card["kind"] not in kinds:
            kinds.append(card["kind"])
    return counts, titles


def game_needs_problems(
    pack: Pack, ruleset: Ruleset, counts: Mapping[str, int], titles: Mapping[str, list[str]]
) -> list[Diagnostic]:
    """W0324 at pack.yaml for each thing the game needs that the pack lacks."""
    section = ruleset.data.get(SECTION)
    if not isinstance(section, dict) or pack.listed is not None:
        return []
    span = Span(display_path(pack.manifest), 1, 1, 1, 1)
    if pack.ruleset_span is not None:  # the caret under the ruleset's name
        at = pack.ruleset_span
        span = Span(at.file, at.line, at.column, at.line, at.column + max(len(pack.ruleset), 1))
    found = list(_too_few(section.get("needs") or {}, counts, span))
    found += _unnamed(ruleset, titles, span)
    return found


def _too_few(
    needs: Mapping[str, Any], counts: Mapping[str, int], span: Span
) -> Iterator[Diagnostic]:
    for kind, need in needs.items():
        if need is None:  # an extending ruleset's `null`: no longer needed
            continue
        wanted, why = int(need.get("cards", 1)), need.get("why")
        have = counts.get(kind, 0)
        if have >= wanted:
            continue
        held = (
            f"{have} of the {wanted} {kind} cards a game needs"
            if have
            else f"no {kind} card, and a game needs {wanted}"
        )
        more = wanted - have
        yield Diagnostic(
            CODE,
            "warning",
            f"a game cannot reach its end: the pack has {held}",
            span,
            (f"{why}: " if why else "")
            + f"add {more} {kind} card{'' if more == 1 else 's'} "
            + f"(`pillbox vocab {kind}` lists what one may say)",
        )


def _unnamed(ruleset: Ruleset, titles: Mapping[str, list[str]], span: Span) -> Iterator[Diagnostic]:
    """The cards the game's own card language names by title that the pack lacks."""
    lowered = lowered_whole(ruleset)
    if lowered is None:
        return
    for _shown, _text, card in lowered.cards.values():
        for block in card["blocks"]:
            for effect in walk_effects(block.get("effects", [])):
                pattern = ruleset.verbs.by_name.get(str(effect.get("verb")))
                args = effect.get("args") or {}
                for slot in pattern.slots if pattern is not None else ():
                    wanted = slot.type.titles
                    named = args.get(slot.name) if wanted else None
                    for title in named if isinstance(named, list) else [named]:
                        if not isinstance(title, str) or set(titles.get(title, ())) & set(wanted):
                            continue
                        kinds = " or ".join(wanted)
                        yield Diagnostic(
                            CODE,
                            "warning",
                            f"a game cannot reach its end: the game's {block['block']} names "
                            f'the {kinds} "{title}", which is no card of the pack',
                            span,
                            f'add a {kinds} card titled "{title}", or give the pack a '
                            "ruleset of its own whose `game:` names one of its cards",
                        )
