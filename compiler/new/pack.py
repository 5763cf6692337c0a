"""`pillbox new DIR [--ruleset NAME] [--from BUNDLED_PACK] [--game]`: a pack that checks and tests
clean at once, with what a content repository needs beside its cards.

Without `--from`, a bundled game's pack starts as its starter: the smallest pack that plays a
whole game, a pack of its own in the game's content folder (`content/<game>/starter/`, whose
tests check, test and simulate it as it is), copied under the new pack's name. A game with no
starter gets example cards made from the ruleset's own words instead: for each kind, a card
with its required properties (the pattern's own example) and a test; an effect where the kind
has options or a `use` block, each a sound card (options that are not worse than one another,
a use that is spent). The pack is checked and tested before it is written, and a kind whose
example does not come out clean is left out and named in the pack's README (so the promise
"checks and tests clean" holds for any ruleset); such a pack may lack what a whole game needs,
which `check` says (W0324). The pack is made in a temporary folder beside DIR and renamed into
place (inside DIR, when it is an empty folder already, and moved up into it, a rename a
file): nothing half-written is left (short of a SIGKILL among those renames), and nothing
there already is touched.

With `--game`, the pack is a whole game of its own on the base ruleset instead: the starter
game `compiler.new.game` writes, its own ruleset beside its cards.
"""

from __future__ import annotations

import errno
import os
import re
import shlex
import shutil
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from compiler.build import compile_pack, load_checked
from compiler.check import check_paths
from compiler.errors import UsageError
from compiler.files import current_umask
from compiler.new.game import GAME_BASE, RULESET_FILE, set_top_key, write_starter_game
from compiler.new.installsource import Source, install_step, installed_source
from compiler.ruleset import Kind, Ruleset, RulesetError, bundled_games, load_ruleset
from compiler.yamlio import yaml_scalar
from runtime.stats import StatRule, polarity
from runtime.testing import run_test

STARTER = "starter"
"""The folder of a bundled game's starter pack, beside its showcase pack's cards."""

LEFT_BEHIND = ("ruleset.yaml", "ruleset.compiled.json", "design", STARTER)
"""A bundled pack's copy of its bundled ruleset and the game's card design: the new pack names
the ruleset instead, and prints with its design through it; and the game's starter pack."""

NOT_AN_EXAMPLE = frozenset({"W0324"})
"""Warnings an example card is not left out for: one card of each kind is no whole game."""

GITIGNORE = """\
# What pillbox writes: prints, previews, reports, recorded games.
*.pdf
png/
report.html
*.record.json
"""

WORKFLOW = """\
# Every change to the cards is checked and tested (pillbox's docs/ci.md explains each step).
name: cards
on: [push, pull_request]
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with: {python-version: "3.11"}
{install}      - run: pillbox check --format github --strict .
      - run: pillbox fmt --check .
      - run: pillbox test . --format junit > cards-junit.xml
      # Balance: the bands under pack.yaml's balance:, judged on their seeds (docs/ci.md). It
      # plays whole games, a minute or so a band: uncomment it once the pack states its bands.
      # - run: pillbox test --balance --workers 2 --format github .
      - uses: actions/upload-artifact@v4
        if: always()
        with: {name: card-tests, path: cards-junit.xml}
"""


def workflow(source: Source) -> str:
    """The pack's CI workflow, installing pillbox from `source`."""
    return WORKFLOW.replace("{install}", install_step(source))


PRE_COMMIT = """\
# pre-commit: `pip install pre-commit && pre-commit install` runs these before each commit.
repos:
  - repo: local
    hooks:
      - id: pillbox-check
        name: pillbox check
        entry: pillbox check --strict
        language: system
        pass_filenames: false
        files: '\\.(card|ya?ml)$'
      - id: pillbox-test
        name: pillbox test
        entry: pillbox test .
        language: system
        pass_filenames: false
        files: '\\.(card|ya?ml)$'
      - id: pillbox-fmt
        name: pillbox fmt
        entry: pillbox fmt
        language: system
        files: '\\.card$'
"""

TEMPLATES_README = """\
# Templates

Put a file here to change how cards print; anything not here prints with pillbox's own design.

- `card.html`: the face of every card (a jinja2 template; `card` holds its printed words).
- `<kind>.html`: the face of one kind, e.g. `item.html`.
- `back.html`, `back-<deck>.html`: the backs; or an image, `back.png`, `back-<deck>.png`.
- `cards.css`: styles added after pillbox's own.

Images and fonts a template uses must be files inside this pack. `pillbox print . -o cards.pdf
--png png` shows the result; pillbox's docs/printing.md says what a template may use.
"""


PLACEHOLDER = "Write here what the card says."
"""The text of an example's text properties."""


@dataclass(frozen=True)
class Example:
    """One example card: its file name and text."""

    kind: str
    text: str


def new_pack(
    target: Path,
    ruleset_name: str | None,
    bundled: str | None,
    emit: Callable[[str], None],
    game: bool = False,
) -> int:
    """Make the pack folder `target`; say what was made, and what to run next."""
    if target.is_symlink():
        # Made beside a link and renamed onto it, the pack would replace the link, not fill
        # the folder it names: make it there instead.
        target = target.resolve()
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} exists and is a file, not a folder: name a new one")
    if target.exists() and not _empty(target):
        raise UsageError(f"{target} exists and is not an empty folder: name a new one")
    if bundled is not None and ruleset_name is not None:
        raise UsageError("--from copies a bundled pack with its ruleset: give --ruleset or --from")
    if game:
        _refuse_a_game_on(ruleset_name, bundled)
    name = _pack_name(target)
    plays_whole = game  # a game of its own, or a bundled game's starter: say how to play it
    with _made_beside(target) as folder:
        if bundled is not None:
            _copy_bundled(bundled, folder, name)
            made = f"a copy of the bundled pack {bundled!r}"
        elif game:
            _write(folder / "pack.yaml", manifest(name, RULESET_FILE))
            write_starter_game(folder, name, pack_title(name))
            made = (
                f"a whole game of its own, {RULESET_FILE} (extending {GAME_BASE}) and its cards "
                "with their tests: a starter game, to change into yours"
            )
        else:
            ruleset = _ruleset(ruleset_name or default_ruleset())
            starter = resources.files("content").joinpath(ruleset.name, STARTER)
            if starter.joinpath("pack.yaml").is_file():
                _copy_starter(starter, folder, name, ruleset)
                made = f"the smallest {ruleset.title} pack that plays a whole game"
                plays_whole = True
            else:
                left_out = _write_examples(folder, name, ruleset)
                made = f"one example card of each kind of {ruleset.name}"
                if left_out:
                    made += f" (no example of {', '.join(left_out)})"
        _write(folder / ".gitignore", GITIGNORE)
        source = installed_source()
        _write(folder / ".github" / "workflows" / "cards.yml", workflow(source))
        _write(folder / ".pre-commit-config.yaml", PRE_COMMIT)
        templates = folder / "templates"
        templates.mkdir(exist_ok=True)
        if not (templates / "README.md").exists():
            _write(templates / "README.md", TEMPLATES_README)
    emit(f"made {target}: {made}")
    folder_arg = shlex.quote(str(target))  # the commands are pasted into a shell
    emit(f"next: pillbox check {folder_arg} && pillbox test {folder_arg}")
    if source.requirement is None:
        emit(
            f"note: {source.why_not}; fill in the install step of "
            ".github/workflows/cards.yml before CI can run"
        )
    if plays_whole:
        emit(f"play one game: pillbox play {folder_arg} --game --seed 1")
        emit(f"simulate many: pillbox simulate {folder_arg} --games 1000")
    return 0


def _empty(folder: Path) -> bool:
    """Whether a folder holds nothing; a UsageError if it cannot be read."""
    try:
        return not any(folder.iterdir())
    except OSError as error:
        raise UsageError(f"cannot make {folder}: {error.strerror or error}") from None


STARTER_README = """\
# {title}

{about}

```
pillbox check --strict . && pillbox test .
pillbox play . --game --seed 1       # one whole game, every action and roll printed
pillbox simulate . --games 1000      # how often it is won and lost, and what goes with it
pillbox report . -o report.html      # each card's odds, and what stands out
```
{others}"""


def _copy_starter(
    starter: resources.abc.Traversable, folder: Path, name: str, ruleset: Ruleset
) -> None:
    """The game's starter pack under the pack's name, with a README of what it holds."""
    _copy_tree(starter, folder)
    manifest = folder / "pack.yaml"
    # Its opening comment is about the starter; the README says what the new pack holds.
    text = re.sub(r"\A(#[^\n]*\n)+", "", manifest.read_text(encoding="utf-8"))
    text = set_top_key(set_top_key(text, "pack", name), "title", pack_title(name))
    manifest.write_text(text, encoding="utf-8")
    counts = _kinds_written(folder / "cards")
    cards = ", ".join(f"{n} {kind} card{'' if n == 1 else 's'}" for kind, n in counts.items())
    others = [kind for kind in ruleset.kinds if kind not in counts]
    about = (
        f"The smallest {ruleset.title} pack that plays a whole game: {cards}. Each card has "
        "its tests, and each is a sound card to copy: change its words and numbers, and add "
        "cards beside it."
    )
    note = (
        f"Its ruleset has other kinds of card too: {', '.join(others)}. `pillbox vocab KIND` "
        f"lists what a card of one may say, and `pillbox new FOLDER --from {ruleset.name}` "
        "copies the whole bundled pack, to read."
    )
    readme = STARTER_README.format(
        title=pack_title(name),
        about=textwrap.fill(about, 96),
        others=f"\n{textwrap.fill(note, 96)}\n" if others else "",
    )
    _write(folder / "README.md", readme)


def _kinds_written(cards: Path) -> dict[str, int]:
    """How many cards of each kind the starter's card files write, kind by kind as met."""
    counts: dict[str, int] = {}
    for path in sorted(cards.rglob("*.card")):
        for kind in re.findall(r'(?m)^([a-z_][a-z0-9_]*) "', path.read_text(encoding="utf-8")):
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def _refuse_a_game_on(ruleset_name: str | None, bundled: str | None) -> None:
    """`--game` starts a game of its own on the base ruleset, and on nothing else."""
    if bundled is not None:
        raise UsageError(
            "--game starts a game of its own; --from copies a bundled one: give --game or --from"
        )
    if ruleset_name is None or ruleset_name == GAME_BASE:
        return
    if ruleset_name in bundled_games():
        raise UsageError(
            f"--game --ruleset {ruleset_name}: {ruleset_name} is a bundled game, whole already "
            f"(--from {ruleset_name} copies it); --game starts a game of its own on "
            f"--ruleset {GAME_BASE}"
        )
    raise UsageError(f"--game --ruleset {ruleset_name!r}: a game of its own starts on {GAME_BASE}")


def _pack_name(target: Path) -> str:
    """The folder's name as a pack name: lowercase words joined by dashes."""
    name = re.sub(r"[^a-z0-9]+", "-", target.resolve().name.lower()).strip("-")[:64]
    return name or "my-pack"


@contextmanager
def _made_beside(target: Path) -> Iterator[Path]:
    """A temporary folder beside the target, renamed to it when the block ends cleanly; or,
    when the target is an empty folder already, inside it, what it holds moved up into it at
    the end, so that the folder itself stays (its permissions; `pillbox new .` in a shell)."""
    filled = target.is_dir()
    home = target if filled else target.resolve().parent
    try:
        _folders_above(home)
        home.mkdir(parents=True, exist_ok=True)
        prefix = f".{target.resolve().name or 'pack'}."
        work = Path(tempfile.mkdtemp(prefix=prefix, dir=home))
        os.chmod(work, 0o777 & ~current_umask())  # as a new folder gets, not mkdtemp's 0700
    except OSError as error:
        raise UsageError(f"cannot make {target}: {error.strerror or error}") from None
    try:
        yield work
        if filled:
            _move_up(work, target)
        else:
            work.rename(target)
    except OSError as error:
        raise UsageError(f"cannot make {target}: {error.strerror or error}") from None
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)


def _folders_above(folder: Path) -> None:
    """An OSError that names the first of the folders above `folder` that is a file."""
    for above in reversed([folder, *folder.parents]):
        if above.exists() and not above.is_dir():
            raise OSError(errno.ENOTDIR, f"{above} is a file, not a folder", str(above))


def _move_up(work: Path, target: Path) -> None:
    """Move what `work` holds up into `target`, its parent, which holds nothing else: all of
    it, or (when a move fails) none of it."""
    if any(entry.name != work.name for entry in target.iterdir()):
        # Checked empty when the command began: something was put there since.
        raise OSError(errno.ENOTEMPTY, "files were put in it meanwhile", str(target))
    moved: list[str] = []
    try:
        for entry in sorted(work.iterdir()):
            entry.rename(target / entry.name)
            moved.append(entry.name)
    except BaseException:
        for name in reversed(moved):
            with suppress(OSError):
                (target / name).rename(work / name)
        raise


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def default_ruleset() -> str:
    """The ruleset of a new pack when none is named: the first bundled game, by name."""
    games = bundled_games()
    if not games:  # a broken install: pillbox ships its games
        raise UsageError("pillbox ships no bundled game here: name a ruleset with --ruleset")
    return games[0]


def _ruleset(name: str) -> Ruleset:
    games = bundled_games()
    if name not in games:
        also = f" ({GAME_BASE} starts a game of its own with --game)" if name == GAME_BASE else ""
        raise UsageError(f"--ruleset {name!r}: the bundled rulesets are {', '.join(games)}{also}")
    try:
        return load_ruleset(name)
    except RulesetError as error:  # a bundled ruleset is tested; this is a broken install
        raise UsageError(f"--ruleset {name}: {error.diagnostics[0].message}") from None


def _copy_bundled(name: str, folder: Path, pack_name: str) -> None:
    games = bundled_games()
    if name not in games:
        raise UsageError(f"--from {name!r}: the bundled packs are {', '.join(games)}")
    source = resources.files("content").joinpath(name)
    _copy_tree(source, folder)
    manifest = folder / "pack.yaml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(re.sub(r"(?m)^pack: .*$", f"pack: {pack_name}", text, count=1), "utf-8")


def _copy_tree(source: resources.abc.Traversable, folder: Path) -> None:
    for entry in source.iterdir():
        if entry.name in LEFT_BEHIND or entry.name.startswith((".", "__")):
            continue
        if entry.is_dir():
            (folder / entry.name).mkdir()
            _copy_tree(entry, folder / entry.name)
        else:
            (folder / entry.name).write_bytes(entry.read_bytes())


def manifest(name: str, ruleset: str) -> str:
    """The text of a new pack's pack.yaml, naming its ruleset."""
    return (
        f"pack: {yaml_scalar(name)}\ntitle: {yaml_scalar(pack_title(name))}\nversion: 0.1.0\n"
        f"ruleset: {yaml_scalar(ruleset)}\nprint:\n  card: poker\n  paper: a4\n  bleed: 3mm\n"
    )


def pack_title(name: str) -> str:
    """A pack's title made from its name: `my-night-shift` is My Night Shift."""
    return name.replace("-", " ").title()


def _write_examples(folder: Path, name: str, ruleset: Ruleset) -> list[str]:
    """Write pack.yaml and an example card per kind; the kinds whose example is not clean are
    left out, and named."""
    _write(folder / "pack.yaml", manifest(name, ruleset.name))
    cards = folder / "cards"
    cards.mkdir()
    left_out = []
    for kind in ruleset.kinds.values():
        for example in _examples(ruleset, kind):
            path = cards / f"{kind.name}.card"
            _write(path, example.text)
            if _clean(folder):
                break
            path.unlink()
        else:
            left_out.append(kind.name)
    if left_out:
        _write(
            folder / "README.md",
            f"# {name}\n\nNo example card is made for: {', '.join(left_out)}. "
            f"`pillbox vocab KIND` lists what such a card may say.\n",
        )
    return left_out


def _clean(folder: Path) -> bool:
    """Whether the pack checks with no error or warning and every test passes."""
    report = check_paths([folder], use_cache=False)
    if any(d.code not in NOT_AN_EXAMPLE for d in report.diagnostics):
        return False
    loaded = load_checked(folder)
    if loaded.pack is None:
        return False
    compiled = compile_pack(loaded.pack)
    results = [
        run_test(compiled.new_game, card, test) for card in compiled.cards for test in card.tests
    ]
    return all(result.passed for result in results)


def _examples(ruleset: Ruleset, kind: Kind) -> Iterator[Example]:
    """Example cards of a kind, the richest first: with an effect, then without one. Each is
    a sound card: its options help in different ways (a stat, or a card drawn: neither is
    worse than the other), and its use is spent (it is discarded)."""
    properties = [
        ruleset.properties.by_name[name].example().replace('"..."', f'"{PLACEHOLDER}"')
        for name, required in kind.properties.items()
        if required and name in ruleset.properties.by_name
    ]
    stats = list(ruleset.stats.values())
    title = f"Example {kind.name.replace('_', ' ').title()}"
    head = f'{kind.name} "{title}" {{\n' + "".join(f"    {line}\n" for line in properties)
    if stats:
        signs = polarity(stats)
        helps = [_Help(stat, signs.get(stat.name, 1)) for stat in stats]
        # A stat the change shows on as a game starts, so the report sees what it does.
        first = next((h for h in helps if h.room_at_start), helps[0])
        check = f"given {first.stat.name} {first.given}"
        deck = next((d for d in ruleset.decks if d != kind.deck), kind.deck)
        if kind.options and deck is not None:
            yield Example(
                kind.name,
                head
                + f'    option "Steady yourself" {{ {first.effect} }}\n'
                + f'    option "Look around" {{ draw {deck} }}\n'
                + f'    test "steadying helps {first.stat.name}" {{\n'
                + f'        {check}\n        choose "Steady yourself"\n'
                + f"        expect {first.expect}\n    }}\n}}\n",
            )
        if "use" in kind.blocks:
            yield Example(
                kind.name,
                head
                + f"    use {{\n        {first.effect}\n        discard this\n    }}\n"
                + f'    test "using it helps {first.stat.name}, once" {{\n'
                + f'        {check}\n        use "{title}"\n'
                + f"        expect {first.expect}\n    }}\n}}\n",
            )
        low = first.stat.low
        yield Example(
            kind.name,
            head
            + f'    test "it is a card of the pack" {{\n        {check}\n'
            + f"        expect {first.stat.name} >= {low}\n    }}\n}}\n",
        )
    yield Example(kind.name, head + "}\n")


@dataclass(frozen=True)
class _Help:
    """A stat changed by 1 the way that helps: raised, or lowered where more is worse."""

    stat: StatRule
    sign: int  # +1: more is better (or neither); -1: less is better

    @property
    def room_at_start(self) -> bool:
        """Whether the stat can move the way that helps from its start."""
        stat = self.stat
        return stat.start > stat.low if self.sign < 0 else stat.start < stat.high

    @property
    def given(self) -> int:
        """A value the change can be seen from: within the stat's range, room to move."""
        stat = self.stat
        if self.sign < 0:
            return max(min(stat.start, stat.high), stat.low + 1)
        return min(max(stat.start, stat.low), stat.high - 1)

    @property
    def effect(self) -> str:
        """The line that helps."""
        return f"{'lose' if self.sign < 0 else 'gain'} {self.stat.name} 1"

    @property
    def expect(self) -> str:
        """What a test expects after it."""
        return f"{self.stat.name} == {self.given + self.sign}"
