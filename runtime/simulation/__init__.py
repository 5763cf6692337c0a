"""Simulation: many whole games played by policies, read into records and summed up into figures.

`record.play_game` plays one game of a sweep through the whole-game contract (`runtime.whole`)
and reads it into a `GameRecord`; `figures.figures` sums records up. Neither knows a game: the
phases, labels, stats and cards they count are the game's own words.
"""
