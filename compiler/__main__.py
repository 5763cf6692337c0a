"""`python -m compiler` runs the pillbox command line."""

from compiler.cli import main

main()
