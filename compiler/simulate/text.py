"""The figures of a sweep, and the differences of a comparison, in words: the lines
`pillbox simulate` prints, and the rows of the page's table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runtime.simulation.figures import Figures
from runtime.simulation.ladder import FLOOR


def _until(summary: Figures) -> str:
    """How far the games were played: to the end of a phase, or of the game (its last)."""
    return (
        "to the game's end"
        if summary.get("to the end")
        else f"to the end of the {summary['until']}"
    )


def figure_lines(summary: Figures) -> list[str]:
    """The figures of a sweep, as lines of text for a terminal."""
    played = summary["played"]
    policies = _policies(summary["policies"])
    lines = [
        f"{summary['pack']}: {summary['games']} games of {summary['players']} players "
        f"({policies}), seed {summary['seed']}, {_until(summary)}",
    ]
    if set(summary["policies"]) == {"random"}:
        lines.append(f"{FLOOR} (--ladder plays the same seeds under stronger seats)")
    for phase, parts in summary["phases"].items():
        lines.append(f"{phase}: rounds {_spread(parts['rounds'])}; turns {_spread(parts['turns'])}")
    lines.append("results: " + _shares(summary["results"]))
    if summary["stopped"]:
        lines.append("cut short: " + _shares(summary["stopped"]))
    for label, entry in summary["labels"].items():
        lines.append(f"{label} ({entry['games']} games): {_shares(entry['values'])}")
        for value, results in entry.get("results", {}).items():
            lines.append(f"  {label} {value}: {_shares(results)}")
    for name, spread in summary["tallies"].items():
        lines.append(f"{name}: {_spread(spread)}")
    deaths = summary["deaths"]
    lines.append(f"deaths a game: {_spread(deaths['per game'])}")
    if deaths["round"]["count"]:
        lines.append(f"round of a death: {_spread(deaths['round'])}")
    for stat, entry in summary["stats"].items():
        rounds = entry["by round"]
        shown = [r for r in rounds if r["round"] in _milestones(len(rounds))]
        path = ", ".join(f"r{r['round']} {_number(r['mean'])}" for r in shown)
        lines.append(
            f"{stat} of the living, by round: {path}; at the end {_spread(entry['at end'])}"
        )
    seats = summary["seats"]
    if seats["games"]:
        rates = ", ".join(
            f"seat {s['seat']} ({s['policy']}) {_percent(s['win rate'])} ({s['wins']})"
            for s in seats["by seat"]
        )
        lines.append(f"wins ({seats['games']} games): {rates}; balance {seats['balance']:.3f}")
    lines += _card_lines(summary["cards"], played)
    failed = summary["games"] - summary["played"]  # all of them; "failed" names the first
    if failed:
        lines.append(f"failed: {failed} of {summary['games']} games")
    return lines


def record_lines(summary: Figures) -> list[str]:
    """The figures of the played records, headed apart from the simulated games'."""
    players = _policies(summary["policies"])
    head = (
        f"played records in {summary['folder']}: {summary['games']} games of "
        f"{summary['players']} players ({players}), replayed to their end, not simulated"
    )
    body = figure_lines(summary)[1:]
    return ["", head, *(f"  {line}" for line in body if not line.startswith(FLOOR))]


def _card_lines(cards: dict[str, Any], played: int) -> list[str]:
    lines = [f"cards ({played} games): drawn, a game; change a draw; share of deaths"]
    width = max((len(title) for title in cards), default=0)
    for title, entry in cards.items():
        changes = ", ".join(
            f"{stat} {value:+.2f}" for stat, value in entry["change per draw"].items() if value
        )
        per_game = entry["drawn"] / played if played else 0.0
        deaths = _percent(entry["death share"]) if entry["death share"] else "-"
        lines.append(
            f"  {title:<{width}}  {entry['drawn']:>6} {per_game:>5.2f}  "
            f"{changes or '-'}; deaths {deaths} ({entry['deaths']})"
        )
    return lines


def _policies(policies: Sequence[str]) -> str:
    return f"{policies[0]} every seat" if len(set(policies)) == 1 else ", ".join(policies)


def _milestones(rounds: int) -> set[int]:
    """Up to six rounds to show of a stat's path: the first, the last, some between."""
    return {1, rounds, *(round(rounds * k / 5) for k in range(1, 5))} - {0}


def _spread(spread: Figures) -> str:
    if not spread["count"]:
        return "none"
    return (
        f"mean {_number(spread['mean'])}, median {_number(spread['median'])}, "
        f"90th percentile {_number(spread['p90'])} ({spread['count']})"
    )


def _shares(entries: dict[str, Any]) -> str:
    return (
        ", ".join(
            f"{value} {_percent(entry['share'])} ({entry['count']})"
            for value, entry in entries.items()
        )
        or "none"
    )


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{share * 100:.1f} %"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}".rstrip("0").rstrip(".")


def difference_lines(compared: Figures) -> list[str]:
    """The differences of a comparison (the other pack less this one), each with its 95 %
    interval; a star marks those whose interval leaves out 0."""
    lines = []
    by_breakdown = compared.get("win rate by value")
    if by_breakdown:
        label, theirs = by_breakdown["label"], compared["pack"]
        lines.append(f"won by {label}, this pack → {theirs} (95 % interval, games):")
        for value, sides in by_breakdown["values"].items():
            lines.append(f"  {value}: {rate_text(sides['base'])} → {rate_text(sides['other'])}")
    lines.append(
        f"compared with {compared['pack']} ({compared['played']} games): the difference, "
        "its 95 % interval; * where it leaves out 0"
    )
    return lines + [_difference(name, entry) for name, entry in _compared(compared)]


def rate_text(entry: Figures | None) -> str:
    """A win rate, its interval and its games; a dash where there were none."""
    if not entry or not entry.get("games"):
        return "-"
    low, high = entry["interval"]
    return f"{entry['win rate'] * 100:.1f} % [{low * 100:.0f}-{high * 100:.0f}] ({entry['games']})"


def difference_rows(compared: Figures) -> list[dict[str, Any]]:
    """The differences of a comparison as rows of a table: name, the two values, the
    difference and its interval, and whether the interval leaves out 0."""
    return [
        {
            "name": name,
            "base": _number(entry["base"]),
            "other": _number(entry["other"]),
            "difference": "-" if entry["difference"] is None else f"{entry['difference']:+.3f}",
            "interval": (
                "-" if entry["low"] is None else f"[{entry['low']:+.3f}, {entry['high']:+.3f}]"
            ),
            "shows": _shows(entry),
        }
        for name, entry in _compared(compared)
    ]


def _compared(compared: Figures) -> list[tuple[str, Figures]]:
    """Every difference of a comparison, named; the cards' only where the games show one."""
    difference = compared["difference"]
    rows: list[tuple[str, Figures]] = []
    for phase, parts in difference["phases"].items():
        rows += [(f"{phase} {what}", entry) for what, entry in parts.items()]
    for group in ("results", "stopped"):
        rows += [(f"{group}: {value}", entry) for value, entry in difference[group].items()]
    for label, values in difference["labels"].items():
        rows += [(f"{label}: {value}", entry) for value, entry in values.items()]
    rows += list(difference["tallies"].items())
    rows += [(f"deaths: {what}", entry) for what, entry in difference["deaths"].items()]
    rows += [(f"{stat} at the end", entry) for stat, entry in difference["stats at end"].items()]
    rows += [
        (f"win rate of seat {seat}", entry)
        for seat, entry in enumerate(difference["win rate by seat"], start=1)
        if entry["difference"] is not None
    ]
    rows += [
        (f"games {title} is drawn in", entry)
        for title, entry in difference["cards: games drawn in"].items()
        if _shows(entry)
    ]
    return rows


def _shows(entry: Figures) -> bool:
    """Whether a difference's interval leaves out 0."""
    return entry["difference"] is not None and (entry["low"] > 0 or entry["high"] < 0)


def _difference(name: str, entry: Figures) -> str:
    if entry["difference"] is None:
        return f"  {name}: -"
    mark = " *" if _shows(entry) else ""
    return (
        f"  {name}: {_number(entry['base'])} → {_number(entry['other'])}, "
        f"{entry['difference']:+.3f} [{entry['low']:+.3f}, {entry['high']:+.3f}]{mark}"
    )
