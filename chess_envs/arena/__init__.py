"""Matches, tournaments, ratings and reports between agents, and a terminal game (docs/architecture.md)."""
