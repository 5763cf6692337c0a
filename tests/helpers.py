"""Helpers the test modules share: run the CLI in-process, write a pack to a folder."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from compiler.cli import main


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
