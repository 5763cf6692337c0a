"""Whole games at the command line: a game played seat by seat with its log, and the records
that `replay` plays back (`play --game`, `replay`)."""
