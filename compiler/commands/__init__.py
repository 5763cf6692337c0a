"""The command line's verbs, one module each; `compiler.cli` loads them by name from its table."""
