"""pillbox's runtime: game state, dice and checks, and the interpreter of compiled effects."""
