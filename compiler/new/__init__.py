"""`pillbox new`: a pack (or a game) started from a bundled ruleset, with its CI workflow."""
