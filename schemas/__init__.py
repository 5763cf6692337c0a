"""JSON Schemas (draft 2020-12) for pack.yaml, ruleset files and the card IR, as package data."""
