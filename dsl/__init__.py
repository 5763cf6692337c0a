"""The card language: grammar, parser, AST and source spans. Knows nothing of the rest."""
