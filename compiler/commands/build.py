"""`pillbox build`: a pack compiled, its generated Python or rules text shown, or its IR written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from compiler.build import CompiledPack
from compiler.commands.common import (
    COLOR_OPTION,
    RULESET_OPTION,
    style_of,
    usage,
)
from compiler.errors import EXIT_CLEAN, EXIT_CONTENT, UsageError
from compiler.files import write_atomically
from compiler.irschema import validate_card
from compiler.playing import Emit, in_pack, load_compiled
from compiler.render import Style, counted, plain
from compiler.rulestext import pack_text
from compiler.terminal import echo


@click.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.option(
    "--emit", "emit_kind", type=click.Choice(["python"]), help="Print the generated Python."
)
@click.option("--text", is_flag=True, help="Print every card's rules text.")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write the checked IR as JSON: to FILE.json, or DIR/<pack>.ir.json.",
)
@RULESET_OPTION
@COLOR_OPTION
def build(
    pack: Path,
    emit_kind: str | None,
    text: bool,
    output: Path | None,
    ruleset: str | None,
    color: str,
) -> None:
    """Compile a pack: show its generated Python or rules text, or write its IR."""

    style = style_of(color)
    sys.exit(
        usage(
            lambda: build_pack(
                pack, ruleset, emit_kind == "python", text, output, echo(style), style
            )
        )
    )


def build_pack(
    path: Path,
    ruleset: str | None,
    emit_python: bool,
    text: bool,
    output: Path | None,
    emit: Emit,
    style: Style = plain,
) -> int:
    """Compile a pack; print its Python or rules text, or write its checked IR."""
    compiled = load_compiled(path, ruleset, emit, style)
    if compiled is None:
        return EXIT_CONTENT
    if emit_python:
        for index, file in enumerate(compiled.files):
            if index:
                emit("")
            emit(f"# ---- {file.file} ----")
            emit(file.source())
    if text:
        emit(pack_text(compiled.checked.ruleset, compiled.checked.cards))
    if output is not None:
        written = write_ir(compiled, output)
        emit(f"wrote {written}")
    if not (emit_python or text or output is not None):
        cards = len(compiled.cards)
        emit(
            f"{compiled.checked.name}: compiled {counted(cards, 'card')} from "
            f"{counted(len(compiled.files), 'file')} "
            "(--emit python to see the code, -o DIR to write the IR)"
        )
    return EXIT_CLEAN


def write_ir(compiled: CompiledPack, output: Path) -> Path:
    """Write the checked IR of every card, validated, atomically: to the file named if it ends
    in .json, else to DIR/<pack>.ir.json.

    Paths in the file are relative to the pack folder, so the bytes do not depend on where
    the command ran.
    """

    checked = compiled.checked
    problems = [d for card in checked.cards for d in validate_card(checked.ruleset, card)]
    if problems:
        raise RuntimeError(f"the IR does not match schemas/ir.schema.json: {problems[0].message}")
    document = {
        "pack": checked.name,
        "ruleset": checked.ruleset.name,
        "ruleset_digest": checked.ruleset.digest,
        "files": [
            {
                "file": in_pack(checked.root, f.file),
                "cards": [{**card, "file": in_pack(checked.root, f.file)} for card in f.cards],
            }
            for f in checked.files
        ],
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    # `-o ir.json` names the file; any other name is a folder to write <pack>.ir.json in.
    named = output.suffix == ".json" and not output.is_dir()
    target = output if named else output / f"{checked.name}.ir.json"
    try:
        if not named and output.exists() and not output.is_dir():
            raise UsageError(f"-o {output}: not a folder; name a folder, or a file ending .json")
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, text.encode("utf-8"))
    except OSError as error:
        raise UsageError(f"-o {output}: cannot write there ({error.strerror or error})") from None
    return target
