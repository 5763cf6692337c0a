"""Bundled rulesets and content packs, one folder per game, as package data."""
