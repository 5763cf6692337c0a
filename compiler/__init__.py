"""pillbox's compiler: rulesets, lowering, semantic passes, diagnostics and the CLI."""

__version__ = "0.1.0"
