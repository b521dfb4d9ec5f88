"""Agents that pick moves given a game state (see DESIGN.md section 5); filled in by later issues."""
