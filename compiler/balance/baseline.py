"""A change's effect on each band: its figure before (at a git ref, or in a saved verdict file)
and after, with the difference and its 95 % interval, as `simulate --compare` gives them.

The pack at the ref is taken out of git into a scratch folder (`git archive`, nothing run from
it but the checker and the games), judged with the same bands' seeds, and each band read side
by side: "won 15..50%: 28.0 % → 7.0 % (-21.0 ± 7.6 points)". The interval is that of a
difference of two independent shares; both sides play the same seeds, so it errs wide.
"""

from __future__ import annotations

import io
import json
import math
import tarfile
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compiler.balance.judge import Verdict
from compiler.errors import UsageError
from compiler.gitcall import GitError, git

Z95 = 1.96
GIT_SECONDS = 30.0
MAX_ARCHIVE_BYTES = 200 * 1024 * 1024
"""A pack taken out of git larger than this is refused (a pack is a few MB)."""


@dataclass(frozen=True)
class Before:
    """A band's figure on the base side."""

    value: float
    games: int
    share: bool


def key(band: str, policy: str, players: int | None, seed: int) -> tuple[str, str, int | None, int]:
    """What pairs a band with its base: its text and the sweep that judged it."""
    return band, policy, players, seed


def from_verdicts(verdicts: Sequence[Verdict]) -> dict[tuple[str, str, int | None, int], Before]:
    """The base figures of verdicts judged here."""
    return {
        key(v.band.band, v.band.policy, v.band.players, v.band.seed): Before(
            v.reading.value, v.games, v.reading.low != v.reading.high
        )
        for v in verdicts
        if v.reading is not None
    }


def from_file(path: Path) -> dict[tuple[str, str, int | None, int], Before]:
    """The base figures of a verdict file `test --balance --format json` wrote."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {
            key(row["band"], row["policy"], row["players"], row["seed"]): Before(
                float(row["value"]), int(row["games"]), row["low"] != row["high"]
            )
            for row in data["bands"]
            if row.get("value") is not None
        }
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UsageError(
            f"--baseline {path}: not a verdict file of test --balance ({error})"
        ) from None


@contextmanager
def pack_at(ref: str, pack: Path) -> Iterator[Path]:
    """The pack folder as it is at a git ref, in a scratch folder removed afterwards."""
    folder = (pack.parent if pack.name == "pack.yaml" else pack).resolve()
    top = _git(folder, "rev-parse", "--show-toplevel").strip()
    commit = _git(folder, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
    inside = folder.relative_to(Path(top).resolve()).as_posix() or "."
    archive = _git_bytes(Path(top), "archive", "--format=tar", commit, "--", inside)
    with tempfile.TemporaryDirectory(prefix="pillbox-base-") as scratch:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(scratch, filter="data")
        base = Path(scratch) / inside
        if not (base / "pack.yaml").is_file():
            raise UsageError(f"--base {ref}: the pack has no pack.yaml at that commit")
        yield base


def _git(folder: Path, *arguments: str) -> str:
    return _git_bytes(folder, *arguments).decode("utf-8", "replace")


def _git_bytes(folder: Path, *arguments: str) -> bytes:
    try:
        found = git(folder, *arguments, seconds=GIT_SECONDS)
    except GitError as error:
        raise UsageError(f"--base: {error}") from None
    if len(found) > MAX_ARCHIVE_BYTES:
        raise UsageError("--base: the pack at that commit is too large to take out of git")
    return found


def difference(before: Before, after: Verdict) -> dict[str, Any] | None:
    """The band's figure before and after, the difference and its 95 % half-width (a share's
    in points); None when the band could not be read on one side."""
    if after.reading is None:
        return None
    now = after.reading.value
    row: dict[str, Any] = {"before": before.value, "after": now, "difference": now - before.value}
    if before.share and before.games and after.games:
        spread = before.value * (1 - before.value) / before.games + now * (1 - now) / after.games
        row["half width"] = Z95 * math.sqrt(spread)
    return row


def side_by_side(
    verdicts: Sequence[Verdict],
    base: Mapping[tuple[str, str, int | None, int], Before],
    mark: Callable[[Verdict], str],
) -> list[str]:
    """A line a band, in the verdicts' order: before → after (difference ± half-width), or
    that one side has no figure."""
    lines = []
    for verdict in verdicts:
        band = verdict.band
        before = base.get(key(band.band, band.policy, band.players, band.seed))
        change = difference(before, verdict) if before is not None else None
        if before is None or change is None:
            lines.append(f"{band.band}: no figure on both sides ({mark(verdict)})")
            continue
        scale, unit = (100, " points") if before.share else (1, "")
        shown = f"{change['difference'] * scale:+.1f}"
        if "half width" in change:
            shown += f" ± {change['half width'] * scale:.1f}"
        was, now = (
            (f"{change['before'] * 100:.1f} %", f"{change['after'] * 100:.1f} %")
            if before.share
            else (f"{change['before']:.2f}", f"{change['after']:.2f}")
        )
        lines.append(f"{band.band}: {was} → {now} ({shown}{unit}) {mark(verdict)}")
    return lines


PLACE_KEYS = frozenset({"at", "file", "span", "keyword_at", "label_at", "property_at"})
"""Where a card's parts are written, which a moved card keeps or loses without changing."""


@dataclass(frozen=True)
class ChangedCard:
    """A card whose rules differ from the base's, where it is written now."""

    kind: str
    title: str
    variant: int | None
    file: str
    line: int


def changed_cards(before: Sequence[Any], after: Sequence[Any]) -> list[ChangedCard]:
    """The cards (IR) of `after` that are new or whose rules differ from `before`'s."""
    was = {(c["kind"], c["title"], c["variant"]): _rules(c) for c in before}
    return [
        ChangedCard(card["kind"], card["title"], card["variant"], card["file"], card["at"][0])
        for card in after
        if was.get((card["kind"], card["title"], card["variant"])) != _rules(card)
    ]


def _rules(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _rules(v) for k, v in node.items() if k not in PLACE_KEYS}
    if isinstance(node, list):
        return [_rules(v) for v in node]
    return node
