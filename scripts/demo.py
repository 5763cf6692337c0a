"""`make demo`: the main job on a bundled pack, step by step, timed.

Each step is the `pillbox` command a designer would type; its output is shown as it runs. A
step that fails stops the demo with its exit code. At the end, a table says how long each step
took and where its files are.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Step:
    """One command of the demo and what it leaves behind."""

    name: str
    args: tuple[str, ...]
    output: str = ""


def steps(
    pack: str,
    build: str,
    play: str,
    answers: list[str],
    against: str | None = None,
    games: int = 0,
    balance: bool = False,
) -> list[Step]:
    """The main job: check, test, play one card (facing an actor, if one is named), print,
    report; and, for a game played whole, a sweep of `games` simulated games, and the balance
    bands its pack.yaml states, judged as CI would."""
    stem = Path(pack).name
    chosen = tuple(arg for answer in answers for arg in ("--choose", answer))
    chosen += ("--against", against) if against else ()
    return [
        Step("check", ("check", pack)),
        Step("test", ("test", pack)),
        Step(
            "play",
            ("play", pack, play, "--seed", "7", *chosen),
        ),
        Step(
            "print",
            (
                "print",
                pack,
                "-o",
                f"{build}/{stem}.pdf",
                "--paper",
                "a4",
                "--backs",
                "duplex",
                "--png",
                f"{build}/{stem}-png",
                "--dpi",
                "100",
                "--tts",
                f"{build}/{stem}-tts",
            ),
            f"{build}/{stem}.pdf, {build}/{stem}-png/ and {build}/{stem}-tts/",
        ),
        Step("report", ("report", pack, "-o", f"{build}/{stem}-report.html"), ""),
        *(
            [
                Step(
                    "simulate",
                    (
                        "simulate",
                        pack,
                        "--games",
                        str(games),
                        "--players",
                        "4",
                        "--seed",
                        "1",
                        "--report",
                        f"{build}/{stem}-simulate.html",
                    ),
                )
            ]
            if games
            else []
        ),
        *([Step("balance", ("test", "--balance", pack, "--workers", "2"))] if balance else []),
    ]


def main() -> int:
    """Run every step; print the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pack", default="content/coma-ward")
    parser.add_argument("--build", default="build")
    parser.add_argument("--play", default="The Gurney That Follows", help="the card to play")
    parser.add_argument("--choose", action="append", help="its answers, in order")
    parser.add_argument("--against", help="the card of the actor it faces (a monster)")
    parser.add_argument("--simulate", type=int, default=0, help="whole games to simulate")
    parser.add_argument("--balance", action="store_true", help="judge pack.yaml's balance bands")
    arguments = parser.parse_args()
    Path(ROOT / arguments.build).mkdir(parents=True, exist_ok=True)
    done: list[tuple[Step, float]] = []
    # The default card's answer; another card is played with the answers given, if any.
    plays_default = arguments.play == parser.get_default("play") and arguments.against is None
    default = ["Outrun it"] if plays_default else []
    answers = arguments.choose if arguments.choose is not None else default
    plan = steps(
        arguments.pack,
        arguments.build,
        arguments.play,
        answers,
        arguments.against,
        arguments.simulate,
        arguments.balance,
    )
    for step in plan:
        command = [sys.executable, "-m", "compiler", *step.args]
        print(f"\n$ pillbox {shlex.join(step.args)}", flush=True)
        start = time.perf_counter()
        code = subprocess.run(command, cwd=ROOT, check=False).returncode
        seconds = time.perf_counter() - start
        if code != 0:
            print(f"\nmake demo: `pillbox {step.name}` failed (exit {code})", file=sys.stderr)
            return code
        done.append((step, seconds))
    print("\nstep     time    output")
    for step, seconds in done:
        where = step.output or next(
            (a for a in reversed(step.args) if a.endswith((".pdf", ".html"))), ""
        )
        print(f"{step.name:<8} {seconds:5.1f} s  {where}")
    print(f"total    {sum(s for _, s in done):5.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
